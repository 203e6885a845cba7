import GitCore
import Glibc

/// The write path: every operation is one commit, made by `commitChange` in phases (`CommitAttempt`).
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

    /// A pack writer for the objects of a change, or nil for a change that is not `packable`. Every
    /// commit is one pack, however small: three fsyncs (pack, index, folder) where the five loose
    /// objects of a one-card commit take ten; `PackConsolidation` keeps the count down.
    func packWriter(for change: DeckChange) throws(StoreError) -> PackWriter? {
        guard change.packable else { return nil }
        return try withStoreError("opening the object database for a pack") { () throws(GitError) in
            try PackWriter(for: repository)
        }
    }

    /// `.ordered` mode, after `main` moved (the working tree and index are brought along before it): fsyncs
    /// the ref, renamed last, which commits every earlier rename and the data written out before it (see
    /// `FileSync`). Nothing to do in other modes.
    func finishOrderedFlush() throws(StoreError) {
        guard flushMode == .ordered else { return }
        // A linked worktree keeps its index in its own git folder, the branch in the common one.
        let common = Repository.trimmedSlash(repository.commonDirectory)
        let last = "\(common)/\(branch)"
        let failure = FileSync.flush(path: last)
        if failure != 0 {
            throw StoreError(
                .io,
                "cannot flush the commit to disk (\(last)): \(String(cString: strerror(failure))); the commit was "
                    + "made but may not survive a crash: check the disk, then run `cards fsck`")
        }
    }

    /// Combines small packs once there are many (see `PackConsolidation`). The commit is already made
    /// and every object stays readable whatever happens here, so a failure (a full disk) is left for
    /// the next commit to retry rather than reported as the command's.
    func consolidatePacks() {
        _ = try? PackConsolidation.consolidate(repository)
    }
}
