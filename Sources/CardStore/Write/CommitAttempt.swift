import GitCore
import Glibc
import SystemCalls

/// One attempt of `Deck.commitChange` at committing a change built from one snapshot of `main`, in
/// phases called in this order: `checkBeforeWriting`, `writeObjects`, `writeCommit`, `flushObjects`,
/// `takeIndexLock`, `bringWorkingTreeAlong`, `publish`, `finish`; and `end` on every way out.
/// `publish` says when another writer moved `main` first: the change is then built again from the
/// new `main`, in a new attempt. What a kill between the phases leaves is in `Deck+Recovery.swift`.
final class CommitAttempt {
    /// What `publish` did.
    enum Publication {
        /// `main` points at the new commit.
        case published
        /// `main` did not move, and the working tree and index are as it has them: another writer got
        /// in first (or holds its lock), and the change is to be built again from the new `main`.
        case retry
    }

    /// The deck the change goes into.
    let deck: Deck
    /// Which attempt this is, from 1: the pause before the next one grows with it.
    let number: Int
    /// `main` as this attempt read it: the change was built from it, and `publish` expects it.
    let snapshot: DeckSnapshot
    /// The change to commit.
    let change: DeckChange
    /// The commit's author and committer (`Deck.commitIdentity`).
    let identity: CommitIdentity
    /// The commit's parents after `main`'s tip (a merge's other side).
    let extraParents: [ObjectID]
    /// Whether the change records working-tree edits (`cards commit`): it may overwrite them, and
    /// putting back leaves the files alone.
    let recordingHandEdits: Bool
    /// When waiting for git's locks gives up (set once, for every attempt of a command).
    let deadline: Double
    /// The paths the change writes or removes, in the order of `change.files`.
    let paths: [String]
    /// The client hooks this commit runs (`Deck+Hooks`).
    let hooks: Deck.CommitHooks

    /// The pack the change's objects go into (nil: loose objects through libgit2), from `writeObjects`.
    private var packer: PackWriter?
    /// The packs' `.keep`s, from `flushObjects` until `main` has moved (or the attempt ends): git's
    /// repack leaves a kept pack alone while its objects are reached by no ref yet (`PackKeep`). One
    /// pack, or two with hooks that read the tree before the commit exists (the commit's is last).
    private var keeps: [PackKeep] = []
    /// libgit2's per-object fsync, turned off while many loose objects are written (`ObjectsFlush`).
    private var objectsFlush: ObjectsFlush?
    /// Git's index lock, held from `takeIndexLock` until `main` has moved.
    private var indexLock: IndexLock?
    /// The paths git keeps out of the working tree (a sparse checkout's), read before anything is written.
    private(set) var skips = WorkingTreeSkips.none

    /// Starts an attempt: nothing is checked or written until its phases are called.
    init(
        deck: Deck, number: Int, snapshot: DeckSnapshot, change: DeckChange, identity: CommitIdentity,
        extraParents: [ObjectID], recordingHandEdits: Bool, deadline: Double, runsHooks: Bool = true
    ) {
        self.deck = deck
        self.number = number
        self.snapshot = snapshot
        self.change = change
        self.identity = identity
        self.extraParents = extraParents
        self.recordingHandEdits = recordingHandEdits
        self.deadline = deadline
        paths = change.files.map(\.path)
        // A rebase's replayed commits run none, as git's rebase runs none.
        hooks =
            runsHooks
            ? deck.commitHooks(merge: !extraParents.isEmpty)
            : Deck.CommitHooks(before: nil, message: false, afterCommit: false)
    }

    /// Refuses the change before anything is written: when it would overwrite hand edits in the
    /// working tree (unless it records them), or the disk has no room for it.
    func checkBeforeWriting() throws(StoreError) {
        if !deck.isBare {
            skips = deck.workingTreeSkips(
                for: paths, adding: Set(change.files.compactMap { $0.content == nil ? nil : $0.path }))
        }
        if !deck.isBare && !recordingHandEdits {
            // An entry the working tree does not hold (a link, a submodule, a path outside the sparse
            // checkout) has no hand edits to lose.
            let checkedOut = change.files.enumerated().filter { position, file in
                !change.outsideWorkingTree.contains(position) && !skips.contains(file.path)
            }
            try deck.checkNoHandEdits(
                checkedOut.map { _, file in (file.path, { file.content.map(ObjectID.blobHash(of:)) }) },
                snapshot: snapshot)
        }
        try deck.checkSpace(forFileSizes: change.files.map { $0.content?.count })
    }

    /// Writes the change's blobs and its new tree, into a pack of their own or loose (`DeckChange.packable`).
    /// Returns the tree updates, in the order of `change.files`, and the new tree.
    func writeObjects() throws(StoreError) -> (updates: [TreeUpdate], tree: ObjectID) {
        // The new objects go into one pack (flushed before it is named). Without a pack, many loose
        // objects are written without an fsync each and flushed together before publishing; a few
        // are fsynced by libgit2 in every mode: it renames each object into place itself, so an
        // object written out only after that rename could survive a crash empty under its final
        // name, and libgit2 would then take it as stored and never write it again.
        // A hook that reads the commit's tree finds it in a pack of its own (`flushObjects(commit: nil, …)`).
        let packer = try deck.packWriter(for: change)
        self.packer = packer
        objectsFlush = ObjectsFlush(durable: deck.durable, files: packer == nil ? change.files.count : 0)
        var updates: [TreeUpdate] = []
        for (position, file) in change.files.enumerated() {
            if let content = file.content {
                let blob = try withStoreError("writing \(file.path)") { () throws(GitError) in
                    if let stored = change.storedBlobs[position] { return stored }
                    if let packer { return try packer.writeBlob(content) }
                    return try deck.repository.writeBlob(content)
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
                return try deck.repository.splicedTree(
                    base: snapshot.tree, updates: updates, cache: change.trees ?? snapshot.trees, writer: packer)
            }
            return try deck.repository.updatedTree(base: snapshot.tree, updates: updates)
        }
        return (updates, tree)
    }

    /// Writes the commit of `tree`, on `main`'s tip and `extraParents`, with the change's message and
    /// this deck's `Device` trailer. Returns its id.
    func writeCommit(tree: ObjectID) throws(StoreError) -> ObjectID {
        let parents = (snapshot.commit.map { [$0] } ?? []) + extraParents
        var message = change.message
        if let device = deck.deviceID() { message.trailers.append((Deck.deviceTrailer, device)) }
        let text = try deck.runHooksBeforeCommit(hooks, tree: tree, message: message.text, author: identity.author)
        var bytes = try withStoreError("writing the commit") { () throws(GitError) in
            try Repository.commitBytes(
                tree: tree, parents: parents, message: text, author: identity.author,
                committer: identity.committer)
        }
        // `commit.gpgsign`: signed as git signs (one config read when it is not set).
        if let signer = try withStoreError(
            "reading the signing settings",
            { () throws(GitError) in
                try CommitSigner.configured(in: deck.repository)
            })
        {
            bytes = try withStoreError("signing the commit") { () throws(GitError) in
                try signer.sign(bytes, committer: identity.committer, in: deck.workingDirectory ?? deck.gitDirectory)
            }
        }
        let signed = bytes
        return try withStoreError("writing the commit") { () throws(GitError) in
            guard let packer else { return try deck.repository.writeCommit(signed, tree: tree, parents: parents) }
            return try packer.writeCommit(signed)
        }
    }

    /// Makes every object `main` is to point at durable: the pack finished and named (its commit
    /// `commit`; with no commit yet, the blobs and trees under `tree`, for hooks to read), or the loose
    /// objects flushed together; then libgit2's object fsync is back on.
    func flushObjects(commit: ObjectID?, tree: ObjectID) throws(StoreError) {
        if let packer {
            let keep = try withStoreError("writing the pack") { () throws(GitError) in
                if let commit { return try packer.finish(commit: commit, durable: deck.durable) }
                return try packer.finish(tree: tree, durable: deck.durable)
            }
            if let keep { keeps.append(keep) }
        }
        try objectsFlush?.flush(deck.gitDirectory)
        objectsFlush?.restore()
    }

    /// `writeCommit` after the working tree and index were brought along (a commit with hooks): when a
    /// hook refuses, or the commit cannot be written, they go back as `main` has them and nothing was
    /// changed.
    func writeCommitAfterHooks(tree: ObjectID) throws(StoreError) -> ObjectID {
        do {
            let commit = try writeCommit(tree: tree)
            // The commit's own pack (the tree's went in before the hooks ran).
            try flushObjects(commit: commit, tree: tree)
            return commit
        } catch {
            throw deck.putBack(
                paths, to: snapshot.tree, indexLock: indexLock, handEdits: recordingHandEdits, skips: skips,
                after: error)
        }
    }

    /// Waits out git's index lock, marks the change pending (`markPending`: from here a kill is finished
    /// by the next command), then takes the index lock (with a working tree), held until `main` has moved.
    func takeIndexLock(marking updates: [TreeUpdate]) throws(StoreError) {
        // The working tree and index are brought along first and main moved after, all under git's
        // index lock (`IndexLock`): a `git commit` run meanwhile can never commit an index without this
        // change on top of it. Wait out git's index lock first.
        if !deck.isBare { try deck.waitForIndex(deadline: deadline, expected: snapshot.commit != nil) }
        try deck.markPending(
            zip(change.files, updates).map { file, update in (file.path, update.blob) },
            handEdits: recordingHandEdits)
        indexLock = deck.isBare ? nil : try deck.lockIndex(deadline: deadline, expected: snapshot.commit != nil)
    }

    /// Writes the change into the working tree and index (a bare deck has neither), from the bytes and
    /// the blob ids at hand (`updates`, with `tree` for what the index patch cannot do). When that fails,
    /// they are put back as `main` has them, and the error says that nothing was changed.
    func bringWorkingTreeAlong(updates: [TreeUpdate], tree: ObjectID) throws(StoreError) {
        guard !deck.isBare else { return }
        do {
            try deck.updateWorkingTree(
                change.files, updates: updates, tree: tree, flush: deck.flushMode, indexLock: indexLock,
                outside: change.outsideWorkingTree, skips: skips)
        } catch {
            throw deck.putBack(
                paths, to: snapshot.tree, indexLock: indexLock, handEdits: recordingHandEdits, skips: skips,
                after: error)
        }
    }

    /// Moves `main` to `commit` by compare-and-swap against the snapshot's commit. When that fails, the
    /// working tree and index go back as `main` has them first; then `.retry` when another writer moved
    /// `main` or holds its lock (after a pause, while attempts and time are left), else the error.
    func publish(_ commit: ObjectID) throws(StoreError) -> Publication {
        do throws(GitError) {
            let logMessage = Deck.ownCommitLogPrefix + change.message.subject
            // The commit's packs still in place (kept, so no repack removes them before main moves), or,
            // without a pack of its own, the commit looked up: main never names a commit that is gone.
            // With hooks, the tree's own pack too (named before they ran, however long they took).
            let check: TargetCheck = keeps.isEmpty ? .lookUp : keeps.count == 1 ? .pack(keeps[0]) : .packs(keeps)
            // `.ordered`: the ref and reflog written out, made durable by the last fsync (see `FileSync`);
            // `.strict`: each fsynced, without libgit2's fsync of folders a reflog append leaves alone;
            // `.none`: written, not flushed (and the target not looked up by libgit2: `check` instead).
            let done = try deck.repository.updateReferenceWrittenOut(
                deck.branch, to: commit, expected: snapshot.commit, logMessage: logMessage,
                committer: identity.committer, flush: deck.flushMode, check: check)
            if !done {
                try deck.repository.updateReference(
                    deck.branch, to: commit, expected: snapshot.commit, logMessage: logMessage, check: check)
            }
        } catch {
            // main did not move: the working tree and index go back to it before anything else.
            let why = StoreError.git(error, while: "publishing the commit on main")
            if !deck.isBare {
                if let failure = deck.putBack(
                    paths, to: snapshot.tree, indexLock: indexLock, handEdits: recordingHandEdits, skips: skips)
                {
                    throw Deck.notPutBack(why, because: failure)
                }
                // Put back as it was: a retry that then finds nothing to do leaves no flag behind.
                deck.clearPending()
            }
            if (error.code == .referenceChanged || error.isTargetRemoved) && number < Deck.publishAttempts {
                // Another writer (git itself, or a deck without our lock) moved main: re-read and re-apply.
                // Or the new commit's objects were removed before main could name them: written again.
                usleep(UInt32(1_000 * number))
                return .retry
            }
            if error.code == .locked {
                // A git command holds main.lock (waited for, named after a second), a killed writer of ours
                // left it (removed when proved stale), or nobody holds it (said at once: `waitForGitLock`).
                do throws(StoreError) {
                    try deck.waitForGitLock("\(deck.branch).lock", deadline: deadline)
                } catch {
                    deck.clearPending()
                    throw error
                }
                return .retry
            }
            deck.clearPending()
            throw StoreError(why.code, "\(why.message); nothing was changed: try again")
        }
        return .published
    }

    /// After `main` moved to `commit`: records the index it left, lets git's index lock go, makes the
    /// commit durable, clears the pending flag and tidies up. Returns what the operation made.
    func finish(_ commit: ObjectID) throws(StoreError) -> CommitOutcome {
        // main reaches the packs now: they are git's like any other.
        for keep in keeps { keep.release() }
        // The index this commit left, recorded while nobody else can have changed it.
        if !deck.isBare { deck.recordIndexFollows(commit) }
        indexLock?.release()
        // main was renamed last: its flush makes everything before it durable (`.ordered`).
        try deck.finishOrderedFlush()
        deck.clearPending()
        deck.consolidatePacks()
        // A merge's few hundred folders and the packs' mappings: freed off the caller's time (~1 ms).
        (change.trees ?? snapshot.trees).emptyInBackground()
        if hooks.afterCommit { deck.runAfterHook("post-commit") }
        return CommitOutcome(commit: commit, parent: snapshot.commit)
    }

    /// Hands the packs' `.keep`s to the caller, who lets them go once a ref reaches the commit: a rebase's
    /// replayed commits are published together, after the last one is written.
    func handOverKeeps() -> [PackKeep] {
        defer { keeps = [] }
        return keeps
    }

    /// Lets go of what the attempt holds, however it ends (a retry takes it again): git's index lock,
    /// and the deck's claim on libgit2's object fsync, given back. Each is let go once only.
    func end() {
        // Given up on every way out of this attempt; a retry takes it again.
        indexLock?.release()
        for keep in keeps { keep.release() }
        objectsFlush?.restore()
    }
}
