import Glibc
import SystemCalls

/// The stat data git records for a working-tree file in its index entry.
package struct FileStat: Sendable, Hashable {
    /// The fields in index order: ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size (each truncated to 32 bits).
    var fields: [UInt32]

    /// The stat data of the file at `path` (not following a final symlink), or nil when it cannot be read.
    package init?(path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let executable = info.st_mode & 0o100 != 0
        fields = [
            UInt32(truncatingIfNeeded: info.st_ctim.tv_sec), UInt32(truncatingIfNeeded: info.st_ctim.tv_nsec),
            UInt32(truncatingIfNeeded: info.st_mtim.tv_sec), UInt32(truncatingIfNeeded: info.st_mtim.tv_nsec),
            UInt32(truncatingIfNeeded: info.st_dev), UInt32(truncatingIfNeeded: info.st_ino),
            executable ? 0o100755 : 0o100644, UInt32(truncatingIfNeeded: info.st_uid),
            UInt32(truncatingIfNeeded: info.st_gid), UInt32(truncatingIfNeeded: info.st_size),
        ]
    }

    /// No stat data but the git `mode` (`0o100644`, `0o100755`, `0o120000`…): for an entry whose file
    /// the working tree does not hold (skip-worktree), which git never compares with a file.
    package init(notInWorkingTree mode: UInt32) {
        fields = [0, 0, 0, 0, 0, 0, mode, 0, 0, 0]
    }

    /// The same stat data recording `mode` (the tree entry's, 100644 or 100755) as the entry's mode: what
    /// was checked out keeps its git mode in the index, as git's checkout does, whatever executable bit
    /// the file system shows (with `core.filemode=false`, exFAT or SMB show every file executable).
    package func recording(mode: UInt32) -> FileStat {
        var copy = self
        copy.fields[6] = mode
        return copy
    }
}

/// A new state for one index entry: the blob now in the working tree at `path` with its stat data,
/// or nil to remove the entry.
package struct IndexUpdate: Sendable {
    /// The path from the working-tree root.
    package var path: String
    /// The blob and stat data of the file now there, or nil when the file was removed.
    package var file: (blob: ObjectID, stat: FileStat)?
    /// Whether the entry carries git's skip-worktree bit: the working tree does not hold the file on
    /// purpose (a sparse checkout's path outside its patterns), so git neither reads nor writes it there.
    package var skipWorktree: Bool

    /// Creates an update.
    package init(path: String, file: (blob: ObjectID, stat: FileStat)?, skipWorktree: Bool = false) {
        self.path = path
        self.file = file
        self.skipWorktree = skipWorktree
    }
}

/// Rewrites the index file with a few entries changed, without libgit2's parse of every entry into
/// its own allocation and its second checksum pass: the new file is described as pieces (`IndexImage`:
/// runs of the mapped old file, the changed entries, smudged sizes, the header and the rewritten TREE
/// extension), hashed piece by piece and written with `writev` through `index.lock` like git does, so
/// the unchanged entries are never copied in user space. At 100,000 entries (a 12 MB index) this
/// takes a few milliseconds where `git_repository_index` + `git_index_write` take ~200 ms.
///
/// It handles index versions 2 and 3 and the caller's patchable paths (`PatchablePaths`: CardStore's
/// card files) only, and declines
/// (returns the reason, changing nothing) on anything else, so the caller can use libgit2 instead:
/// no index yet, version 4, a mandatory extension (split or sparse index), a conflict at a changed
/// path, or a file where a changed path needs a folder.
package enum IndexPatch {
    /// What `apply` did.
    package enum Outcome: Sendable, Equatable {
        /// The index was rewritten.
        case written
        /// Nothing was changed; the reason says why the fast path does not apply.
        case declined(String)
    }

    /// Why the fast path does not apply.
    struct Reason: Error {
        var text: String
    }

    /// Applies `updates` to the index file at `indexPath`; `.locked` when another process holds
    /// `index.lock`. `flush`: fsync before the rename (`.strict`), or only write the data out before it
    /// (`.ordered`: the caller fsyncs the index afterwards, committing the rename with everything before).
    /// `lock`: `index.lock` as the caller holds it; it stays held (the caller gives it up), and the new
    /// index goes through a file of its own (`IndexLock.newIndexPath`).
    /// `workingDirectory`: where the entries' files are (`build`'s), nil for an index of its own.
    /// `paths`: the only paths it may change (`updates` of any other path decline).
    package static func apply(
        _ updates: [IndexUpdate], paths: PatchablePaths, indexPath: String, flush: FlushMode, lock: IndexLock? = nil,
        workingDirectory: String? = nil
    ) throws(GitError) -> Outcome {
        let changes: [(path: [UInt8], update: IndexUpdate)]
        switch sortedChanges(updates, paths: paths) {
        case .failure(let reason): return .declined(reason.text)
        case .success(let sorted): changes = sorted
        }
        let old: (bytes: UnsafeRawBufferPointer, seconds: UInt32, nanoseconds: UInt32)
        switch map(indexPath) {
        case .failure(let reason): return .declined(reason.text)
        case .success(let mapped): old = mapped
        }
        defer { munmap(UnsafeMutableRawPointer(mutating: old.bytes.baseAddress), old.bytes.count) }
        switch build(
            old.bytes, changes: changes, paths: paths, indexTime: (old.seconds, old.nanoseconds),
            workingDirectory: workingDirectory)
        {
        case .failure(let reason): return .declined(reason.text)
        case .success(let image):
            try write(image, over: old.bytes, to: indexPath, flush: flush, lock: lock)
            return .written
        }
    }

    /// The last update of each path, sorted by path as the index sorts entries; a reason when one is
    /// not one of `paths`.
    static func sortedChanges(_ updates: [IndexUpdate], paths: PatchablePaths)
        -> Result<[(path: [UInt8], update: IndexUpdate)], Reason>
    {
        var latest: [[UInt8]: IndexUpdate] = [:]
        for update in updates {
            let path = Array(update.path.utf8)
            guard paths.contains(path) else { return .failure(Reason(text: "\(update.path) is not a card path")) }
            latest[path] = update
        }
        let sorted = latest.keys.sorted { $0.lexicographicallyPrecedes($1) }
        return .success(sorted.compactMap { path in latest[path].map { (path: path, update: $0) } })
    }

    /// The index file mapped read-only (the caller unmaps it) with its modification time. Mapped, not
    /// read: no zero-filled copy of a 12 MB file, and its pages are the page cache's own.
    static func map(_ indexPath: String)
        -> Result<(bytes: UnsafeRawBufferPointer, seconds: UInt32, nanoseconds: UInt32), Reason>
    {
        let fd = open(indexPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(Reason(text: "no index file")) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(Reason(text: "cannot stat the index")) }
        let size = Int(info.st_size)
        // Plainly mapped: MAP_POPULATE, MADV_SEQUENTIAL and MADV_WILLNEED measured no faster at 100,000
        // entries (fault-around already maps 16 pages per fault; WILLNEED was ~1 ms slower).
        guard size >= 32, let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            return .failure(Reason(text: "cannot map the index"))
        }
        let seconds = UInt32(truncatingIfNeeded: info.st_mtim.tv_sec)
        let nanoseconds = UInt32(truncatingIfNeeded: info.st_mtim.tv_nsec)
        return .success((UnsafeRawBufferPointer(start: mapped, count: size), seconds, nanoseconds))
    }

    /// Writes `image` (its `.original` pieces from `old`) and then its SHA-1 through `index.lock`
    /// (created exclusively, as git does), flushed as `flush` says, then renames it over the index;
    /// removes the lock on failure. Side files of version 0.1 (`staleSideFileSuffixes`) go
    /// once the new index is in place.
    ///
    /// The SHA-1 is computed on a second thread while this one writes the same pieces, and the
    /// file's pages start going to the disk (`FileSync.startWriteOut`) before the SHA-1 is done: at
    /// 100,000 entries hashing the 12 MB took ~6 ms, writing it ~2.5 ms, one after the other.
    static func write(
        _ image: IndexImage, over old: UnsafeRawBufferPointer, to indexPath: String, flush: FlushMode,
        lock held: IndexLock? = nil
    ) throws(GitError) {
        let lock: IndexLock
        if let held { lock = held } else { lock = try IndexLock(indexPath: indexPath) }
        // Under a lock the caller keeps, the new index is written beside it, not into it: renamed over
        // the index, the lock file would be gone while the caller still needs it held.
        let newPath = held == nil ? lock.path : IndexLock.newIndexPath(for: indexPath)
        let fd: Int32
        if held == nil {
            fd = lock.descriptor
        } else {
            fd = open(newPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o666)
            guard fd >= 0 else {
                throw GitError(
                    code: .system(errno), message: "cannot create \(newPath): \(SystemError.reason(errno))",
                    function: "IndexPatch.write")
            }
        }
        // Ours to close: the caller's lock stays open while it is held.
        defer { if held != nil { close(fd) } }
        /// Gives up a lock of this write's own; the caller's stays held.
        func releaseOwn() { if held == nil { lock.release() } }
        // A small index (~1,000 cards) hashes in less time than a thread takes to start.
        let hashed = BackgroundWork(onThread: old.count >= Background.worthAThread) { image.checksum(over: old) }
        // Joined on every way out: the thread reads the old index's mapping, unmapped after this returns.
        defer { _ = hashed.wait() }
        var failure = image.withVectors(over: old) { FileSync.writeAll(fd, $0) }
        // Only a head start for the flush below, which decides: where sync_file_range is missing
        // (WSL1, some sandboxes) the write goes on without it.
        if failure == 0 && flush != .none { _ = FileSync.startWriteOut(fd) }
        let checksum = hashed.wait()
        if failure == 0 { failure = FileSync.writeAll(fd, checksum) }
        if failure == 0 { failure = FileSync.flush(fd, flush) }
        if failure == 0 && rename(newPath, indexPath) != 0 { failure = errno }
        if failure == 0 && held == nil { lock.renamedOverIndex() }
        if failure != 0 {
            if held != nil { unlink(newPath) }
            releaseOwn()
            throw GitError(
                code: .system(failure), message: "cannot write \(indexPath): \(SystemError.reason(failure))",
                function: "IndexPatch.write")
        }
        removeStaleSideFiles(of: indexPath)
    }

    /// What version 0.1 kept beside a big index, named by suffix (`index.cards-spare`, a copy
    /// of the index rewritten in place, and `index.cards-sha1`, checkpoints of its checksum): nothing
    /// reads them now, and the spare is as big as the index.
    static let staleSideFileSuffixes = [".cards-spare", ".cards-sha1"]

    /// Removes the `staleSideFileSuffixes` files beside the index at `indexPath` where an earlier
    /// version left them (two `unlink` calls that find nothing, on a deck that never had them).
    package static func removeStaleSideFiles(of indexPath: String) {
        for suffix in staleSideFileSuffixes { _ = unlink(indexPath + suffix) }
    }
}
