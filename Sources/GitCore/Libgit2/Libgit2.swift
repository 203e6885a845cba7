import CGit2
import Synchronization

/// Process-wide libgit2 set-up: initialised once, never shut down (objects may outlive any scope).
package enum Libgit2 {
    private static let initialized: Bool = {
        git_libgit2_init()
        // libgit2's own ownership check stays off: `Repository.openChecked` makes git's, before
        // libgit2 reads anything of the repository. libgit2 1.5.1's differs from git 2.39's (no `*`, no
        // `GIT_CONFIG_GLOBAL` or `git -c`, paths compared once made canonical, made after the
        // repository's config is read) and applies to every repository opened, a remote's too.
        _ = cgit2_set_owner_validation(0)
        // Verify object hashes on read so a corrupt or hostile object is caught, not used.
        _ = cgit2_enable_strict_hash_verification(1)
        // Keep parsed trees of any deck size in the object cache: the default caches trees up to 4 KB,
        // and at 100,000 cards `cards` (7.7 KB) and each `cards/xx` (~27 KB) are bigger, so every lookup
        // on a card path inflated and parsed them again (4–6 times per one-card commit), and a merge
        // read each changed folder again to build the new tree. The cache's total stays libgit2's.
        _ = cgit2_set_cache_object_limit(GIT_OBJECT_TREE, 4 << 20)
        // Commits too: the default caches those up to 4 KB, and a merge commit names each card it decided
        // in a trailer (132 KB for 2,000 cards), so a command run after a big merge or sync read and
        // hashed `main`'s commit (collision-detecting SHA-1, strict verification) four or five times.
        _ = cgit2_set_cache_object_limit(GIT_OBJECT_COMMIT, 4 << 20)
        return true
    }()

    /// Initialises libgit2 if it is not yet; cheap after the first call.
    package static func ensureInitialized() {
        _ = initialized
    }

    /// How many holders want libgit2 to fsync what it writes now (see `claimFsync`).
    private static let fsyncClaims = Mutex(0)

    /// Asks libgit2 to fsync the objects, refs and index it writes, until a matching `releaseFsync`.
    ///
    /// libgit2 has one switch for the whole process, while decks (and threads) each have their own
    /// wish: so the switch is on while any holder claims it. A deck that does without fsync never
    /// takes it away from another deck, on this thread or another, that wants it.
    package static func claimFsync() {
        ensureInitialized()
        fsyncClaims.withLock { claims in
            claims += 1
            _ = cgit2_enable_fsync_gitdir(1)
        }
    }

    /// Withdraws one `claimFsync`; libgit2's fsync turns off when no claim is left.
    package static func releaseFsync() {
        ensureInitialized()
        fsyncClaims.withLock { claims in
            claims = max(0, claims - 1)
            if claims == 0 { _ = cgit2_enable_fsync_gitdir(0) }
        }
    }

    /// Whether libgit2 fsyncs what it writes now: some holder claims it.
    package static var fsyncClaimed: Bool { fsyncClaims.withLock { $0 > 0 } }

    /// The libgit2 version this process runs with, as "major.minor.revision".
    package static var version: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        git_libgit2_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
