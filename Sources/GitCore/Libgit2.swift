import CGit2

/// Process-wide libgit2 set-up: initialised once, never shut down (objects may outlive any scope).
public enum Libgit2 {
    private static let initialized: Bool = {
        git_libgit2_init()
        // Decks are usually opened by their owner; a deck on a shared mount should still open.
        _ = cgit2_set_owner_validation(0)
        // Verify object hashes on read so a corrupt or hostile object is caught, not used.
        _ = cgit2_enable_strict_hash_verification(1)
        // A folder of a big deck is a tree of ~27 KB (400 cards), over libgit2's 4 KB caching limit for
        // trees: a merge would read (inflate and hash) each changed folder again to build the new
        // tree. Cached up to 256 KB; the cache's total stays libgit2's (256 MB).
        _ = cgit2_set_cache_object_limit(GIT_OBJECT_TREE, 256 * 1024)
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
