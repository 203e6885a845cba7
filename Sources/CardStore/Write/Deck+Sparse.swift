import GitCore
import Glibc

/// The paths a write keeps out of the working tree because git keeps them out: entries with git's
/// skip-worktree bit (a sparse checkout's paths outside its patterns, `git update-index
/// --skip-worktree`), and, while a sparse checkout is on, new paths until git's patterns say where
/// they belong (`reapplySparsePatterns`).
struct WorkingTreeSkips: Sendable {
    /// Paths whose index entry has the skip-worktree bit: their entries follow the change and keep
    /// the bit, their files are neither written nor removed (git neither reads nor writes them there).
    var skipped: Set<String> = []
    /// Paths with no index entry, held out of the working tree in a sparse checkout: staged with the
    /// bit, then git's own patterns check them out or leave them out (as `git merge` does).
    var heldOut: Set<String> = []

    /// Whether the write leaves `path`'s file alone and marks its entry skip-worktree.
    func contains(_ path: String) -> Bool {
        !(skipped.isEmpty && heldOut.isEmpty) && (skipped.contains(path) || heldOut.contains(path))
    }

    /// Nothing kept out: the working tree holds every path (a deck outside any sparse checkout).
    static let none = WorkingTreeSkips()
}

extension Deck {
    /// Whether git's sparse checkout is on in this working tree (`core.sparseCheckout`, which `git
    /// sparse-checkout` keeps in the worktree's own config). Only looked up where its patterns file
    /// (`info/sparse-checkout`) exists: one `access` call for everyone else.
    var isSparseCheckout: Bool {
        guard !isBare, access("\(gitDirectory)/info/sparse-checkout", F_OK) == 0 else { return false }
        return repository.worktreeConfigFlag("core.sparseCheckout") == true
    }

    /// What a write of `paths` keeps out of the working tree (see `WorkingTreeSkips`), read from the
    /// index file without libgit2: its header alone for a version 2 index outside a sparse checkout
    /// (no entry of such an index can skip the working tree), a walk of its entries' flags otherwise.
    /// `adding`: the paths the write gives content (only they can be held out as new).
    func workingTreeSkips(for paths: [String], adding: Set<String>? = nil) -> WorkingTreeSkips {
        guard !isBare, !paths.isEmpty else { return .none }
        let sparse = isSparseCheckout
        let read = IndexSkipWorktree.read(indexPath: "\(gitDirectory)/index", paths: Set(paths), tracking: sparse)
        var skips = WorkingTreeSkips(skipped: read.skipped)
        if sparse {
            for path in adding ?? Set(paths) where !read.tracked.contains(path) { skips.heldOut.insert(path) }
        }
        return skips
    }

    /// The skip-worktree paths of the index among `paths` (every one when nil), for the commands that
    /// compare the working tree with `main`: a file git keeps out of the working tree is not deleted.
    func skipWorktreePaths(among paths: Set<String>?) -> Set<String> {
        guard !isBare, paths?.isEmpty != true else { return [] }
        return IndexSkipWorktree.read(indexPath: "\(gitDirectory)/index", paths: paths).skipped
    }

    /// After a write that held new paths out of a sparse checkout's working tree: git applies its
    /// patterns (`git sparse-checkout reapply`), checking out those inside them and marking the rest
    /// skip-worktree, as a `git merge` or `git checkout` there does. Run under the deck lock, after
    /// git's index lock is let go; `commit` is main's, for the record of the index that follows it.
    /// Best effort: if git cannot, the held-out paths stay out (`git status` clean, nothing lost) until
    /// git next applies the patterns.
    func reapplySparsePatterns(_ skips: WorkingTreeSkips, following commit: ObjectID?) {
        guard !skips.heldOut.isEmpty else { return }
        applySparsePatterns(following: commit)
    }

    /// `git sparse-checkout reapply` in a sparse checkout (see `reapplySparsePatterns`); nothing elsewhere.
    func applySparsePatterns(following commit: ObjectID?) {
        guard isSparseCheckout else { return }
        guard let outcome = try? repository.runLocalGit(["sparse-checkout", "reapply"]), outcome.status == 0 else {
            return
        }
        // git rewrote the index, following the same commit: recorded again, so the next write trusts it.
        if let commit { recordIndexFollows(commit) }
    }

    /// The command that makes a sparse index a full one again and keeps it so (in the worktree's config,
    /// where `git sparse-checkout` set it), keeping the sparse checkout and its patterns.
    static let unsparseCommand = "git sparse-checkout reapply --no-sparse-index"

    /// Whether the index is a sparse index (`index.sparse`), which libgit2 1.5 cannot read.
    var isSparseIndex: Bool {
        !isBare && IndexSkipWorktree.isSparseIndex(at: "\(gitDirectory)/index")
    }

    /// Refuses a command up front, before anything is written, when the index is a sparse index: it
    /// could not follow the write, nor tell which files a sparse checkout leaves out.
    func checkIndexNotSparse() throws(StoreError) {
        guard isSparseIndex else { return }
        throw StoreError(
            .io,
            "\(gitDirectory)/index is a sparse index (`index.sparse`, set by `git sparse-checkout set "
                + "--sparse-index`), which cards cannot read; nothing was changed: `\(Deck.unsparseCommand)` (or "
                + "`cards fsck --repair`) makes it a full index, keeping your sparse checkout, then try again")
    }

    /// For `fsck --repair`: makes a sparse index a full one through git (`unsparseCommand`), which keeps
    /// every skip-worktree bit, so no file outside the sparse checkout reads as deleted.
    func unsparseIndex(_ report: inout CheckReport) {
        guard isSparseIndex else { return }
        let outcome = try? repository.runLocalGit(["sparse-checkout", "reapply", "--no-sparse-index"])
        if outcome?.status == 0 && !isSparseIndex {
            report.repaired.append(
                "made the sparse index \(gitDirectory)/index a full one, keeping the sparse checkout "
                    + "(`\(Deck.unsparseCommand)`: index.sparse is now false in this working tree)")
        } else {
            let said = outcome?.errorLines.first.map { " (git said: \($0))" } ?? ""
            report.problems.append(
                "\(gitDirectory)/index: a sparse index, which cards cannot read, and git could not make it full"
                    + "\(said); run `\(Deck.unsparseCommand)`, then `cards fsck` again")
        }
    }
}
