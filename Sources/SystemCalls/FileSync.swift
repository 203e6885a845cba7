import CLinux
import Glibc

/// How a write is made durable.
package enum FlushMode: Sendable, Hashable {
    /// Not at all (`CARDS_FSYNC=0`): the page cache decides.
    case none
    /// Data pushed with `FileSync.writeOut`; one fsync at the end of the whole write commits it all.
    case ordered
    /// An fsync per file (and per new folder), for file systems where one fsync does not order the rest.
    case strict
}

/// Flushing written files to disk with as few cache flushes as durability allows.
///
/// Each `fsync` on this kind of VM costs 0.2–4 ms (a journal commit and a device cache flush), so a
/// one-card commit that fsyncs every object, its folder, the ref, two reflogs, the card file and the
/// index pays ~15 of them. On a file system with one ordered metadata journal (ext4), a write can be
/// made durable with one: push each file's data to the device first (`writeOut`: `sync_file_range`,
/// no journal commit, no cache flush), do the renames in the order a crash may cut them, then `fsync`
/// the file renamed last. jbd2 commits transactions whole and in order, and the commit block is
/// written with a cache flush before it, so that one fsync makes every earlier rename durable together
/// with the data pushed before it; a crash before it leaves a prefix of the renames (each with its
/// data), which is what the per-file fsyncs guaranteed. git's `core.fsyncMethod=batch` rests on the
/// same property. Elsewhere (or with `CARDS_FSYNC=strict`) every file is fsynced on its own.
package enum FileSync {
    /// Flushes every pending write of the file system holding `folder` (`syncfs`): one call where a
    /// bulk write would otherwise fsync each file. Returns errno on failure, 0 on success.
    package static func syncFileSystem(holding folder: String) -> Int32 {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        return clinux_syncfs(fd) == 0 ? 0 : errno
    }

    /// ext4's `f_type` (`EXT4_SUPER_MAGIC`, shared with ext2/ext3; ext2 has no journal, but
    /// then nothing on it is crash-safe and the per-file fsyncs would not save it either).
    static let ext4Magic = 0xEF53

    /// Whether `folder` is on a file system whose metadata changes are committed in one ordered journal
    /// (ext4), so that one fsync after `writeOut` of the rest makes every earlier change durable.
    /// ext2, and ext4 made or mounted without a journal, report the same magic number: there one fsync
    /// commits only its own file, so the device must also have a running jbd2 journal
    /// (`/proc/fs/jbd2/<device>-<n>`, the device named by `/sys/dev/block/<major>:<minor>/uevent`).
    /// Every folder given must be on that same device (a working tree apart from its git folder is not).
    package static func hasOrderedJournal(_ folder: String, alsoHolding others: [String] = []) -> Bool {
        guard clinux_filesystem_type(folder) == ext4Magic else { return false }
        var info = stat()
        guard stat(folder, &info) == 0 else { return false }
        for other in others {
            var otherInfo = stat()
            guard stat(other, &otherInfo) == 0, otherInfo.st_dev == info.st_dev else { return false }
        }
        return journalRunning(onDevice: info.st_dev)
    }

    /// Whether jbd2 runs a journal for the block device `device`.
    static func journalRunning(onDevice device: dev_t) -> Bool {
        let major = (device >> 8) & 0xFFF | ((device >> 32) & ~0xFFF)
        let minor = (device & 0xFF) | ((device >> 12) & ~0xFF)
        guard let uevent = LockFiles.readProcFile("/sys/dev/block/\(major):\(minor)/uevent") else { return false }
        let lines = String(decoding: uevent, as: UTF8.self).split(separator: "\n")
        guard let line = lines.first(where: { $0.hasPrefix("DEVNAME=") }) else { return false }
        // A device in a subfolder of /dev (mapper/x) is named with "!" for "/" in /proc/fs/jbd2.
        let name = String(line.dropFirst("DEVNAME=".count).map { $0 == "/" ? "!" : $0 })
        return LockFiles.list("/proc/fs/jbd2").contains { $0.hasPrefix(name + "-") }
    }

    /// Writes a file's dirty pages to the device and waits for them, without a journal commit or a
    /// cache flush (`SYNC_FILE_RANGE_WAIT_BEFORE | WRITE | WAIT_AFTER`). Returns errno on failure, 0
    /// on success.
    package static func writeOut(_ fd: Int32) -> Int32 {
        clinux_sync_file_range(fd, 1 | 2 | 4) == 0 ? 0 : errno
    }

    /// Starts writing a file's dirty pages to the device without waiting (`SYNC_FILE_RANGE_WRITE`),
    /// so that several files' writes overlap; `writeOut` then waits for them. Returns errno or 0.
    package static func startWriteOut(_ fd: Int32) -> Int32 {
        clinux_sync_file_range(fd, 2) == 0 ? 0 : errno
    }

    /// `writeOut` of the files at `paths`, their writes started together and then waited for (one
    /// device round trip instead of one per file); a missing file is no error (nothing to push).
    /// Returns the first errno, or 0.
    package static func writeOut(paths: [String]) -> Int32 {
        var descriptors: [Int32] = []
        defer { for fd in descriptors { close(fd) } }
        for path in paths {
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else {
                if errno == ENOENT { continue }
                return errno
            }
            descriptors.append(fd)
            let failure = startWriteOut(fd)
            if failure != 0 { return failure }
        }
        for fd in descriptors {
            let failure = writeOut(fd)
            if failure != 0 { return failure }
        }
        return 0
    }

    /// Writes all of `bytes` to `fd`, retrying after signals and short writes. Returns errno on
    /// failure (EIO when a write makes no progress), 0 on success.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { buffer -> Int32 in
            var vector = iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress), iov_len: buffer.count)
            return withUnsafeMutablePointer(to: &vector) {
                writeAll(fd, UnsafeMutableBufferPointer(start: $0, count: 1))
            }
        }
    }

    /// The most buffers one `writev` takes (`IOV_MAX`, 1024 on Linux).
    package static let vectorLimit: Int = {
        let limit = sysconf(Int32(_SC_IOV_MAX))
        return limit > 0 ? limit : 16
    }()

    /// Writes all of the buffers `vectors` describes, in order, to `fd` (`writev`, `IOV_MAX` buffers at
    /// a time), retrying after signals and short writes; `vectors` is used up as the loop's cursor.
    /// Returns errno on failure (EIO when a write makes no progress), 0 on success.
    package static func writeAll(_ fd: Int32, _ vectors: UnsafeMutableBufferPointer<iovec>) -> Int32 {
        guard let base = vectors.baseAddress else { return 0 }
        var first = 0
        while first < vectors.count {
            // An empty buffer first would make a batch of nothing look like a write without progress.
            if vectors[first].iov_len == 0 {
                first += 1
                continue
            }
            let batch = Int32(min(vectors.count - first, vectorLimit))
            let count = writev(fd, base + first, batch)
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return errno }
            if count == 0 { return EIO }
            first = skip(count, in: vectors, from: first)
        }
        return 0
    }

    /// Marks `written` bytes from `vectors[first...]` as done after a (possibly short) `writev`: whole
    /// buffers are passed over, a partly written one starts after its written part. Returns the index
    /// of the first buffer with bytes left.
    private static func skip(_ written: Int, in vectors: UnsafeMutableBufferPointer<iovec>, from first: Int) -> Int {
        var left = written
        var index = first
        while index < vectors.count && left >= vectors[index].iov_len {
            left -= vectors[index].iov_len
            index += 1
        }
        if left > 0 && index < vectors.count {
            vectors[index].iov_base = vectors[index].iov_base.map { $0 + left }
            vectors[index].iov_len -= left
        }
        return index
    }

    /// Makes an open file's written data reach the disk as `mode` says before the caller renames it:
    /// fsynced (`.strict`), only written out (`.ordered`: a later fsync commits the rename), or not
    /// (`.none`). Returns errno on failure, 0 on success.
    package static func flush(_ fd: Int32, _ mode: FlushMode) -> Int32 {
        switch mode {
        case .none: return 0
        case .ordered: return writeOut(fd)
        case .strict: return fsync(fd) == 0 ? 0 : errno
        }
    }

    /// fsync of the file or folder at `path`. Returns errno on failure, 0 on success.
    package static func flush(path: String) -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        return fsync(fd) == 0 ? 0 : errno
    }
}
