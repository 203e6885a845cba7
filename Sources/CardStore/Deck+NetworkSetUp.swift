import GitCore

extension Deck {
    /// Defers libgit2's TLS and SSH set-up until a connection needs it: call before the first deck is
    /// opened. Fetch, push and clone run it themselves; `prepareNetwork` runs it earlier.
    public static func deferNetworkSetUp() {
        Libgit2.deferNetworkSetUp()
    }

    /// Runs what `deferNetworkSetUp` deferred; a no-op when nothing was.
    public static func prepareNetwork() {
        Libgit2.runDeferredNetworkSetUp()
    }
}
