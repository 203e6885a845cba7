import GitCore

/// Undoing a change written to the working tree and index when its write fails halfway or `main`
/// cannot be moved to its commit: the files and entries go back as `main` has them.
extension Deck {
    /// Puts the working tree and index back as `tree` (main, which did not move) has `paths`, after a
    /// change was written to them ahead of a publish that failed. Nil when done (the caller then clears
    /// the pending flag); else why not, and the flag stays for the next command (or `cards fsck
    /// --repair`) to finish. `handEdits`: the files are the user's, being committed (`cards commit`):
    /// only their index entries go back; the files are never touched.
    /// `skips`: what git kept out of the working tree before the write (left out again).
    func putBack(
        _ paths: [String], to tree: ObjectID?, indexLock: IndexLock?, handEdits: Bool = false,
        skips: WorkingTreeSkips? = nil
    ) -> StoreError? {
        guard !isBare else { return nil }
        do throws(StoreError) {
            if handEdits {
                var base = tree
                if base == nil {
                    base = try withStoreError("writing the empty tree") { () throws(GitError) in try repository.emptyTree() }
                }
                if let base {
                    try stageFromTree(paths, tree: base, indexLock: indexLock, skipped: skips?.skipped ?? [])
                }
            } else if let tree {
                try updateWorkingTree(
                    paths, snapshotTree: tree, indexLock: indexLock, skippingUnchanged: true, skips: skips)
            } else {
                for path in paths where Deck.isSafeWorkingPath(path) && skips?.contains(path) != true {
                    try FileSystem.remove(try workingFile(path) ?? "\(location)/\(path)")
                }
                let empty = try withStoreError("writing the empty tree") { () throws(GitError) in try repository.emptyTree() }
                try updateIndexEntries(paths.map { ($0, nil, 0) }, tree: empty, indexLock: indexLock)
            }
            return nil
        } catch {
            return error
        }
    }

    /// The error for a change that could not be written to the working tree and index (or published),
    /// after putting them back: nothing was changed, or what the next command does about it.
    func putBack(
        _ paths: [String], to tree: ObjectID?, indexLock: IndexLock?, handEdits: Bool = false,
        skips: WorkingTreeSkips? = nil, after error: StoreError
    ) -> StoreError {
        if let failure = putBack(paths, to: tree, indexLock: indexLock, handEdits: handEdits, skips: skips) {
            return Deck.notPutBack(error, because: failure)
        }
        clearPending()
        if error.message.contains("nothing was changed") { return error }
        return error.reworded("\(error.message); nothing was changed")
    }

    /// `error`, told with why the working tree could not be put back after it (`failure`) and what
    /// finishes the job: nothing was committed, and the pending flag left behind brings the files back.
    static func notPutBack(_ error: StoreError, because failure: StoreError) -> StoreError {
        StoreError(
            error.code,
            "\(error.message); nothing was committed, but the working tree could not be put back as it was "
                + "(\(failure.message)): the next `cards` command does that (or `cards fsck --repair`)")
    }
}
