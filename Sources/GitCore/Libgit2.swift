import CGit2

/// Process-wide libgit2 set-up: initialised once, never shut down (objects may outlive any scope).
public enum Libgit2 {
    private static let initialized: Bool = {
        git_libgit2_init()
        // Decks are usually opened by their owner; a deck on a shared mount should still open.
        _ = cgit2_set_owner_validation(0)
        // Verify object hashes on read so a corrupt or hostile object is caught, not used.
        _ = cgit2_enable_strict_hash_verification(1)
        // Keep parsed trees of any deck size in the object cache: the default caches trees up to 4 KB,
        // and at 100,000 cards `cards` (7.7 KB) and each `cards/xx` (~27 KB) are bigger, so every lookup
        // on a card path inflated and parsed them again (4–6 times per one-card commit), and a merge
        // read each changed folder again to build the new tree. The cache's total stays libgit2's.
        _ = cgit2_set_cache_object_limit(GIT_OBJECT_TREE, 4 << 20)
        return true
    }()

    /// Initialises libgit2 if it is not yet; cheap after the first call.
    public static func ensureInitialized() {
        _ = initialized
    }

    /// Turns fsync of objects, refs and the index on or off for this process.
    public static func setDurable(_ durable: Bool) {
        ensureInitialized()
        _ = cgit2_enable_fsync_gitdir(durable ? 1 : 0)
    }

    /// The libgit2 version this process runs with, as "major.minor.revision".
    public static var version: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        git_libgit2_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
