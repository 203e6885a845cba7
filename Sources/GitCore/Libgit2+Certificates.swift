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
extension Libgit2 {
    nonisolated(unsafe) static var certificatesDeferred = false
    nonisolated(unsafe) static var deferredFile: String?
    nonisolated(unsafe) static var deferredFolder: String?

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
        let file = deferredFile
        let folder = deferredFolder
        deferredFile = nil
        deferredFolder = nil
        guard file != nil || folder != nil else { return }
        if cgit2_set_ssl_cert_locations(file, folder) != 0 { git_error_clear() }
    }
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
