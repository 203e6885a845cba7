import CGit2
import Glibc

/// The index a patch replaced, kept beside the index (`index.cards-spare`) so that the next patch
/// rewrites it in place, only the pages whose bytes change, and swaps it with the index in one step.
///
/// Writing a new 12 MB index (100,000 cards) costs more than hashing it: fresh page-cache pages, an
/// fsync of all 12 MB, and freeing the replaced file's blocks (a synchronous discard on a file system
/// mounted with `discard`). In place, an edit dirties a few pages and an add or a delete the half of
/// the file after its entry; measured on this project's VM, write, fsync and rename of 12 MB took
/// ~11 ms against ~0.7 ms for two pages and ~3.2 ms for half the file with the swap.
///
/// A reader of the index (git, libgit2) that opened it before it was replaced may still be reading
/// the spare: the spare is only rewritten under a write lease (`F_SETLEASE`), which the kernel grants
/// only while no other open file or mapping of it exists, in any process. Otherwise, and wherever
/// leases or `RENAME_EXCHANGE` are missing, and when nothing is flushed (`FlushMode.none`: a crash
/// could then leave the index's name on a half-rewritten file), the index is written whole as before.
///
/// Before the spare is rewritten, the folder holding it is flushed: the rename or swap that made it
/// the spare must be on disk first, or a power cut could give the index's name back to the file
/// being rewritten. Only one writer at a time may use the spare: every caller holds the deck's
/// lock (`cards.lock`), and a swap also holds `index.lock`.
enum IndexSpare {
    /// Below this index size a whole rewrite is cheap: no spare is kept or used.
    static let minimumSize = 256 * 1024

    /// The bytes compared, and written when they differ, at a time: a page.
    static let page = 4096

    /// The spare's path beside the index at `indexPath`.
    static func path(for indexPath: String) -> String {
        indexPath + ".cards-spare"
    }

    /// Rewrites the spare to hold the new index (`vectors`, then `checksum()`), flushed as `flush`
    /// says, and swaps it with the index at `indexPath`; the caller holds `index.lock`. True when the
    /// index now holds the new bytes (and the spare the replaced index); false when the spare could
    /// not be used, with the index untouched (the spare may then hold anything: it is compared, never
    /// trusted).
    static func write(
        _ vectors: UnsafeMutableBufferPointer<iovec>, checksum: () -> [UInt8], indexPath: String, flush: FlushMode
    ) -> Bool {
        prepare(vectors, checksum: checksum, indexPath: indexPath, flush: flush) != nil && exchange(indexPath)
    }

    /// Swaps the spare with the index at `indexPath` (`RENAME_EXCHANGE`); false where that is missing.
    static func exchange(_ indexPath: String) -> Bool {
        cgit2_exchange(path(for: indexPath), indexPath) == 0
    }

    /// `write` without the swap: the spare holds the new index, flushed as `flush` says, and its
    /// identity (`IndexPatch.identity(of:)`) is returned; nil when it could not be used.
    static func prepare(
        _ vectors: UnsafeMutableBufferPointer<iovec>, checksum: () -> [UInt8], indexPath: String, flush: FlushMode
    ) -> [Int]? {
        guard flush != .none else { return nil }
        let sparePath = path(for: indexPath)
        // Non-blocking: another program's lease on the file (a file server's, an indexer's) refuses
        // the open instead of holding it, and index.lock with it, until that lease is broken.
        let fd = open(sparePath, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // No reader of the index from before it was replaced may still have it open or mapped.
        guard cgit2_write_lease(fd, 1) == 0 else { return nil }
        var leased = true
        defer { if leased { _ = cgit2_write_lease(fd, 0) } }
        var spare = stat()
        var index = stat()
        guard fstat(fd, &spare) == 0, stat(indexPath, &index) == 0, (spare.st_mode & S_IFMT) == S_IFREG else {
            return nil
        }
        // A spare that is the index under a second name (a retirement cut short after its link) must
        // never be written in place: removed, for the next whole write to retire the index afresh.
        guard spare.st_nlink == 1, spare.st_ino != index.st_ino || spare.st_dev != index.st_dev else {
            unlink(sparePath)
            return nil
        }
        // The rename or swap that made this file the spare, on disk before the file is rewritten.
        guard Repository.flushFolder(of: indexPath) == 0 else { return nil }
        let oldSize = Int(spare.st_size)
        let total = vectors.reduce(0) { $0 + $1.iov_len }
        var old = UnsafeRawBufferPointer(start: nil, count: 0)
        if oldSize > 0 {
            guard let mapped = mmap(nil, oldSize, PROT_READ, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
                return nil
            }
            old = UnsafeRawBufferPointer(start: mapped, count: oldSize)
        }
        defer { if let base = old.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), oldSize) } }
        for run in differingPages(vectors, from: old) {
            guard write(vectors, range: run, to: fd) else { return nil }
        }
        let digest = checksum()
        guard pwriteAll(fd, digest, at: total) else { return nil }
        // Released first, so that the truncation never waits on a lease break; only our own commands
        // open the spare by name, one at a time.
        _ = cgit2_write_lease(fd, 0)
        leased = false
        if oldSize > total + digest.count && ftruncate(fd, off_t(total + digest.count)) != 0 { return nil }
        guard FileSync.flush(fd, flush) == 0, fstat(fd, &spare) == 0 else { return nil }
        return IndexPatch.identity(spare)
    }

    /// Renames the finished `lockPath` over the index; the index it replaces is kept as the spare
    /// (linked under the spare's name first: a crash between the two steps leaves both names on the
    /// old index, which `write` then declines) when there is no spare yet, the index is big enough and
    /// writes are flushed (`prepare` never uses a spare otherwise). Returns errno, or 0.
    static func replaceKeepingSpare(_ lockPath: String, over indexPath: String, size: Int, flush: FlushMode) -> Int32 {
        let sparePath = path(for: indexPath)
        var existing = stat()
        if size >= minimumSize && flush != .none && lstat(sparePath, &existing) != 0 && errno == ENOENT {
            // Where hard links are missing the index is replaced as before, without a spare.
            _ = link(indexPath, sparePath)
        }
        return rename(lockPath, indexPath) == 0 ? 0 : errno
    }

    /// The runs of whole pages (the last one cut at the end) where the bytes `vectors` describe differ
    /// from `old`, or lie past its end, in order.
    static func differingPages(_ vectors: UnsafeMutableBufferPointer<iovec>, from old: UnsafeRawBufferPointer)
        -> [Range<Int>]
    {
        var runs: [Range<Int>] = []
        var vector = 0
        var vectorStart = 0
        var position = 0
        var pageStart = 0
        var differs = false
        func endPage() {
            if differs {
                if let last = runs.last, last.upperBound == pageStart {
                    runs[runs.count - 1] = last.lowerBound..<position
                } else {
                    runs.append(pageStart..<position)
                }
            }
            pageStart = position
            differs = false
        }
        while vector < vectors.count {
            let length = vectors[vector].iov_len
            // Only an empty buffer may have no address (`IndexImage.withVectors` points into arrays
            // and the mapped index); either is passed over once its bytes are done.
            guard position < vectorStart + length, let base = vectors[vector].iov_base else {
                vectorStart += length
                vector += 1
                continue
            }
            let count = min(vectorStart + length, pageStart + page) - position
            if !differs {
                if position + count > old.count {
                    differs = true
                } else if let oldBase = old.baseAddress {
                    differs = memcmp(base + (position - vectorStart), oldBase + position, count) != 0
                }
            }
            position += count
            if position == pageStart + page { endPage() }
        }
        if position > pageStart { endPage() }
        return runs
    }

    /// Writes the bytes of `range` of the file `vectors` describes at their offsets in `fd`.
    private static func write(_ vectors: UnsafeMutableBufferPointer<iovec>, range: Range<Int>, to fd: Int32) -> Bool {
        var vectorStart = 0
        for vector in vectors {
            defer { vectorStart += vector.iov_len }
            let start = max(range.lowerBound, vectorStart)
            let end = min(range.upperBound, vectorStart + vector.iov_len)
            guard start < end, let base = vector.iov_base else { continue }
            let bytes = UnsafeRawBufferPointer(start: base + (start - vectorStart), count: end - start)
            guard pwriteAll(fd, bytes, at: start) else { return false }
        }
        return true
    }

    /// `pwrite` of all of `bytes` at `offset`, retrying after signals and short writes.
    private static func pwriteAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        var done = 0
        while done < bytes.count {
            let written = pwrite(fd, bytes.baseAddress.map { $0 + done }, bytes.count - done, off_t(offset + done))
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            done += written
        }
        return true
    }

    private static func pwriteAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int) -> Bool {
        bytes.withUnsafeBytes { pwriteAll(fd, $0, at: offset) }
    }
}
