import GitCore

extension Deck {
    /// Defers libgit2's TLS and SSH set-up until a connection needs it: call before the first deck is
    /// opened. Fetch, push and clone run it themselves when they connect.
    public static func deferNetworkSetUp() {
        Libgit2.deferNetworkSetUp()
    }
}
