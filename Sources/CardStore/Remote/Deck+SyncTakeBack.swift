import GitCore
import Glibc
import SystemCalls

/// A sync that fails leaves the deck as it was: the hand edits its first step committed (README's
/// Syncing, step 1) become uncommitted hand edits again, `main` back on its old commit, each file and
/// index entry as the step found them.
///
/// Commit first, take back on failure (rather than a commit kept unpublished until the sync is over):
/// the sync merges and pushes `main`, and local writes made during its network time go on top of the
/// commit, as for any sync; a commit held aside would have to be pushed by id, merged as a side that is
/// not `main`, and joined to those local writes after the push, a new way to fail once the remote has
/// it. Meanwhile `git status` and `cards commit` would still see the edits, and commit them twice. So
/// only a failed sync pays: `main` goes back by compare-and-swap (never over a commit made on top of
/// the hand edits' meanwhile), then the index entries and files the step changed, where they are still
/// as it left them.
extension Deck {
    /// What the first step of a sync found and did, for `takeBackHandEdits`.
    struct HandEditsBeforeSync {
        /// One file the step committed or wrote back, as it was before.
        struct File {
            /// The path in the deck.
            var path: String
            /// Its bytes; nil when there was no file (a card file deleted by hand).
            var bytes: [UInt8]?
            /// Its permission bits.
            var permissions: mode_t
            /// Its index entry; nil when the index had none (a new file).
            var entry: IndexEntry?
        }

        /// `main` before the step.
        var parent: ObjectID?
        /// The commit the step made; nil when it only wrote reformatted files back as `main` has them.
        var commit: ObjectID?
        /// How many hand edits the commit recorded.
        var count = 0
        /// Every file the step wrote or committed.
        var files: [File] = []
    }

    /// How taking the hand edits back went.
    enum HandEditsTakeBack {
        /// The deck is as before the sync.
        case done
        /// Another writer moved `main` on from the step's commit (or from `main` before it): kept.
        case mainMoved(ObjectID?)
        /// Nothing was taken back, for this reason.
        case notDone(StoreError)
        /// `main` is back, but the index or the files are not all as they were, for this reason.
        case partly(StoreError)
    }

    /// Under the deck lock, before the step writes: each of `edits`' files and index entries as they are.
    func noteHandEdits(_ edits: [HandEdit], main: DeckSnapshot) throws(StoreError) -> HandEditsBeforeSync {
        var noted = HandEditsBeforeSync(parent: main.commit)
        guard !edits.isEmpty else { return noted }
        // As on disk: the repository's index object, which the scan for hand edits has just brought up to
        // date (read again only if the file changed since: a whole read is ~40 ms at 20,000 cards).
        let index = try withStoreError("reading the index") { () throws(GitError) in
            let index = try repository.index()
            try index.reload(force: false)
            return index
        }
        for edit in edits {
            let full = try workingFile(edit.path) ?? "\(location)/\(edit.path)"
            var info = stat()
            let exists = lstat(full, &info) == 0
            let bytes = exists ? try FileSystem.read(full, limit: 1 << 26) : nil
            noted.files.append(
                HandEditsBeforeSync.File(
                    path: edit.path, bytes: bytes, permissions: exists ? info.st_mode & 0o7777 : 0o644,
                    entry: index.entry(path: edit.path)))
        }
        return noted
    }

    /// After a failed sync that made no other change: puts `main`, the index entries and the files of
    /// the hand edits back as `noted` found them. Only while `main` is still the step's commit (else
    /// `.mainMoved`, nothing touched); an entry or file changed since the step (by hand, by git) is left
    /// as it is.
    func takeBackHandEdits(_ noted: HandEditsBeforeSync) -> HandEditsTakeBack {
        guard let left = noted.commit ?? noted.parent else { return .done }
        let lock: DeckLock
        do throws(StoreError) {
            lock = try DeckLock(path: "\(gitDirectory)/cards.lock", timeout: lockTimeout)
            try checkNoUnfinishedGitOperation()
            try recoverInterruptedWrite()
            let head = try headCommit()
            guard head == left else { return .mainMoved(head) }
        } catch {
            return .notDone(error)
        }
        defer { withExtendedLifetime(lock) {} }
        let tree: ObjectID
        do throws(StoreError) {
            tree = try withStoreError("reading commit \(left.short)") { () throws(GitError) in
                try repository.commit(left).tree
            }
        } catch {
            return .notDone(error)
        }
        guard let commit = noted.commit, let parent = noted.parent else {
            // Only reformatted files were written back, as main has them: their bytes go back.
            do throws(StoreError) {
                try putBackNotedFiles(noted.files, left: tree)
            } catch {
                return .partly(error)
            }
            return .done
        }
        // As a write of ours: the flag first (a kill leaves git's index lock to the next command to clear),
        // then git's index lock, held while main moves and the entries go back (`IndexLock`).
        let indexLock: IndexLock
        do throws(StoreError) {
            let deadline = MonotonicClock.now() + lockTimeout
            try waitForIndex(deadline: deadline, expected: true)
            try markPending(noted.files.map { ($0.path, $0.entry?.id) }, handEdits: true)
            indexLock = try lockIndex(deadline: deadline, expected: true)
        } catch {
            clearPending()
            return .notDone(error)
        }
        defer { indexLock.release() }
        // The index entries first, main after, as a commit of ours does it: a kill in between leaves the
        // flag, by which the next command puts the entries back as main (still the commit) has them, as
        // for a `cards commit` stopped there; a kill after leaves them as they were, the files as committed.
        do throws(StoreError) {
            try putBackNotedEntries(noted.files, left: tree, indexLock: indexLock)
        } catch {
            clearPending()
            return .notDone(error)
        }
        Deck.pauseForTests(in: "index", gitDirectory)
        do throws(StoreError) {
            try moveMainBack(from: commit, to: parent)
        } catch {
            // main did not move: the entries go back as it has them, or the flag left has the next command do it.
            let moving = error
            do throws(StoreError) {
                try stageFromTree(noted.files.map(\.path), tree: tree, indexLock: indexLock)
            } catch {
                return .notDone(
                    StoreError(
                        moving.code,
                        "\(moving.message), and the index could not be put back as main has it (\(error.message)): "
                            + "the next `cards` command does that"))
            }
            clearPending()
            if moving.code == .git(.referenceChanged) { return .mainMoved((try? headCommit()) ?? nil) }
            return .notDone(moving)
        }
        indexLock.release()
        Deck.pauseForTests(in: "main", gitDirectory)
        do throws(StoreError) {
            try putBackNotedFiles(noted.files, left: tree)
            try finishOrderedFlush()
        } catch {
            clearPending()
            return .partly(error)
        }
        clearPending()
        return .done
    }

    /// For tests only: with `CARDS_TEST_PAUSE_IN_TAKE_BACK` set to `step`, a marker file says the take-back
    /// has reached it, and a pause of ten seconds gives a test the time to kill it there.
    private static func pauseForTests(in step: String, _ gitDirectory: String) {
        guard let value = getenv("CARDS_TEST_PAUSE_IN_TAKE_BACK"), String(cString: value) == step else { return }
        try? FileSystem.writeAtomically(
            Array("\(step)\n".utf8), to: "\(gitDirectory)/cards-test-take-back", durable: false)
        sleep(10)
    }

    /// Moves `main` from the hand edits' commit back to its parent by compare-and-swap, logged as git's
    /// `reset` logs it (not as a commit of ours: `cards undo` counts those).
    private func moveMainBack(from commit: ObjectID, to parent: ObjectID) throws(StoreError) {
        let logMessage = "reset: cards sync failed, hand edits of \(commit.short) uncommitted"
        do {
            var done = false
            if let committer = try? commitIdentity().committer {
                done = try repository.updateReferenceWrittenOut(
                    branch, to: parent, expected: commit, logMessage: logMessage, committer: committer,
                    flush: flushMode)
            }
            if !done {
                try repository.updateReference(branch, to: parent, expected: commit, logMessage: logMessage)
            }
        } catch {
            throw StoreError.git(error, while: "moving main back to \(parent.short)")
        }
    }

    /// The index entries of `files` as they were, where the index still has what the step left there
    /// (the tree `left`'s entry, or none), through a copy renamed over the index while `indexLock` is held.
    private func putBackNotedEntries(_ files: [HandEditsBeforeSync.File], left: ObjectID, indexLock: IndexLock)
        throws(StoreError)
    {
        let indexPath = "\(gitDirectory)/index"
        let side = IndexLock.newIndexPath(for: indexPath)
        unlink(side)
        try Deck.writeNewFile(try FileSystem.read(indexPath, limit: 1 << 31), to: side)
        defer { unlink(side) }
        try withStoreError("putting the index back (`cards fsck --repair` makes it again from main)") {
            () throws(GitError) in
            let index = try Index.open(path: side)
            for file in files {
                let stepped = try repository.treeEntry(in: left, path: file.path)
                guard index.entryID(path: file.path) == stepped?.id else { continue }
                if let entry = file.entry {
                    try index.stage(entry, at: file.path)
                } else {
                    try index.remove(path: file.path)
                }
            }
            try index.write()
        }
        if durable, FileSync.flush(path: side) != 0 { throw StoreError(.io, "cannot flush \(side) to disk") }
        guard rename(side, indexPath) == 0 else {
            throw StoreError(.io, "cannot replace \(indexPath): \(SystemError.reason(errno))")
        }
    }

    /// The bytes and permissions of `files` as they were, where the file is still as the step left it
    /// (as the tree `left` has it); a file deleted by hand stays deleted.
    private func putBackNotedFiles(_ files: [HandEditsBeforeSync.File], left: ObjectID) throws(StoreError) {
        for file in files {
            guard let bytes = file.bytes, let full = try workingFile(file.path) else { continue }
            let stepped = try withStoreError("reading \(file.path)") { () throws(GitError) in
                try repository.treeEntry(in: left, path: file.path)
            }
            let present = workingBlobID(full, path: file.path)
            guard let present, present == stepped?.id else { continue }
            if ObjectID.blobHash(of: bytes) != present {
                try FileSystem.writeAtomically(bytes, to: full, durable: durable)
            }
            var info = stat()
            if lstat(full, &info) == 0, info.st_mode & 0o7777 != file.permissions, chmod(full, file.permissions) != 0 {
                throw StoreError(.io, "cannot set the permissions of \(full): \(SystemError.reason(errno))")
            }
        }
    }
}
