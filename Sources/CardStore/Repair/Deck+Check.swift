import CardModel
import GitCore
import Glibc
import SystemCalls

/// What `fsck` found: problems (exit 1) and what `--repair` did.
public struct CheckReport: Sendable {
    /// Each problem, naming the file, object or lock.
    public var problems: [String] = []
    /// What repair changed.
    public var repaired: [String] = []
    /// Hand edits seen (not problems: `cards commit` records them).
    public var handEdits = 0
    /// What was not checked, on purpose, and why (a shallow or partial clone's history): not problems.
    public var notes: [String] = []
}

extension Deck {
    /// Verifies the deck: every object reachable from `main` (hashes checked), `deck.json`, every card
    /// file, the index against `main`, the working tree against the index, and leftovers of an
    /// interrupted command (locks, temp files). With `repair`, removes stale locks and temp files and
    /// brings a working tree left behind `main` up to date, keeping every hand edit.
    public func check(repair: Bool) throws(StoreError) -> CheckReport {
        var report = CheckReport()
        // Holding the deck lock means no cards command is mid-write, so leftovers are stale.
        let lock = try DeckLock(path: "\(gitDirectory)/cards.lock", timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        checkLeftovers(&report, repair: repair)
        guard let head = try headCommit() else {
            report.problems.append("\(branch) has no commit: this deck was never initialised")
            return report
        }
        if let missing = partialHistory() {
            // What git left out of the clone on purpose is no damage: the history is not walked.
            report.notes.append("the history was not checked: \(missing)")
        } else {
            do {
                try checkObjects(from: head, &report)
            } catch {
                report.problems.append(Deck.historyError(error).message)
            }
        }
        let snapshot = try snapshot(at: head)
        if let blob = try snapshot.blobID(at: Deck.metadataPath) {
            let bytes = try? repository.readBlob(blob, limit: Card.maximumFileSize)
            if let fault = bytes.map(Deck.deckDescriptionFault) ?? Deck.deckDescriptionProblem {
                report.problems.append("\(Deck.metadataPath): \(fault)")
            }
        } else {
            report.problems.append("\(Deck.metadataPath): missing from \(branch)")
        }
        for problem in try snapshot.allCards().problems {
            report.problems.append(problem.description)
        }
        // Before any repair: the index and files are git's, half way through, nothing of ours to
        // check or repair (an interrupted write's record included).
        if let problem = unfinishedGitOperation() {
            report.problems.append("\(problem), then run `cards fsck` again")
            return report
        }
        // The paths an interrupted write was bringing along: its change is put back (main did not move)
        // or finished (it did); the flag goes once that is done, kept if it fails.
        let flagged = interruptedWrite(holdingLock: true)
        let interrupted = flagged.map { Deck.followingPaths($0.files) }
        if !isBare, let tree = snapshot.tree {
            // libgit2 reads no split index: made plain first (by repair), else nothing below can be checked.
            if repair {
                try unsplitIndex(&report)
            } else if isSplitIndex {
                report.problems.append(
                    "\(gitDirectory)/index: a split index (`git update-index --split-index`), which cards cannot read; "
                        + "`cards fsck --repair` (or `\(Deck.unsplitCommand)`) makes it a plain index again")
                return report
            }
            if isSplitIndex { return report }
            // Nor a sparse index: made full through git (keeping every skip-worktree bit), else said.
            if repair {
                unsparseIndex(&report)
            } else if isSparseIndex {
                report.problems.append(
                    "\(gitDirectory)/index: a sparse index (`index.sparse`), which cards cannot read; "
                        + "`cards fsck --repair` (or `\(Deck.unsparseCommand)`) makes it a full one, keeping your "
                        + "sparse checkout")
                return report
            }
            if isSparseIndex { return report }
            if repair, let flagged { try putBackUnpublished(flagged.files, main: tree) }
            // What the working tree was last brought to, told before the index check rewrites the index.
            let bases = try workingTreeBases(head: head, indexTree: indexTreeOnDisk())
            // A damaged index (said above) leaves no way to tell hand edits.
            let readable = try checkIndex(
                tree: tree, &report, repair: repair, interrupted: interrupted, bases: bases)
            if repair { clearPending() }
            guard readable else { return report }
            let edits = try bringForward(
                try handEdits(against: snapshot, checkingIndex: false), main: snapshot, bases: bases, &report,
                repair: repair)
            for edit in edits {
                if let problem = edit.problem {
                    report.problems.append("\(edit.path) (hand edit, not committed): \(problem)")
                } else {
                    report.handEdits += 1
                    let kept = "kept the hand edit in \(edit.path)"
                    if repair && bases.canBeBehind && !report.repaired.contains(kept) { report.repaired.append(kept) }
                }
            }
            // The working tree and index follow main now, but for hand edits: the next check starts from here.
            if repair { recordIndexFollows(head) }
        } else if repair {
            clearPending()
        }
        return report
    }

    private func checkLeftovers(_ report: inout CheckReport, repair: Bool) {
        let fixed = (["\(branch).lock"] + Repository.topLevelLockFiles).map(gitLockPath)
        for path in fixed + fetchLockFiles() {
            guard FileSystem.exists(path) else { continue }
            // A lock some process has open is in use (a git command is running): never remove it.
            let openers = LockFiles.openers(of: path)
            if !openers.isEmpty {
                report.problems.append(
                    "\(path): held by \(openers.map(\.description).joined(separator: ", ")); "
                        + "run fsck again once it has finished")
            } else if repair, unlink(path) == 0 {
                report.repaired.append("removed the stale lock \(path)")
            } else {
                report.problems.append(
                    "\(path): a lock left by an interrupted command; `cards fsck --repair` removes it")
            }
        }
        if let interrupted = interruptedWrite(holdingLock: true) {
            if repair {
                report.repaired.append(
                    "finished the write of process \(interrupted.pid), interrupted before it was done")
            } else {
                report.problems.append(
                    "\(pendingPath): a write by process \(interrupted.pid) was interrupted; "
                        + "`cards fsck --repair` (or the next command) finishes it")
            }
        }
        checkObjectTempFiles(&report, repair: repair)
        checkPacksWithoutIndex(&report, repair: repair)
        checkAbandonedKeeps(&report, repair: repair)
        let cards = workingDirectory.map { "\($0)/\(Deck.cardsFolder)" }
        var folders = [gitDirectory]
        if let workingDirectory, let cards {
            folders += [workingDirectory, cards] + FileSystem.list(cards).map { "\(cards)/\($0)" }
        }
        // Temp files of a killed write: a card file's or a record's (`.NAME.PID.tmp`), and the index a
        // writer was writing beside the index under `index.lock`.
        var temps = IndexLock.leftovers(of: "\(gitDirectory)/index").filter(
            FileSystem.exists)
        for folder in folders where FileSystem.isDirectory(folder) {
            temps += FileSystem.list(folder).filter { $0.hasPrefix(".") && $0.hasSuffix(".tmp") }.map {
                "\(folder)/\($0)"
            }
        }
        for path in temps {
            if repair, unlink(path) == 0 {
                report.repaired.append("removed the temp file \(path)")
            } else {
                report.problems.append(
                    "\(path): a temp file left by an interrupted write; `cards fsck --repair` removes it")
            }
        }
    }

    /// Packs without an index (garbage to git): removed by `--repair` when the marker names them (a
    /// killed writer of ours) or when they are older than ten minutes (no git writer takes that long
    /// between naming a pack and its index). Skipped while another process writes packs.
    private func checkPacksWithoutIndex(_ report: inout CheckReport, repair: Bool) {
        if repair {
            for path in packMarker.removeOrphans(olderThan: 600) {
                report.repaired.append("removed \(path), a pack left without its index")
            }
        }
        guard let lock = PackFolderLock.acquireIfFree(packFolder: repository.packFolder) else {
            return
        }
        defer { withExtendedLifetime(lock) {} }
        for orphan in packMarker.packsWithoutIndex() {
            report.problems.append(
                "\(orphan.path): a pack without its index (left by an interrupted command); "
                    + (orphan.named || orphan.age > 600
                        ? "`cards fsck --repair` removes it" : "if no git command is running, remove it"))
        }
    }

    /// `.keep` files a killed write of ours left on its pack (`PackKeep.isAbandoned`: they name a dead
    /// `cards` process of this machine): they would keep the pack from ever being repacked by git.
    /// The user's own `.keep` files, and git's, are never touched.
    private func checkAbandonedKeeps(_ report: inout CheckReport, repair: Bool) {
        for path in PackKeep.abandoned(in: repository.packFolder) {
            if repair, unlink(path) == 0 {
                report.repaired.append("removed \(path), left on a pack by an interrupted write")
            } else {
                report.problems.append(
                    "\(path): left on a pack by an interrupted write (it keeps git from ever repacking that pack); "
                        + "`cards fsck --repair` removes it")
            }
        }
    }

    /// Temp files of an object or pack write that was killed (`Repository.objectTemporaryPrefixes`):
    /// garbage that nothing refers to. One a live process still has open is a write in progress, never
    /// touched.
    private func checkObjectTempFiles(_ report: inout CheckReport, repair: Bool) {
        let candidates = repository.objectWriteTemporaries()
        for path in candidates where LockFiles.openers(of: path).isEmpty {
            if repair, unlink(path) == 0 {
                report.repaired.append("removed the temp file \(path)")
            } else {
                report.problems.append(
                    "\(path): a temp file left by an interrupted object write; `cards fsck --repair` removes it")
            }
        }
    }

    /// Reads every commit, and every tree and blob each one changed, so each object is hash-checked once.
    private func checkObjects(from head: ObjectID, _ report: inout CheckReport) throws {
        var seen: Set<ObjectID> = []
        var problems: [String] = []
        try repository.walkHistory(from: head) { commit in
            let parentTree = try commit.parents.first.map { try repository.commit($0).tree }
            let changes = try TreeDiff.changes(in: repository, from: parentTree, to: commit.tree, verified: true)
            for change in changes {
                guard let entry = change.new, entry.kind == .blob, seen.insert(entry.id).inserted else { continue }
                do {
                    // A blob too big to read (a huge file a merge left out of main, kept in the other side's
                    // history) is checked to be there, not hashed.
                    if try repository.objectSize(entry.id) > Deck.maximumIncomingFileSize { continue }
                    _ = try repository.readBlob(entry.id, limit: Deck.maximumIncomingFileSize)
                } catch {
                    problems.append("\(change.path) in commit \(commit.id.short): \(error)")
                }
            }
            return true
        }
        report.problems += problems
    }

    /// Whether the index can be read (after the repair, if asked). `interrupted`: the paths an
    /// interrupted write of ours was bringing along (its pending flag), behind whatever their entries;
    /// nil when there is no flag. Its phases are `IndexCheck`'s.
    @discardableResult
    func checkIndex(
        tree: ObjectID, _ report: inout CheckReport, repair: Bool, interrupted: [String]? = nil,
        bases: WorkingTreeBases? = nil
    ) throws(StoreError) -> Bool {
        var check = IndexCheck(deck: self, main: tree, repair: repair, interrupted: interrupted, bases: bases)
        guard let (index, indexTree) = check.open() else { return try check.remake(&report) }
        guard indexTree != tree else { return true }
        let (behind, staged) = try check.sortDifferences(indexTree)
        guard !behind.isEmpty else { return true }
        guard repair, let workingDirectory else {
            check.reportBehind(behind, &report)
            return true
        }
        let (current, heldOut) = try check.bringWorkingTreeAlong(behind, in: workingDirectory, &report)
        try check.rewriteIndex(index, current: current, heldOut: heldOut, staged: staged)
        check.finish(staged: staged, heldOut: heldOut, &report)
        return true
    }

    /// Splits the paths where the index differs from main into those it is behind on and those staged
    /// by hand. Behind: a path an interrupted write named (its flag); while the index is still the very
    /// file the last write left (its recorded checksum), the paths main changed since that write's
    /// commit; every entry when the index is exactly a parent's and no record says otherwise (which
    /// `status` and `commit` refuse over); with a flag, an entry as a parent of main has it. Without
    /// a flag such an entry is `stale`: behind if its file is main's already, else the user's. Anything
    /// else was staged by hand (`git add`, `git rm --cached`) and is kept.
    func indexBehind(
        _ differences: [PathChange], index indexTree: ObjectID, main: ObjectID, interrupted: [String]?,
        bases: WorkingTreeBases? = nil
    ) throws(StoreError) -> (behind: [PathChange], stale: [PathChange], staged: [PathChange]) {
        var behindPaths = Set(interrupted ?? [])
        var parentTrees: [ObjectID] = []
        if let head = try headCommit() {
            let parents = try withStoreError("reading \(head.short)") { () throws(GitError) in
                try repository.commit(head).parents
            }
            for parent in parents {
                let tree = try withStoreError("reading \(parent.short)") { () throws(GitError) in
                    try repository.commit(parent).tree
                }
                if tree == indexTree && (!hasIndexRecord || interrupted != nil) { return (differences, [], []) }
                parentTrees.append(tree)
            }
        }
        if let recorded = indexRecordedCommit(), isIndexAsRecorded {
            let since = try withStoreError("reading \(recorded.short)") { () throws(GitError) in
                try repository.commit(recorded).tree
            }
            let changed = try withStoreError("comparing \(recorded.short) with main") { () throws(GitError) in
                try TreeDiff.changes(in: repository, from: since, to: main)
            }
            behindPaths.formUnion(changed.map(\.path))
        }
        var behind: [PathChange] = []
        var stale: [PathChange] = []
        var staged: [PathChange] = []
        for change in differences {
            if behindPaths.contains(change.path) {
                behind.append(change)
                continue
            }
            // As a base of the working tree had it, and main changed it since: behind, whatever file the
            // index is (a `git status` rewrites it); the file then decides whether it is brought along.
            var asBase = false
            for base in bases?.bases ?? [] where !asBase && base.commit != bases?.head {
                let entry = try withStoreError("reading \(change.path)") { () throws(GitError) in
                    try repository.treeEntry(in: base.tree, path: change.path)
                }
                asBase = entry?.id == change.old?.id && entry?.kind == change.old?.kind && entry?.id != change.new?.id
            }
            if asBase {
                behind.append(change)
                continue
            }
            var asParent = false
            for tree in parentTrees where !asParent {
                let entry = try withStoreError("reading \(change.path)") { () throws(GitError) in
                    try repository.treeEntry(in: tree, path: change.path)
                }
                asParent = entry?.id == change.old?.id && entry?.kind == change.old?.kind
            }
            // With a flag, as a parent had it is behind; without, the file decides (`checkIndex`).
            if asParent && interrupted != nil {
                behind.append(change)
            } else if asParent {
                stale.append(change)
            } else {
                staged.append(change)
            }
        }
        return (behind, stale, staged)
    }
}
