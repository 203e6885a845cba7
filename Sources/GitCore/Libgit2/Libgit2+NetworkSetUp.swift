import CGit2
import Glibc

#if CARDS_STATIC_LINK
    /// Keeping libgit2's network set-up off commands that never touch the network.
    ///
    /// `git_libgit2_init` sets up TLS (mbedTLS: the whole CA bundle `/etc/ssl/certs/ca-certificates.crt`
    /// parsed, ~7–8 ms, and a random generator seeded from entropy) and SSH (libssh2, which loads
    /// OpenSSL's error strings and algorithm tables). libgit2 has no switch for either, so its two
    /// set-up functions reach wrappers of ours (the linker's `--wrap`, set in Package.swift: libgit2's
    /// calls reach `__wrap_…`, and `__real_…` is libgit2's own): while deferred they do nothing, and
    /// `runDeferredNetworkSetUp` runs the real ones before the first connection (from
    /// `RemoteCallbackState`, made by every fetch, push and clone that connects; a fetch or push with a
    /// repository on this machine needs neither).
    extension Libgit2 {
        nonisolated(unsafe) static var networkSetUpDeferred = false
        /// The TLS and SSH set-ups skipped during init, to run before the first connection.
        nonisolated(unsafe) static var skippedTLS = false
        nonisolated(unsafe) static var skippedSSH = false

        /// Skips libgit2's TLS and SSH set-up during init: call before any other libgit2 use. Not
        /// thread-safe (call it first thing).
        package static func deferNetworkSetUp() {
            networkSetUpDeferred = true
        }

        /// Runs the TLS and SSH set-up that was deferred (a no-op otherwise). Every network operation
        /// must run after this.
        package static func runDeferredNetworkSetUp() {
            guard networkSetUpDeferred else { return }
            ensureInitialized()
            networkSetUpDeferred = false
            // The TLS set-up loads the CA bundle itself, as it would have in init.
            if skippedTLS {
                skippedTLS = false
                if __real_git_mbedtls_stream_global_init() != 0 { git_error_clear() }
            }
            if skippedSSH {
                skippedSSH = false
                if __real_git_transport_ssh_global_init() != 0 { git_error_clear() }
            }
        }
    }

    /// What `git_libgit2_init`'s call of libgit2's mbedTLS set-up reaches: skipped while network set-up
    /// is deferred (run later by `Libgit2.runDeferredNetworkSetUp`), else run.
    @_cdecl("__wrap_git_mbedtls_stream_global_init")
    package func cardsInterposedTLSInit() -> Int32 {
        if Libgit2.networkSetUpDeferred {
            Libgit2.skippedTLS = true
            return 0
        }
        return __real_git_mbedtls_stream_global_init()
    }

    /// What `git_libgit2_init`'s call of libgit2's SSH set-up reaches, like `cardsInterposedTLSInit`.
    @_cdecl("__wrap_git_transport_ssh_global_init")
    package func cardsInterposedSSHInit() -> Int32 {
        if Libgit2.networkSetUpDeferred {
            Libgit2.skippedSSH = true
            return 0
        }
        return __real_git_transport_ssh_global_init()
    }
#else
    /// The shared libgit2 (the default build) sets up TLS and SSH in `git_libgit2_init` as it always
    /// does: its set-up functions are internal, so only the static build (`CARDS_STATIC=1`, see
    /// Package.swift) can defer them, through the linker's `--wrap`.
    extension Libgit2 {
        /// Does nothing in this build: libgit2's network set-up runs in its init (see above).
        package static func deferNetworkSetUp() {}

        /// Does nothing in this build: nothing was deferred.
        package static func runDeferredNetworkSetUp() {}
    }

    // The lazily loaded libssh2's controls (Sources/CLazySSH2, static build only). With the shared
    // libgit2, libssh2 is its own dependency, loaded with it: always there, and out of our reach, so a
    // silent SSH server over libgit2's transport is not cut short (the git transport's watchdog, the
    // default where git is installed, is what times SSH out in this build; README, "Installing").

    /// Whether libssh2 could be loaded: the shared libgit2 loads it itself.
    func cards_ssh2_available() -> Int32 { 1 }

    /// The static build's SSH session timeout; libgit2 gives no hold on its sessions here.
    func cards_ssh2_set_timeout(_ milliseconds: Int) {}

    /// The static build's "time ran out" switch for SSH calls; nothing to switch here.
    func cards_ssh2_set_stalled(_ value: Int32) {}
#endif
