import CGit2
import Glibc

/// Keeping the TLS set-up off commands that never touch the network.
///
/// Debian's libgit2 parses the whole CA bundle (`/etc/ssl/certs/ca-certificates.crt`, ~140 PEM
/// certificates through mbedTLS) inside `git_libgit2_init`: ~8 of the ~11 ms that init costs here,
/// paid by every `cards add`. There is no option to skip it, so we wrap the one mbedTLS call it makes
/// (the linker's `--wrap`, set in Package.swift: libgit2's calls reach `__wrap_…`, and `__real_…` is
/// mbedTLS's own): while loading is deferred, the bundle's path is recorded and nothing is parsed;
/// the first network operation loads it through `GIT_OPT_SET_SSL_CERT_LOCATIONS`, the same libgit2 path.
///
/// The rest of libgit2's network set-up in its init is deferred the same way: mbedTLS's random
/// generator seeded from entropy (HAVEGE, ~0.2 ms) and the SSH library's start, which loads OpenSSL's
/// error strings and algorithm tables (~0.2 ms). `loadDeferredCertificates` runs both, before any
/// connection: `Repository.fetch`, `push` and `clone` call it themselves.
extension Libgit2 {
    nonisolated(unsafe) static var certificatesDeferred = false
    nonisolated(unsafe) static var deferredFile: String?
    nonisolated(unsafe) static var deferredFolder: String?
    /// The TLS and SSH set-ups skipped during init, to run before the first connection.
    nonisolated(unsafe) static var skippedTLS = false
    nonisolated(unsafe) static var skippedSSH = false

    /// Skips loading the CA certificates during init: call before any other libgit2 use, for a
    /// command that never opens a network connection. Not thread-safe (call it first thing).
    public static func deferCertificateLoading() {
        certificatesDeferred = true
    }

    /// Loads the CA certificates whose loading was deferred (a no-op otherwise). Every network
    /// operation must run after this.
    public static func loadDeferredCertificates() {
        guard certificatesDeferred else { return }
        ensureInitialized()
        certificatesDeferred = false
        // The TLS set-up, run now, loads the CA bundle itself (as it would have in init).
        if skippedTLS {
            skippedTLS = false
            if __real_git_mbedtls_stream_global_init() != 0 { git_error_clear() }
        }
        if skippedSSH {
            skippedSSH = false
            if __real_git_transport_ssh_global_init() != 0 { git_error_clear() }
        }
        let file = deferredFile
        let folder = deferredFolder
        deferredFile = nil
        deferredFolder = nil
        guard file != nil || folder != nil else { return }
        if cgit2_set_ssl_cert_locations(file, folder) != 0 { git_error_clear() }
    }
}

/// What `git_libgit2_init`'s call of libgit2's mbedTLS set-up reaches: skipped while network set-up
/// is deferred (run later by `Libgit2.loadDeferredCertificates`), else run.
@_cdecl("__wrap_git_mbedtls_stream_global_init")
public func cardsInterposedTLSInit() -> Int32 {
    if Libgit2.certificatesDeferred {
        Libgit2.skippedTLS = true
        return 0
    }
    return __real_git_mbedtls_stream_global_init()
}

/// What `git_libgit2_init`'s call of libgit2's SSH set-up reaches, like `cardsInterposedTLSInit`.
@_cdecl("__wrap_git_transport_ssh_global_init")
public func cardsInterposedSSHInit() -> Int32 {
    if Libgit2.certificatesDeferred {
        Libgit2.skippedSSH = true
        return 0
    }
    return __real_git_transport_ssh_global_init()
}

/// What libgit2's call of mbedTLS's `mbedtls_x509_crt_parse_file` reaches: records the path while
/// loading is deferred, else forwards to mbedTLS.
@_cdecl("__wrap_mbedtls_x509_crt_parse_file")
public func cardsInterposedParseFile(_ chain: UnsafeMutableRawPointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    if Libgit2.certificatesDeferred {
        Libgit2.deferredFile = path.map { String(cString: $0) }
        return 0
    }
    return __real_mbedtls_x509_crt_parse_file(chain, path)
}

/// What libgit2's call of `mbedtls_x509_crt_parse_path` (a CA folder) reaches, like `cardsInterposedParseFile`.
@_cdecl("__wrap_mbedtls_x509_crt_parse_path")
public func cardsInterposedParsePath(_ chain: UnsafeMutableRawPointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    if Libgit2.certificatesDeferred {
        Libgit2.deferredFolder = path.map { String(cString: $0) }
        return 0
    }
    return __real_mbedtls_x509_crt_parse_path(chain, path)
}
