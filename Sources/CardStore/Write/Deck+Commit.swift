import GitCore
import Glibc
import SystemCalls

/// The write path: every operation is one commit, made by `commitChange` in phases (`CommitAttempt`).
extension Deck {
    /// How often a compare-and-swap of `main` is retried when another writer moved it.
    static let publishAttempts = 20

    /// Runs one operation as one commit: takes the deck lock, builds the change from the current
    /// `main`, writes blobs, the changed subtrees and the commit, brings the working tree and index
    /// along under git's index lock, then publishes the commit by compare-and-swap of `main`
    /// (re-reading and re-applying when another writer moved it; the working tree and index put back). `recordingHandEdits` lets the change overwrite working-tree edits (it is them).
    /// Returns nil when `build` returns nil (nothing to do: no commit).
    @discardableResult
    package func commitChange(
        parents extraParents: [ObjectID] = [],
        recordingHandEdits: Bool = false,
        _ build: (DeckSnapshot) throws(StoreError) -> DeckChange?
    ) throws(StoreError) -> CommitOutcome? {
        let lock = try DeckLock(path: "\(gitDirectory)/cards.lock", timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        try checkNoUnfinishedGitOperation()
        try recoverInterruptedWrite()
        // The author is needed only once there is something to commit: a no-op needs no identity.
        var identity: CommitIdentity?
        let deadline = MonotonicClock.now() + lockTimeout
        var attempts = 0
        var reloads = 0
        while true {
            attempts += 1
            // Reading and writing objects, before anything outside the object database changes: a pack
            // git removed meanwhile (`reloadedAfterVanishedPack`) is a reason to start again.
            var started: CommitAttempt?
            let attempt: CommitAttempt
            let updates: [TreeUpdate]
            let tree: ObjectID
            var written: ObjectID?
            do throws(StoreError) {
                let snapshot = try snapshot()
                guard let change = try build(snapshot) else { return nil }
                let signed: CommitIdentity
                if let identity { signed = identity } else { signed = try commitIdentity() }
                identity = signed
                attempt = CommitAttempt(
                    deck: self, number: attempts, snapshot: snapshot, change: change, identity: signed,
                    extraParents: extraParents, recordingHandEdits: recordingHandEdits, deadline: deadline)
                started = attempt
                try attempt.checkBeforeWriting()
                (updates, tree) = try attempt.writeObjects()
                if attempt.hooks.readsObjects {
                    // A pre-commit or commit-msg hook reads the tree: it goes into a pack of its own first.
                    try attempt.flushObjects(commit: nil, tree: tree)
                } else {
                    written = try attempt.writeCommit(tree: tree)
                    try attempt.flushObjects(commit: written, tree: tree)
                }
            } catch {
                started?.end()
                if reloads < 3 && reloadedAfterVanishedPack(error) {
                    reloads += 1
                    attempts -= 1
                    continue
                }
                throw error
            }
            defer { attempt.end() }
            let commit: ObjectID
            if let written {
                commit = written
                try attempt.takeIndexLock(marking: updates)
                try attempt.bringWorkingTreeAlong(updates: updates, tree: tree)
            } else {
                // A pre-commit or commit-msg hook sees the working tree with the change, as git's does: the
                // files and index are brought along first, the commit written once the hooks agree.
                try attempt.takeIndexLock(marking: updates)
                try attempt.bringWorkingTreeAlong(updates: updates, tree: tree)
                commit = try attempt.writeCommitAfterHooks(tree: tree)
            }
            if try attempt.publish(commit) == .retry { continue }
            let outcome = try attempt.finish(commit)
            // New paths held out of a sparse checkout: git's patterns place them, under the deck lock.
            reapplySparsePatterns(attempt.skips, following: commit)
            return outcome
        }
    }

    /// Whether `error` came from a pack that git's repack removed while this command read it (libgit2
    /// had listed it: `GitError.vanishedPack`), and the handle's object database was then reloaded, so
    /// that reading again finds the objects where they are now. git looks again by itself.
    func reloadedAfterVanishedPack(_ error: StoreError) -> Bool {
        guard error.cause?.vanishedPack != nil else { return false }
        do {
            try repository.reloadObjectDatabase()
            return true
        } catch {
            return false
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
                "cannot flush the commit to disk (\(last)): \(SystemError.reason(failure)); the commit was "
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
