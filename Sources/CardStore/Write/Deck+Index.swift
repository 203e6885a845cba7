import GitCore
import Glibc
import SystemCalls

/// The index following the working tree and `main`: patched in place, staged through libgit2 or a
/// copy beside it, and git's index lock taken and checked for a publish.
extension Deck {
    /// Updates the index entries of files just written (blob) or removed (nil): by patching the index
    /// file when it allows (`IndexPatch`, a few ms at 100,000 cards), else through libgit2's index
    /// (which reads and rewrites every entry). Retries while another git process holds `index.lock`.
    /// `skipModes`: the entries git keeps out of the working tree, by path, with their git modes: staged
    /// with the skip-worktree bit and no stat data (their files are not read).
    func updateIndexEntries(
        _ entries: [(path: String, blob: ObjectID?, mode: UInt32)], tree: ObjectID, flush: FlushMode? = nil,
        indexLock: IndexLock? = nil, skipModes: [String: UInt32] = [:]
    ) throws(StoreError) {
        let flush = flush ?? (durable ? .strict : .none)
        guard let workingDirectory else { return }
        var updates: [IndexUpdate] = []
        updates.reserveCapacity(entries.count)
        let skipped = Set(skipModes.keys)
        for entry in entries {
            guard let blob = entry.blob else {
                updates.append(IndexUpdate(path: entry.path, file: nil))
                continue
            }
            if let mode = skipModes[entry.path] {
                updates.append(
                    IndexUpdate(path: entry.path, file: (blob, FileStat(notInWorkingTree: mode)), skipWorktree: true))
                continue
            }
            guard let stat = FileStat(path: "\(workingDirectory)/\(entry.path)") else {
                return try updateIndex(entries.map(\.path), tree: tree, indexLock: indexLock, skipped: skipped)
            }
            // The tree entry's mode, not the file system's executable bit (all set on exFAT or SMB, where
            // `core.filemode=false`): git's checkout keeps the entry's mode in the index.
            let recorded = entry.mode & 0o170000 == 0o100000 ? stat.recording(mode: entry.mode) : stat
            updates.append(IndexUpdate(path: entry.path, file: (blob, recorded)))
        }
        var attempt = 0
        while true {
            attempt += 1
            let outcome: IndexPatch.Outcome
            do {
                outcome = try IndexPatch.apply(
                    updates, paths: Deck.cardPaths, indexPath: "\(gitDirectory)/index", flush: flush, lock: indexLock,
                    workingDirectory: workingDirectory)
            } catch  where error.code == .locked && Double(attempt) * 0.01 < lockTimeout {
                usleep(10_000)
                continue
            } catch {
                if error.code == .locked { throw gitLockError("index.lock") }
                throw StoreError.git(
                    error, while: "updating the index (`cards fsck --repair` makes it again from main)")
            }
            if outcome != .written {
                try updateIndex(entries.map(\.path), tree: tree, indexLock: indexLock, skipped: skipped)
            }
            return
        }
    }

    /// Updates the index entries of `paths` to match the working tree (which matches `tree`), retrying
    /// while another git process holds `index.lock`. With `indexLock` held (a publish in progress) the
    /// entries are staged through a copy beside the index instead (`stageFromTree`): the lock stays held.
    /// `skipped`: paths git keeps out of the working tree, staged by id with the skip-worktree bit.
    func updateIndex(_ paths: [String], tree: ObjectID, indexLock: IndexLock? = nil, skipped: Set<String> = [])
        throws(StoreError)
    {
        if let indexLock, indexLock.isHeld {
            return try stageFromTree(paths, tree: tree, indexLock: indexLock, skipped: skipped)
        }
        var attempt = 0
        while true {
            attempt += 1
            do {
                let index = try repository.index()
                try index.reload(force: true)
                for path in paths {
                    let entry = try repository.treeEntry(in: tree, path: path)
                    // libgit2 would hash a filter driver's file (an LFS image) as it is: staged by id.
                    if let entry, skipped.contains(path) || notCheckedOut(entry) != nil || hasFilterDriver(path) {
                        try stage(entry, at: path, in: index, skipping: skipped.contains(path))
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

    /// Sets the index entries of `paths` to what `tree` has there (removed where it has nothing), with no
    /// stat data (git compares those files by content), while this process holds `index.lock`: libgit2
    /// writes a copy of the index beside it (`index.cards-new`), renamed over the index, so the lock is
    /// never let go before main has moved. The path for indexes `IndexPatch` cannot patch, and for
    /// putting back the entries of a commit of hand edits.
    func stageFromTree(_ paths: [String], tree: ObjectID, indexLock: IndexLock?, skipped: Set<String> = [])
        throws(StoreError)
    {
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
                    try stage(entry, at: path, in: index, skipping: skipped.contains(path))
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
            throw StoreError(.io, "cannot replace \(indexPath): \(SystemError.reason(errno))")
        }
    }

    /// Stages a tree entry by its id, without its stat data; a link or a submodule the working tree does
    /// not hold is marked skip-worktree, so that git keeps it and does not call it deleted, and so is an
    /// entry git keeps out of the working tree (`skipping`: a sparse checkout's).
    func stage(_ entry: TreeEntry, at path: String, in index: Index, skipping: Bool = false) throws(GitError) {
        if skipping { return try index.stage(path: path, id: entry.id, mode: entry.mode, skipWorktree: true) }
        var skipped = notCheckedOut(entry) != nil
        if skipped, let workingDirectory, entry.kind != .blob {
            // Checked out by git itself (a plain git clone): the working tree holds it, nothing to skip.
            var info = stat()
            let kind = lstat("\(workingDirectory)/\(path)", &info) == 0 ? info.st_mode & S_IFMT : 0
            skipped = !(entry.kind == .symlink ? kind == S_IFLNK : kind == S_IFDIR)
        }
        try index.stage(path: path, id: entry.id, mode: entry.mode, skipWorktree: skipped)
    }

    /// Before `main` moves on a deck with a working tree: git's index lock waited out, and the index
    /// there and whole enough to follow (`expected`: main has a commit, so the deck has an index).
    func waitForIndex(deadline: Double, expected: Bool) throws(StoreError) {
        try waitForGitLock("index.lock", deadline: deadline)
        try checkIndexLooksWhole(expected: expected)
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

    /// Refuses before publishing when the index is cut short (its header counts more entries than its
    /// size can hold), so that the commit is not made for an index that cannot follow it. A cheap look
    /// (12 bytes and the size): other damage is found by the index update, after the commit.
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
