import GitCore

/// The check of git's index against `main` (`Deck.checkIndex`, for `fsck` and the recovery of a
/// killed write), in phases called in this order: `init` reads what git keeps out of the working
/// tree, before the index is touched; `open` reads the index from disk (or `remake`, when it is
/// missing or damaged, makes it again from `main`); `sortDifferences` tells where it is behind `main`
/// from what was staged by hand; `reportBehind` says it without a repair; with one,
/// `bringWorkingTreeAlong` updates the files left behind, `rewriteIndex` writes the index as `main`
/// has it, with the hand-staged changes staged again, and `finish` says what was kept.
struct IndexCheck {
    /// The deck checked.
    let deck: Deck
    /// `main`'s tree.
    let main: ObjectID
    /// Whether to repair what is found, or only say it.
    let repair: Bool
    /// The paths an interrupted write of ours was bringing along (its pending flag), behind whatever
    /// their entries; nil when there is no flag.
    let interrupted: [String]?
    /// What the working tree was last brought to (`workingTreeBases`), when known.
    let bases: WorkingTreeBases?
    /// The index file.
    let path: String
    /// The paths git keeps out of the working tree (skip-worktree bits): never brought into it nor taken
    /// for deleted, and they keep their bit.
    let skipped: Set<String>
    /// Whether a sparse checkout's patterns apply.
    let sparse: Bool
    /// What is wrong with the index file when `open` could not read it.
    private(set) var state = "missing"

    /// Reads what git keeps out of the working tree, before the index is touched.
    init(deck: Deck, main: ObjectID, repair: Bool, interrupted: [String]?, bases: WorkingTreeBases?) {
        self.deck = deck
        self.main = main
        self.repair = repair
        self.interrupted = interrupted
        self.bases = bases
        path = "\(deck.gitDirectory)/index"
        skipped = deck.skipWorktreePaths(among: nil)
        sparse = deck.isSparseCheckout
    }

    /// The index as on disk and its tree; nil when it is missing or damaged (`state` says which).
    mutating func open() -> (index: Index, tree: ObjectID)? {
        guard FileSystem.exists(path) else { return nil }
        do throws(GitError) {
            // From disk: the repository's index object is as it was first read, and the writes of
            // this deck since patched the file, not that object (an app keeps its deck open).
            let index = try deck.repository.index()
            try index.reload(force: true)
            return (index, try index.writeTree())
        } catch {
            state = "damaged (\(error.message))"
            return nil
        }
    }

    /// A missing or damaged index (truncated, overwritten; git's own commands fail on it too): it only
    /// caches what main and the working tree hold, so a repair makes it again from main, files keeping
    /// their content. Whether the index can be read now.
    func remake(_ report: inout CheckReport) throws(StoreError) -> Bool {
        guard repair else {
            report.problems.append(
                "\(path): \(state); `cards fsck --repair` makes it again from main, leaving the working tree as it is"
            )
            return false
        }
        if FileSystem.exists(path) { try FileSystem.remove(path) }
        IndexPatch.removeStaleSideFiles(of: path)
        let workingDirectory = deck.workingDirectory ?? deck.location
        let (skipped, sparse, main) = (skipped, sparse, main)
        try withStoreError("making the index again") { () throws(GitError) in
            let fresh = try deck.repository.index()
            try fresh.readTree(main)
            // In a sparse checkout a missing file is one git left out: held out, git's patterns decide.
            try fresh.markSkipWorktree { entry in
                skipped.contains(entry) || (sparse && !FileSystem.exists("\(workingDirectory)/\(entry)"))
            }
            try fresh.write()
        }
        report.repaired.append("made the index \(path) again from main (it was \(state))")
        if sparse { deck.applySparsePatterns(following: nil) }
        return true
    }

    /// Where the index (its tree `indexTree`) differs from main, it is either behind (a write of ours
    /// moved main and was stopped before the index followed) or holds a change staged by hand (`git
    /// add`, `git rm --cached`), which must be kept: behind is an entry as a commit the index followed
    /// had it (`Deck.indexBehind`).
    func sortDifferences(_ indexTree: ObjectID) throws(StoreError) -> (behind: [PathChange], staged: [PathChange]) {
        let differences = try withStoreError("comparing the index with main") { () throws(GitError) in
            try TreeDiff.changes(in: deck.repository, from: indexTree, to: main)
        }
        var (behind, stale, staged) = try deck.indexBehind(
            differences, index: indexTree, main: main, interrupted: interrupted, bases: bases)
        // An entry as main's parent had it, its file already main's: the index alone fell behind (`git commit`
        // reads the index before it takes the lock and writes what it read back even when its commit then
        // fails, over the index a write of ours had just brought along). Any other such entry is the user's.
        for change in stale {
            let full = try? deck.workingFile(change.path) ?? deck.workingDirectory.map { "\($0)/\(change.path)" }
            let present = full.flatMap { deck.workingBlobID($0, path: change.path) }
            if present == change.new?.id { behind.append(change) } else { staged.append(change) }
        }
        return (behind, staged)
    }

    /// Without a repair (or a working tree): each path the index and working tree are behind on, said.
    func reportBehind(_ behind: [PathChange], _ report: inout CheckReport) {
        for change in behind {
            report.problems.append(
                "\(change.path): the index and working tree are behind main (it moved without them: a command interrupted, or git); "
                    + "`cards fsck --repair` brings them up to date")
        }
    }

    /// Brings each file the index is behind on up to date with main, when it is still as the index had
    /// it; anything else is a hand edit, kept. Returns the paths whose files are main's now (their stat
    /// data to refresh) and the new paths a sparse checkout holds out (git's patterns decide).
    func bringWorkingTreeAlong(_ behind: [PathChange], in workingDirectory: String, _ report: inout CheckReport)
        throws(StoreError) -> (current: [String], heldOut: Set<String>)
    {
        var current: [String] = []
        var heldOut: Set<String> = []
        for change in behind {
            if !skipped.contains(change.path) && sparse && change.old == nil && change.new != nil
                && !FileSystem.exists("\(workingDirectory)/\(change.path)")
            {
                heldOut.insert(change.path)
            }
            if skipped.contains(change.path) || heldOut.contains(change.path) {
                // Outside the sparse checkout: the entry follows main, the working tree is left alone.
                report.repaired.append(
                    "brought \(change.path) up to date with main in the index (git keeps it out of the working tree)")
                continue
            }
            let full: String
            do {
                full = try deck.workingFile(change.path) ?? "\(workingDirectory)/\(change.path)"
            } catch {
                report.problems.append("\(change.path): not brought up to date: \(error.message)")
                continue
            }
            let present = deck.workingBlobID(full, path: change.path)
            // A file still as the index had it was left behind by the interrupted write: update it.
            // Anything else is a hand edit: keep it (status then shows it against main).
            if present == change.old?.id {
                if let new = change.new {
                    let bytes = try withStoreError("reading \(change.path)") { () throws(GitError) in
                        try deck.repository.readBlob(new.id)
                    }
                    try FileSystem.writeAtomically(
                        deck.checkoutBytes(bytes, blob: new.id, path: change.path), to: full, durable: deck.durable)
                    current.append(change.path)
                } else {
                    try FileSystem.remove(full)
                }
                report.repaired.append("brought \(change.path) up to date with main (behind it, not edited)")
            } else {
                // Already as main has it: refresh its stat data (a deleted file has none to refresh).
                if present == change.new?.id, present != nil { current.append(change.path) }
                if present != change.new?.id { report.repaired.append("kept the hand edit in \(change.path)") }
            }
        }
        return (current, heldOut)
    }

    /// Writes `index` as main has it: every skip-worktree bit as it was (a sparse checkout's files are
    /// not deletions), the stat data of `current` refreshed, and the changes staged by hand staged again.
    func rewriteIndex(_ index: Index, current: [String], heldOut: Set<String>, staged: [PathChange])
        throws(StoreError)
    {
        let (deck, skipped, main) = (deck, skipped, main)
        try withStoreError("rewriting the index") { () throws(GitError) in
            try index.readTree(main)
            if !skipped.isEmpty || !heldOut.isEmpty {
                try index.markSkipWorktree { skipped.contains($0) || heldOut.contains($0) }
            }
            // Refresh the stat data of files that now match main, so git need not re-hash them.
            // Not a filter driver's file (an LFS image): libgit2 would hash it as it is, not as git stores it.
            for path in current where !deck.hasFilterDriver(path) { try index.add(path: path) }
            for change in staged {
                if let entry = change.old {
                    try index.stage(
                        path: change.path, id: entry.id, mode: entry.mode, skipWorktree: skipped.contains(change.path))
                } else {
                    try index.remove(path: change.path)
                }
            }
            try index.write()
        }
    }

    /// Says the hand-staged changes were kept, and lets git's patterns decide the paths held out.
    func finish(staged: [PathChange], heldOut: Set<String>, _ report: inout CheckReport) {
        for change in staged { report.repaired.append("kept the change staged in \(change.path)") }
        if !heldOut.isEmpty { deck.applySparsePatterns(following: nil) }
    }
}
