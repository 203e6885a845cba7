import GitCore

extension Deck {
    /// Skips libgit2's TLS certificate loading at start-up, for a process (or a command) that opens
    /// no network connection: call before the first deck is opened. `prepareNetwork` undoes it.
    public static func deferNetworkSetUp() {
        Libgit2.deferCertificateLoading()
    }

    /// Loads what `deferNetworkSetUp` skipped; a no-op when nothing was skipped. Sync, clone, fetch
    /// and push call it before connecting.
    public static func prepareNetwork() {
        Libgit2.loadDeferredCertificates()
    }
}
