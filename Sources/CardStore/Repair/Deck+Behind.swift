import CardModel
import GitCore
import Glibc
import SystemCalls

/// The commits of `main`'s history the working tree may last have been brought to (its bases), by
/// which a file that differs from `main` is told behind from edited by hand.
///
/// `main` can move on without the working tree: `git update-ref`, `git fetch` then `git reset --soft`,
/// a write of ours killed between moving `main` and bringing the files along. Then the files are as an
/// older commit had them, and taking them for hand edits would commit them: every card `main` gained
/// since would be deleted, every card it changed since taken back. Whether the index file is the one
/// the last write of ours left says nothing here (a `git status` rewrites it), so the bases are told by
/// what they hold: the commit the last write of ours left the index following (its record), and the
/// commit whose tree is the index's own (which a stat refresh does not change).
struct WorkingTreeBases {
    /// Each candidate base: a commit of `main`'s history (`main` itself included) and its root tree.
    var bases: [(commit: ObjectID, tree: ObjectID)]
    /// `main`'s commit.
    var head: ObjectID

    /// Whether some base is older than `main`: only then can anything be behind.
    var canBeBehind: Bool { bases.contains { $0.commit != head } }
}

/// How a file that differs from `main` came to differ.
enum WorkingTreeVerdict: Equatable {
    /// As the base (the commit named) or an older commit had it, and `main` changed it since: the
    /// working tree is behind `main` there, nothing was edited.
    case behind(ObjectID)
    /// Behind by one base, edited by another: a repair brings it forward (its content is in a commit,
    /// so nothing is lost), a commit refuses to take it for an edit.
    case unsure
    /// Edited by hand: `main` did not change the path since the working tree was brought to it, or the
    /// file holds what no commit of its history holds.
    case edited
}

extension Deck {
    /// How many commits of `main`'s history are searched for the one whose tree is the index's.
    static let baseSearchDepth = 1_000

    /// With no record and no commit whose tree is the index's (changes staged by hand): how many of the
    /// newest commits are weighed for the one nearest the index, its likeliest base.
    static let nearestBaseDepth = 32

    /// How many commits of `main`'s history are searched for an older version of a file.
    static let pathHistoryDepth = 2_000

    /// For the flag of a write about to bring the working tree and index along (`markPending`): the
    /// commit they may be behind back to on the paths it does not touch, or nil when they follow main.
    /// The index untouched since the last write of ours (its checksum as recorded) keeps that write's
    /// answer at no cost; else it is told again (`workingTreeBases`: the index read whole, once per git
    /// command that rewrote it). The oldest candidate: a base too old only makes more files behind.
    func baseBeforeWrite() -> ObjectID? {
        guard let head = try? headCommit() else { return nil }
        if let record = indexRecord(), indexChecksum() == record.checksum,
            record.commit == head || (try? repository.isDescendant(head, of: record.commit)) == true
        {
            let base = record.base ?? record.commit
            return base == head ? nil : base
        }
        guard let bases = try? workingTreeBases(head: head, indexTree: indexTreeOnDisk()) else { return nil }
        let older = bases.bases.map(\.commit).filter { $0 != head }
        return older.first { candidate in
            older.allSatisfy { $0 == candidate || (try? repository.isDescendant($0, of: candidate)) == true }
        } ?? older.first
    }

    /// The index's tree as the file on disk holds it (the repository's index object is as it was first
    /// read); nil when it cannot be read.
    func indexTreeOnDisk() -> ObjectID? {
        do throws(GitError) {
            let index = try repository.index()
            try index.reload(force: true)
            return try index.writeTree()
        } catch {
            return nil
        }
    }

    /// The commits the working tree may have been brought to last (see `WorkingTreeBases`): the commit
    /// the last write of ours recorded (when `main` is it or descends from it), and the commit of
    /// `main`'s history whose tree is the index's `indexTree`. When that commit is older than the
    /// recorded one the index was taken back by hand (`git checkout <commit> -- <file>`, `git rm`): the
    /// record alone counts. With neither, the commit nearest the index is the guess; ties go to the
    /// older one, which can only make more files behind (brought forward, never deleted).
    func workingTreeBases(head: ObjectID, indexTree: ObjectID?) throws(StoreError) -> WorkingTreeBases {
        // main moved back past what the last write of ours brought the working tree to (`git reset
        // --soft`): the working tree is ahead of main, its differences the user's staged state; none behind.
        if let record = indexRecord(), (try? repository.isDescendant(record.base ?? record.commit, of: head)) == true {
            let tree = try withStoreError("reading \(head.short)") { () throws(GitError) in try repository.commit(head).tree }
            return WorkingTreeBases(bases: [(head, tree)], head: head)
        }
        let recorded = recordedWorkingBase()
        var exact: (commit: ObjectID, tree: ObjectID)?
        var nearby: [(commit: ObjectID, tree: ObjectID)] = []
        if let indexTree {
            var seen = 0
            do {
                try repository.walkHistory(from: head) { commit in
                    seen += 1
                    if commit.tree == indexTree {
                        exact = (commit.id, commit.tree)
                        return false
                    }
                    if seen <= Deck.nearestBaseDepth { nearby.append((commit.id, commit.tree)) }
                    return seen < Deck.baseSearchDepth
                }
            } catch {
                throw Deck.historyError(error)
            }
        }
        // main made from this very index by `git commit` (its reflog says so): the index follows it, and
        // the files that differ are the user's, as git takes them. (The index made main's by `git reset`
        // after main moved, with the files left older, is not this: then both bases count.)
        if let exact, exact.commit == head, exact.commit != recorded,
            (try? repository.reflogTargets(branch, where: { $0.hasPrefix("commit") }))??.contains(head) == true
        {
            return WorkingTreeBases(bases: [exact], head: head)
        }
        var bases: [(commit: ObjectID, tree: ObjectID)] = []
        if let recorded {
            let tree = try withStoreError("reading \(recorded.short)") { () throws(GitError) in
                try repository.commit(recorded).tree
            }
            bases.append((recorded, tree))
        }
        if let exact, exact.commit != recorded {
            let older = try recorded.map { (recorded) throws(StoreError) in
                try withStoreError("comparing \(recorded.short) with \(exact.commit.short)") { () throws(GitError) in
                    try repository.isDescendant(recorded, of: exact.commit)
                }
            }
            if older != true { bases.append(exact) }
        }
        if bases.isEmpty, let indexTree, !nearby.isEmpty {
            var best: (base: (commit: ObjectID, tree: ObjectID), distance: Int)?
            for candidate in nearby {
                let distance = try withStoreError("comparing the index with \(candidate.commit.short)") {
                    () throws(GitError) in
                    try TreeDiff.changes(in: repository, from: candidate.tree, to: indexTree).count
                }
                if distance <= best?.distance ?? Int.max { best = (candidate, distance) }
            }
            if let best { bases.append(best.base) }
        }
        return WorkingTreeBases(bases: bases, head: head)
    }

    /// Whether the file `path`, holding the blob `working` (nil: missing), where `main` holds `main`
    /// (nil: none), is behind `main` or edited by hand, judged against each base: behind when `main`
    /// changed the path since that base and the file is as the base has it, or holds a version of the
    /// path an older commit had. Never behind for a file whose content is in no commit.
    func verdict(
        path: String, working: ObjectID?, main: ObjectID?, bases: WorkingTreeBases
    ) throws(StoreError) -> WorkingTreeVerdict {
        var behindAt: ObjectID?
        var edited = false
        var inHistory: Bool?
        for base in bases.bases {
            let entry = try withStoreError("reading \(path) in \(base.commit.short)") { () throws(GitError) in
                try repository.treeEntry(in: base.tree, path: path)
            }
            let version = entry.map(\.id)
            // Not changed by main since the working tree was brought to it: whatever the file holds is
            // the user's (a card taken back with `git checkout <commit> -- <file>` included).
            if version == main {
                edited = true
                continue
            }
            if version == working {
                behindAt = behindAt ?? base.commit
                continue
            }
            if let working, inHistory == nil { inHistory = try isInHistory(path, blob: working, from: bases.head) }
            if inHistory == true { behindAt = behindAt ?? base.commit } else { edited = true }
        }
        guard let behindAt else { return .edited }
        return edited ? .unsure : .behind(behindAt)
    }

    /// Whether some commit of `main`'s history (its newest `pathHistoryDepth`) has `blob` at `path`. A
    /// blob the object database lacks is in no commit: answered without reading the history.
    func isInHistory(_ path: String, blob: ObjectID, from head: ObjectID) throws(StoreError) -> Bool {
        guard repository.hasObject(blob) else { return false }
        var found = false
        var seen = 0
        do {
            try repository.walkHistory(from: head) { commit in
                seen += 1
                found = try repository.treeEntry(in: commit.tree, path: path)?.id == blob
                return !found && seen < Deck.pathHistoryDepth
            }
        } catch {
            throw Deck.historyError(error)
        }
        return found
    }

    /// The files among `edits` that are behind `main` rather than edited (or cannot be told), each
    /// with its verdict. Reads no history when no edit can be behind: a file whose content no object
    /// has (the common hand edit) is edited.
    func behindMain(_ edits: [HandEdit], main: DeckSnapshot, bases known: WorkingTreeBases? = nil) throws(StoreError)
        -> [(edit: HandEdit, verdict: WorkingTreeVerdict)]
    {
        guard let head = main.commit, let workingDirectory else { return [] }
        var candidates: [(edit: HandEdit, working: ObjectID?)] = []
        for edit in edits where edit.change != .reformatted {
            let working: ObjectID?
            if edit.change == .deleted {
                working = nil
            } else {
                working = workingBlobID(
                    (try? workingFile(edit.path)) ?? "\(workingDirectory)/\(edit.path)", path: edit.path)
                guard let working, repository.hasObject(working) else { continue }
            }
            candidates.append((edit, working))
        }
        guard !candidates.isEmpty else { return [] }
        let bases: WorkingTreeBases
        if let known { bases = known } else { bases = try workingTreeBases(head: head, indexTree: indexTreeOnDisk()) }
        guard bases.canBeBehind else { return [] }
        var behind: [(edit: HandEdit, verdict: WorkingTreeVerdict)] = []
        for candidate in candidates {
            let verdict = try verdict(
                path: candidate.edit.path, working: candidate.working, main: try main.blobID(at: candidate.edit.path),
                bases: bases)
            // A new file as a base had it (main deleted the card since) is behind only for certain: taken for
            // an edit, it would bring a card back, never delete one; and a file kept out of a `git commit`
            // made by hand (`git rm --cached`) is one too.
            if verdict == .edited || (candidate.edit.change == .new && verdict == .unsure) { continue }
            behind.append((candidate.edit, verdict))
        }
        return behind
    }

    /// Refuses to take for hand edits files that are behind `main` (see `behindMain`): committing them
    /// would delete or take back what `main` gained since the working tree was brought along. For
    /// `status`, `commit` and the commit a sync starts with, so a sync stops before anything is sent.
    func refuseBehind(_ edits: [HandEdit], main: DeckSnapshot) throws(StoreError) {
        let behind = try behindMain(edits, main: main)
        guard !behind.isEmpty else { return }
        let shown = behind.prefix(10).map { "\n  \($0.edit.path)" }.joined()
        let more = behind.count > 10 ? "\n  … and \(behind.count - 10) more" : ""
        throw StoreError(
            .uncommittedChanges,
            "the working tree is behind main on \(behind.count) file\(behind.count == 1 ? "" : "s"), "
                + "not edited by hand (main moved without them: a git command such as `git update-ref`, or a "
                + "`cards` command that was interrupted), so committing them would delete or take back what main "
                + "has:\(shown)\(more)\n`cards fsck --repair` finishes that, bringing them up to date and keeping "
                + "hand edits; then try again (card files removed with `git rm` are deleted with `cards delete` "
                + "instead)")
    }

    /// `fsck`'s pass over the files that differ from `main` after the index check: those behind `main`
    /// are brought up to date (`repair`) or reported; the rest, hand edits, are returned.
    func bringForward(
        _ edits: [HandEdit], main: DeckSnapshot, bases: WorkingTreeBases, _ report: inout CheckReport, repair: Bool
    ) throws(StoreError) -> [HandEdit] {
        let behind = try behindMain(edits, main: main, bases: bases)
        guard !behind.isEmpty, let tree = main.tree else { return edits }
        let paths = Set(behind.map(\.edit.path))
        for (edit, verdict) in behind {
            let why: String
            if case .behind(let base) = verdict {
                why = "the working tree had it as \(base.short) did; main changed it since"
            } else {
                why = "as an older commit had it, so not a hand edit"
            }
            if repair {
                // The index check may have kept it for an edit against the index's entry: it is not one.
                report.repaired.removeAll { $0 == "kept the hand edit in \(edit.path)" }
                report.repaired.append("brought \(edit.path) up to date with main (behind it, not edited: \(why))")
            } else if !report.problems.contains(where: { $0.hasPrefix("\(edit.path): the index and working tree") }) {
                report.problems.append(
                    "\(edit.path): the working tree is behind main here (\(why)); `cards fsck --repair` "
                        + "brings it up to date")
            }
        }
        if repair { try updateWorkingTree(behind.map(\.edit.path), snapshotTree: tree) }
        return edits.filter { !paths.contains($0.path) }
    }
}

extension Deck {
    /// Whether the index is split (`git update-index --split-index`: most entries in a shared file
    /// `sharedindex.<sha1>`, named by a mandatory `link` extension), which libgit2 1.5.1 cannot read or
    /// write. A listing of the git folder when it is not: only then is the index's extensions read.
    var isSplitIndex: Bool {
        guard !isBare, FileSystem.list(gitDirectory).contains(where: { $0.hasPrefix("sharedindex.") }) else {
            return false
        }
        return IndexSkipWorktree.isSplitIndex(at: "\(gitDirectory)/index")
    }

    /// The command that turns a split index back into a plain one.
    static let unsplitCommand = "git update-index --no-split-index"

    /// Refuses a write up front when the index is split: the working tree and index could not follow it,
    /// and the write would stop half done.
    func checkIndexNotSplit() throws(StoreError) {
        guard isSplitIndex else { return }
        throw StoreError(
            .io,
            "\(gitDirectory)/index is a split index (`git update-index --split-index`), which cards cannot "
                + "read; nothing was changed: `cards fsck --repair` (or `\(Deck.unsplitCommand)`) makes it a plain "
                + "index again, then try again")
    }

    /// Turns a split index into a plain one for `fsck --repair`: its shared index (a plain index of the
    /// same entries as they were when it was split, or last shared) becomes the index, under git's index
    /// lock. The entries changed since live in the split file only and are lost, which loses no card: the
    /// files keep their content, and the checks after this one compare them with `main` by content,
    /// bringing forward those behind it. (libgit2 cannot merge the split file in; `git update-index
    /// --no-split-index` keeps those entries too, and is what the message says when this cannot be done.)
    func unsplitIndex(_ report: inout CheckReport) throws(StoreError) {
        guard isSplitIndex else { return }
        let indexPath = "\(gitDirectory)/index"
        // The newest shared index that reads as a plain one.
        let shared = FileSystem.list(gitDirectory).filter { $0.hasPrefix("sharedindex.") }.map {
            "\(gitDirectory)/\($0)"
        }
        .filter { path in (try? Index.open(path: path)) != nil }
        .max { (LockFiles.modificationTime($0) ?? 0) < (LockFiles.modificationTime($1) ?? 0) }
        guard let shared, let bytes = try? FileSystem.read(shared, limit: 1 << 31) else {
            report.problems.append(
                "\(indexPath): a split index whose shared index cannot be read; run `\(Deck.unsplitCommand)`, then "
                    + "`cards fsck --repair` again")
            return
        }
        let lock: IndexLock
        do {
            lock = try IndexLock(indexPath: indexPath)
        } catch {
            throw StoreError(.locked, "\(error.message); nothing was changed: try again once it has finished")
        }
        defer { lock.release() }
        let side = IndexLock.newIndexPath(for: indexPath)
        defer { unlink(side) }
        try Deck.writeNewFile(bytes, to: side)
        guard rename(side, indexPath) == 0 else {
            throw StoreError(.io, "cannot replace \(indexPath): \(SystemError.reason(errno))")
        }
        report.repaired.append(
            "made the split index \(indexPath) a plain one again (from \(FileSystem.basename(of: shared)), as "
                + "`\(Deck.unsplitCommand)` does)")
    }
}
