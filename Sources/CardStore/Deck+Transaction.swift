import CardModel
import GitCore
import Glibc

/// What one deck operation changes: files to write (bytes) or remove (nil), and the commit message.
public struct DeckChange {
    /// Paths in the deck and their new content; nil removes the file.
    public var files: [(path: String, content: [UInt8]?)]
    /// The message of the commit.
    public var message: CommitMessage
    /// Whether the change's objects go into a pack of their own (every commit of this package does;
    /// false writes loose objects through libgit2, flushed together when there are many).
    public var packable = true
    /// Trees the change was planned from, kept as raw bytes (a merge's walk): the new tree is then
    /// spliced from them instead of being rebuilt through libgit2 (`Repository.splicedTree`).
    public var trees: RawTreeCache?
    /// Blob ids of files in `files`, by position there, whose content is already in the object
    /// database (a merge taking one side's version): not written again. Each must be the blob id of
    /// that file's content.
    public var storedBlobs: [Int: ObjectID] = [:]
    /// Git file modes of files in `files`, by position, that are no plain file (an executable, a symbolic
    /// link, a submodule: a merge carrying another side's entry as it came); each such entry needs its
    /// object in `storedBlobs`.
    public var modes: [Int: UInt32] = [:]
    /// Files in `files`, by position, that go into the tree and the index but not the working tree
    /// (`Deck.notCheckedOut`: a link, a submodule, a huge file); each needs its object in `storedBlobs`.
    public var outsideWorkingTree: Set<Int> = []

    /// Creates a change.
    public init(files: [(path: String, content: [UInt8]?)], message: CommitMessage) {
        self.files = files
        self.message = message
    }
}

/// A commit a deck operation made.
public struct CommitOutcome: Sendable, Hashable {
    /// The new commit on `main`.
    public var commit: ObjectID
    /// The commit before it (nil for the first).
    public var parent: ObjectID?
}

extension Deck {
    /// How often a compare-and-swap of `main` is retried when another writer moved it.
    static let publishAttempts = 20

    /// Runs one operation as one commit: takes the deck lock, builds the change from the current
    /// `main`, writes blobs, the changed subtrees and the commit, publishes it by compare-and-swap
    /// (re-reading and re-applying when another writer moved `main`), then updates the working
    /// tree and index. `recordingHandEdits` lets the change overwrite working-tree edits (it is them).
    /// Returns nil when `build` returns nil (nothing to do: no commit).
    @discardableResult
    public func commitChange(
        parents extraParents: [ObjectID] = [],
        recordingHandEdits: Bool = false,
        _ build: (DeckSnapshot) throws(StoreError) -> DeckChange?
    ) throws(StoreError) -> CommitOutcome? {
        let lock = try DeckLock(path: "\(gitDirectory)/cards.lock", timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        try checkNoUnfinishedGitOperation()
        try recoverInterruptedWrite()
        // The author is needed only once there is something to commit: a no-op needs no identity.
        var author: Signature?
        let deadline = DeckLock.now() + lockTimeout
        var attempt = 0
        while true {
            attempt += 1
            let snapshot = try snapshot()
            guard let change = try build(snapshot) else { return nil }
            let signed: Signature
            if let author { signed = author } else { signed = try signature() }
            author = signed
            if !isBare && !recordingHandEdits {
                // An entry the working tree does not hold (a link, a submodule) has no hand edits to lose.
                let checkedOut = change.files.enumerated().filter { position, _ in
                    !change.outsideWorkingTree.contains(position)
                }
                try checkNoHandEdits(
                    checkedOut.map { _, file in (file.path, { file.content.map(ObjectID.blobHash(of:)) }) },
                    snapshot: snapshot)
            }
            try checkSpace(forFileSizes: change.files.map { $0.content?.count })
            // The new objects go into one pack (flushed before it is named). Without a pack, many loose
            // objects are written without an fsync each and flushed together before publishing; a few
            // are fsynced by libgit2 in every mode: it renames each object into place itself, so an
            // object written out only after that rename could survive a crash empty under its final
            // name, and libgit2 would then take it as stored and never write it again.
            let packer = try packWriter(for: change)
            let objectsFlush = ObjectsFlush(durable: durable, files: packer == nil ? change.files.count : 0)
            defer { objectsFlush.restore() }
            var updates: [TreeUpdate] = []
            for (position, file) in change.files.enumerated() {
                if let content = file.content {
                    let blob = try withStoreError("writing \(file.path)") { () throws(GitError) in
                        if let stored = change.storedBlobs[position] { return stored }
                        if let packer { return try packer.writeBlob(content) }
                        return try repository.writeBlob(content)
                    }
                    updates.append(
                        TreeUpdate(path: file.path, blob: blob, mode: change.modes[position] ?? TreeUpdate.fileMode))
                } else {
                    updates.append(TreeUpdate(path: file.path, blob: nil))
                }
            }
            // Into a pack, every new tree and the commit go straight to the writer's memory: written
            // through libgit2's object database, each would first be looked for in every pack on disk.
            let tree = try withStoreError("building the new tree") { () throws(GitError) in
                if let packer {
                    return try repository.splicedTree(
                        base: snapshot.tree, updates: updates, cache: change.trees ?? snapshot.trees, writer: packer)
                }
                return try repository.updatedTree(base: snapshot.tree, updates: updates)
            }
            let parents = (snapshot.commit.map { [$0] } ?? []) + extraParents
            var message = change.message
            if let device = deviceID() { message.trailers.append((Deck.deviceTrailer, device)) }
            let commit = try withStoreError("writing the commit") { () throws(GitError) in
                guard let packer else {
                    return try repository.createCommit(
                        tree: tree, parents: parents, message: message.text, author: signed, committer: signed)
                }
                return try packer.writeCommit(
                    Repository.commitBytes(
                        tree: tree, parents: parents, message: message.text, author: signed, committer: signed))
            }
            if let packer {
                try withStoreError("writing the pack") { () throws(GitError) in
                    try packer.finish(commit: commit, durable: durable)
                }
            }
            try objectsFlush.flush(gitDirectory)
            objectsFlush.restore()
            // The working tree and index are brought along first and main moved after, all under git's
            // index lock (`IndexLock`): a `git commit` run meanwhile can never commit an index without this
            // change on top of it. Wait out git's index lock first.
            if !isBare { try waitForIndex(deadline: deadline, expected: snapshot.commit != nil) }
            let paths = change.files.map(\.path)
            try markPending(
                zip(change.files, updates).map { file, update in (file.path, update.blob) },
                handEdits: recordingHandEdits)
            let indexLock = isBare ? nil : try lockIndex(deadline: deadline, expected: snapshot.commit != nil)
            // Given up on every way out of this attempt; a retry takes it again.
            defer { indexLock?.release() }
            if !isBare {
                do {
                    try updateWorkingTree(
                        change.files, updates: updates, tree: tree, flush: flushMode, indexLock: indexLock,
                        outside: change.outsideWorkingTree)
                } catch {
                    throw putBack(
                        paths, to: snapshot.tree, indexLock: indexLock, handEdits: recordingHandEdits, after: error)
                }
            }
            do {
                let message = Deck.ownCommitLogPrefix + change.message.subject
                // `.ordered`: the ref and reflog written out, made durable by the last fsync (see `FileSync`);
                // `.strict`: each fsynced, without libgit2's fsync of folders a reflog append leaves alone.
                var done = false
                if flushMode != .none {
                    done = try repository.updateReferenceWrittenOut(
                        branch, to: commit, expected: snapshot.commit, logMessage: message, committer: signed,
                        flushEach: flushMode == .strict)
                }
                if !done {
                    try repository.updateReference(
                        branch, to: commit, expected: snapshot.commit, logMessage: message)
                }
            } catch {
                // main did not move: the working tree and index go back to it before anything else.
                let why = StoreError.git(error, while: "publishing the commit on main")
                if !isBare {
                    if let failure = putBack(
                        paths, to: snapshot.tree, indexLock: indexLock, handEdits: recordingHandEdits)
                    {
                        throw Deck.notPutBack(why, because: failure)
                    }
                    // Put back as it was: a retry that then finds nothing to do leaves no flag behind.
                    clearPending()
                }
                if error.code == .referenceChanged && attempt < Deck.publishAttempts {
                    // Another writer (git itself, or a deck without our lock) moved main: re-read and re-apply.
                    usleep(UInt32(1_000 * attempt))
                    continue
                }
                if error.code == .locked && DeckLock.now() < deadline {
                    // A git command holds main.lock, or a killed writer of ours left it (removed when proved stale).
                    if !clearStaleGitLock("refs/heads/main.lock") { usleep(UInt32(min(1_000 * attempt, 50_000))) }
                    continue
                }
                clearPending()
                if error.code == .locked { throw gitLockError("refs/heads/main.lock") }
                throw StoreError(why.code, "\(why.message); nothing was changed: try again")
            }
            // The index this commit left, recorded while nobody else can have changed it.
            if !isBare { recordIndexFollows(commit) }
            indexLock?.release()
            // main was renamed last: its flush makes everything before it durable (`.ordered`).
            try finishOrderedFlush()
            clearPending()
            consolidatePacks()
            // A merge's few hundred folders and the packs' mappings: freed off the caller's time (~1 ms).
            (change.trees ?? snapshot.trees).emptyInBackground()
            return CommitOutcome(commit: commit, parent: snapshot.commit)
        }
    }

    /// This deck's own id (`cards.device` in its git config), made on its first commit: the `Device`
    /// trailer of every commit made here, by which `undo` tells them from commits pushed, fetched or
    /// cloned into it where there is no reflog (a bare repository keeps none). Nil when the config
    /// cannot be written.
    func deviceID() -> String? {
        if let knownDeviceID { return knownDeviceID }
        if let known = Deck.configuredDeviceID(of: repository) {
            knownDeviceID = known
        } else {
            let made = CardID.random()
            if (try? repository.setConfig(Deck.deviceSetting, made)) != nil { knownDeviceID = made }
        }
        return knownDeviceID
    }

    /// The id in the repository's own config (a user's or system-wide one would be every deck's), when
    /// it is one.
    static func configuredDeviceID(of repository: Repository) -> String? {
        guard let value = (try? repository.localConfigString(Deck.deviceSetting)) ?? nil, CardID.isValid(value)
        else { return nil }
        return value
    }

    /// Refuses to write while git has an operation of its own unfinished in the working tree (a
    /// `git pull` whose merge stopped on conflicts, say): a commit of ours would take the half-merged
    /// files and index for hand edits, and git's own commit would then be made on top of it.
    func checkNoUnfinishedGitOperation() throws(StoreError) {
        if let problem = unfinishedGitOperation() {
            throw StoreError(.uncommittedChanges, "\(problem), then try again")
        }
    }

    /// The git operation unfinished in the working tree and what to do about it (without the closing
    /// "then …"), or nil: for the refusal of a write and for `cards fsck`.
    func unfinishedGitOperation() -> String? {
        if !isBare, let operation = repository.unfinishedOperation {
            return "a git \(operation.name) is unfinished in \(location); finish it (\(operation.finish)) or abandon "
                + "it (\(operation.abort))"
        }
        return otherCheckout()
    }

    /// What is checked out instead of main, said with what to do, or nil when main is, here only: cards
    /// reads and writes main, so a working tree on another branch would show main's changes as hand
    /// edits there, and another working tree on main (a linked worktree of this deck, bare or not)
    /// would take the new cards written here for cards deleted by hand.
    func otherCheckout() -> String? {
        let other = repository.otherWorktrees(checkingOut: branch).first
        let head = isBare ? branch : repository.headReferenceName()
        if head == branch {
            guard let other else { return nil }
            let runThere = isBare ? "run cards there (`cards --deck \(other.folder) …`), or " : ""
            let remove = other.linked ? " or remove it (`git worktree remove \(other.folder)`)" : ""
            return "\(branchName) is\(isBare ? "" : " also") checked out in the worktree at \(other.folder); cards writes \(branchName) "
                + "from one working tree only: \(runThere)detach that one (`git -C \(other.folder) switch --detach`)\(remove)"
        }
        // HEAD that cannot be read for want of a file descriptor is not detached.
        if head == nil, let limit = StoreError.openFileLimitReached() { return "cannot read HEAD" + limit }
        let checkedOut = head.map { "branch \($0.dropFirst("refs/heads/".count)) is checked out" } ?? "HEAD is detached"
        let problem = "\(checkedOut) in \(location), but cards works on \(branchName)"
        // git will not check out a branch twice: then the deck is the worktree that has it.
        if let other {
            return "\(problem), which is checked out in the worktree at \(other.folder); run cards there "
                + "(`cards --deck \(other.folder) …`)"
        }
        return "\(problem); switch back with `git switch \(branchName)` (or `git checkout \(branchName)`)"
    }

    /// Combines small packs once there are many (see `PackConsolidation`). The commit is already made
    /// and every object stays readable whatever happens here, so a failure (a full disk) is left for
    /// the next commit to retry rather than reported as the command's.
    func consolidatePacks() {
        _ = try? PackConsolidation.consolidate(repository)
    }

    /// Refuses to overwrite a card file whose working-tree content differs from `main`: that is a
    /// hand edit that `cards commit` should record first.
    func checkNoHandEdits(
        _ files: [(path: String, incoming: () -> ObjectID?)], snapshot: DeckSnapshot
    ) throws(StoreError) {
        for file in files {
            guard let fullPath = try workingFile(file.path) else { continue }
            let committed = try snapshot.blobID(at: file.path)
            if committed == nil && !FileSystem.exists(fullPath) { continue }
            let present: ObjectID?
            var bytes: [UInt8]?
            if FileSystem.exists(fullPath) {
                bytes = try? FileSystem.read(fullPath, limit: 1 << 26)
                guard let bytes else {
                    throw StoreError(
                        .uncommittedChanges,
                        "\(file.path) in the working tree is not a readable file; remove it or run `cards status`")
                }
                present = ObjectID.blobHash(of: bytes)
            } else {
                present = nil
            }
            if present == committed { continue }
            // The file already holds what is about to land there (a retried command): fine. Hashed only
            // here, off the common path.
            if present == file.incoming() { continue }
            // `cards commit` refuses a file that is not a valid card: then the way to keep the edit is to fix it.
            var keep = "run `cards commit` to keep them"
            // `cards commit` commits card files only: a file that is no card is git's to commit.
            if CardID.id(fromPath: file.path) == nil {
                let quoted = ShellWord.quoted(file.path)
                keep = "it is no card file, so commit it with git (`git add \(quoted) && git commit -m 'Edit \(file.path)'`)"
            }
            if let bytes, let id = CardID.id(fromPath: file.path),
                case .invalid(let reason) = Deck.version(bytes, id: id)
            {
                keep = "the file is not a valid card (\(reason)): fix it and `cards commit` to keep them"
            }
            throw StoreError(
                .uncommittedChanges,
                "\(file.path) has hand edits that are not committed; \(keep) "
                    + "(or `git checkout -- \(file.path)` to drop them), then try again")
        }
    }

    /// Puts the working tree and index back as `tree` (main, which did not move) has `paths`, after a
    /// change was written to them ahead of a publish that failed. Nil when done (the caller then clears
    /// the pending flag); else why not, and the flag stays for the next command (or `cards fsck
    /// --repair`) to finish. `handEdits`: the files are the user's, being committed (`cards commit`):
    /// only their index entries go back; the files are never touched.
    func putBack(_ paths: [String], to tree: ObjectID?, indexLock: IndexLock?, handEdits: Bool = false) -> StoreError? {
        guard !isBare else { return nil }
        do throws(StoreError) {
            if handEdits {
                var base = tree
                if base == nil {
                    base = try withStoreError("writing the empty tree") { () throws(GitError) in try repository.emptyTree() }
                }
                if let base { try stageFromTree(paths, tree: base, indexLock: indexLock) }
            } else if let tree {
                try updateWorkingTree(paths, snapshotTree: tree, indexLock: indexLock, skippingUnchanged: true)
            } else {
                for path in paths where Deck.isSafeWorkingPath(path) {
                    try FileSystem.remove(try workingFile(path) ?? "\(location)/\(path)")
                }
                let empty = try withStoreError("writing the empty tree") { () throws(GitError) in try repository.emptyTree() }
                try updateIndexEntries(paths.map { ($0, nil) }, tree: empty, indexLock: indexLock)
            }
            return nil
        } catch {
            return error
        }
    }

    /// The error for a change that could not be written to the working tree and index (or published),
    /// after putting them back: nothing was changed, or what the next command does about it.
    func putBack(
        _ paths: [String], to tree: ObjectID?, indexLock: IndexLock?, handEdits: Bool = false, after error: StoreError
    ) -> StoreError {
        if let failure = putBack(paths, to: tree, indexLock: indexLock, handEdits: handEdits) {
            return Deck.notPutBack(error, because: failure)
        }
        clearPending()
        if error.message.contains("nothing was changed") { return error }
        return StoreError(error.code, "\(error.message); nothing was changed")
    }

    /// `error`, told with why the working tree could not be put back after it (`failure`) and what
    /// finishes the job: nothing was committed, and the pending flag left behind brings the files back.
    static func notPutBack(_ error: StoreError, because failure: StoreError) -> StoreError {
        StoreError(
            error.code,
            "\(error.message); nothing was committed, but the working tree could not be put back as it was "
                + "(\(failure.message)): the next `cards` command does that (or `cards fsck --repair`)")
    }

    /// Brings the working tree and index in line with `tree` for the given paths only. `indexLock`:
    /// git's index lock as the caller holds it (and keeps holding). `skippingUnchanged`: a file already
    /// as `tree` has it is not written again (putting back).
    func updateWorkingTree(
        _ paths: [String], snapshotTree tree: ObjectID, indexLock: IndexLock? = nil, skippingUnchanged: Bool = false
    ) throws(StoreError) {
        guard let workingDirectory else { return }
        var entries: [(path: String, blob: ObjectID?)] = []
        for path in paths {
            let full = try workingFile(path) ?? "\(workingDirectory)/\(path)"
            let entry = try withStoreError("reading \(path)") { () throws(GitError) in
                try repository.treeEntry(in: tree, path: path)
            }
            // Putting back: a file a failed write never reached (a read-only one, say) is left alone.
            let present =
                skippingUnchanged ? Deck.workingBlobID(full) : nil
            if let entry, notCheckedOut(entry) == nil {
                if !skippingUnchanged || present != entry.id {
                    let bytes = try withStoreError("reading \(path)") { () throws(GitError) in try repository.readBlob(entry.id) }
                    try FileSystem.writeAtomically(bytes, to: full, durable: durable)
                }
                try Deck.setExecutable(full, entry.mode)
                entries.append((path, entry.id))
            } else if let entry {
                // A link, a submodule, a huge file: in the index, not checked out (`notCheckedOut`); the
                // working tree keeps what it has there.
                entries.append((path, entry.id))
            } else {
                if !skippingUnchanged || present != nil { try FileSystem.remove(full) }
                entries.append((path, nil))
            }
        }
        try updateIndexEntries(entries, tree: tree, indexLock: indexLock)
    }

    /// Updates the index entries of `paths` to match the working tree (which matches `tree`), retrying
    /// while another git process holds `index.lock`. With `indexLock` held (a publish in progress) the
    /// entries are staged through a copy beside the index instead (`stageFromTree`): the lock stays held.
    func updateIndex(_ paths: [String], tree: ObjectID, indexLock: IndexLock? = nil) throws(StoreError) {
        if let indexLock, indexLock.isHeld { return try stageFromTree(paths, tree: tree, indexLock: indexLock) }
        var attempt = 0
        while true {
            attempt += 1
            do {
                let index = try repository.index()
                try index.reload(force: true)
                for path in paths {
                    let entry = try repository.treeEntry(in: tree, path: path)
                    if let entry, notCheckedOut(entry) != nil {
                        try stage(entry, at: path, in: index)
                    } else if entry != nil {
                        try index.add(path: path)
                    } else {
                        try index.remove(path: path)
                    }
                }
                try index.write()
                return
            } catch  where error.code == .locked && Double(attempt) * 0.01 < lockTimeout {
                usleep(10_000)
            } catch {
                if error.code == .locked { throw gitLockError("index.lock") }
                throw StoreError.git(
                    error, while: "updating the index (`cards fsck --repair` makes it again from main)")
            }
        }
    }
}

extension Deck {
    /// Refuses before publishing when the index is cut short (its header counts more entries than its
    /// size can hold), so that the commit is not made for an index that cannot follow it. A cheap look
    /// (12 bytes and the size): other damage is found by the index update, after the commit.
    /// Before `main` moves on a deck with a working tree: git's index lock waited out, and the index
    /// there and whole enough to follow (`expected`: main has a commit, so the deck has an index).
    func waitForIndex(deadline: Double, expected: Bool) throws(StoreError) {
        try waitForGitLock("index.lock", deadline: deadline)
        try checkIndexLooksWhole(expected: expected)
    }

    /// Sets the index entries of `paths` to what `tree` has there (removed where it has nothing), with no
    /// stat data (git compares those files by content), while this process holds `index.lock`: libgit2
    /// writes a copy of the index beside it (`index.cards-new`), renamed over the index, so the lock is
    /// never let go before main has moved. The path for indexes `IndexPatch` cannot patch, and for
    /// putting back the entries of a commit of hand edits.
    func stageFromTree(_ paths: [String], tree: ObjectID, indexLock: IndexLock?) throws(StoreError) {
        let indexPath = "\(gitDirectory)/index"
        let side = IndexLock.newIndexPath(for: indexPath)
        // A new deck has no index yet: libgit2 starts an empty one.
        unlink(side)
        if FileSystem.exists(indexPath) {
            // Scratch, removed below (and named by `IndexLock.leftovers` if a kill leaves it): written in place.
            try Deck.writeNewFile(try FileSystem.read(indexPath, limit: 1 << 31), to: side)
        }
        defer { unlink(side) }
        try withStoreError("updating the index (`cards fsck --repair` makes it again from main)") { () throws(GitError) in
            let index = try Index.open(path: side)
            for path in paths {
                if let entry = try repository.treeEntry(in: tree, path: path), entry.kind != .tree {
                    try stage(entry, at: path, in: index)
                } else {
                    try index.remove(path: path)
                }
            }
            try index.write()
        }
        let flush: FlushMode = durable ? .strict : .none
        if flush == .strict, FileSync.flush(path: side) != 0 {
            throw StoreError(.io, "cannot flush \(side) to disk")
        }
        guard rename(side, indexPath) == 0 else {
            throw StoreError(.io, "cannot replace \(indexPath): \(String(cString: strerror(errno)))")
        }
    }

    /// Stages a tree entry by its id, without its stat data; a link or a submodule the working tree does
    /// not hold is marked skip-worktree, so that git keeps it and does not call it deleted.
    func stage(_ entry: TreeEntry, at path: String, in index: Index) throws(GitError) {
        var skipped = notCheckedOut(entry) != nil
        if skipped, let workingDirectory, entry.kind != .blob {
            // Checked out by git itself (a plain git clone): the working tree holds it, nothing to skip.
            var info = stat()
            let kind = lstat("\(workingDirectory)/\(path)", &info) == 0 ? info.st_mode & S_IFMT : 0
            skipped = !(entry.kind == .symlink ? kind == S_IFLNK : kind == S_IFDIR)
        }
        try index.stage(path: path, id: entry.id, mode: entry.mode, skipWorktree: skipped)
    }

    /// Gives a file just written the executable bits its git mode asks for (git keeps only that bit).
    static func setExecutable(_ path: String, _ mode: UInt32) throws(StoreError) {
        guard mode == 0o100755 else { return }
        guard chmod(path, 0o755) == 0 else {
            throw StoreError(.io, "cannot make \(path) executable: \(String(cString: strerror(errno)))")
        }
    }

    /// Takes git's `index.lock` for a publish (`IndexLock`), after `markPending` (so that a lock left by
    /// a killed writer is known for ours: `clearStaleGitLock`), waiting while another process holds it.
    /// Clears the pending flag when it fails: nothing was changed.
    func lockIndex(deadline: Double, expected: Bool) throws(StoreError) -> IndexLock {
        let path = "\(gitDirectory)/index"
        while true {
            do throws(StoreError) {
                try waitForGitLock("index.lock", deadline: deadline)
                let lock: IndexLock
                do {
                    lock = try IndexLock(indexPath: path)
                } catch  where error.code == .locked {
                    continue  // taken by another process between the look and the take
                } catch {
                    throw StoreError(.io, "\(error.message); nothing was changed")
                }
                do {
                    try checkIndexLooksWhole(expected: expected)
                } catch {
                    lock.release()
                    throw error
                }
                return lock
            } catch {
                clearPending()
                throw error
            }
        }
    }

    /// `expected`: main has a commit, so the deck has an index (git made it with the deck, or the clone).
    func checkIndexLooksWhole(expected: Bool) throws(StoreError) {
        let path = "\(gitDirectory)/index"
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            // Written from nothing, it would hold the new card alone: git would see every other one deleted.
            guard expected && errno == ENOENT else { return }
            throw StoreError(
                .io,
                "\(path) is missing, so the index could not follow a commit; nothing was changed: "
                    + "`cards fsck --repair` makes it again from main, then try again")
        }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 12)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return }
        let count = read(descriptor, &header, 12)
        // The smallest entry is 62 bytes and a NUL, padded to 8 (versions 2 and 3); 4 has no padding.
        let entries = header[8..<12].reduce(0) { $0 << 8 | Int($1) }
        let version = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
        let smallest = version == 4 ? 63 : 64
        if count != 12 || header[0..<4] != [0x44, 0x49, 0x52, 0x43] || 12 + entries * smallest + 20 > Int(info.st_size)
        {
            throw StoreError(
                .io,
                "\(path) is damaged (its header does not fit its size), so the index could not follow a commit; nothing was "
                    + "changed: "
                    + "`cards fsck --repair` makes it again from main, then try again")
        }
    }
}
