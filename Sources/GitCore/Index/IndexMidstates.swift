import CFastCRC
import Glibc

/// Checkpoints of an index file's SHA-1, kept beside it (`index.cards-sha1`), so that the next
/// patch hashes only from the last checkpoint before its first change.
///
/// The checksum of a 12 MB index (100,000 cards) takes ~6.5 ms of SHA-1, which no second thread can
/// share. An edit leaves the entry count and every entry before the edited card's as they were, so
/// the state of the SHA-1 after those bytes is the one the last patch reached there: saved every
/// `interval` bytes, it lets the next edit hash only the rest (half the file on average). An add or
/// a delete changes the entry count in the header, and so every block after it: those hash whole.
///
/// A cache, never flushed and never trusted blindly: it applies only to the index whose size and
/// trailing checksum it records, and carries a CRC-32 of its own; anything else (an index written by
/// git or libgit2, a torn or stale file) is ignored and replaced after a whole hash. It is saved only
/// once the index it describes is in place. It trusts that index's bytes as the last patch wrote
/// them: an index damaged on disk since, its size and trailer intact, would get a checksum that
/// does not match its bytes (as a whole hash would not), and git would refuse it (`cards fsck
/// --repair` rewrites it).
struct IndexMidstates: Equatable {
    /// Bytes between two checkpoints (a multiple of 64).
    let interval: Int
    /// The size of the index the checkpoints are of, without its trailing checksum.
    let hashedLength: Int
    /// That index's trailing checksum.
    let checksum: [UInt8]
    /// The SHA-1 state after `(i + 1) * interval` bytes, for each i.
    let states: [SHA1.Midstate]

    /// The file beside the index at `indexPath`.
    static func path(for indexPath: String) -> String {
        indexPath + ".cards-sha1"
    }

    /// Indexes smaller than this hash in well under a millisecond: no checkpoints.
    static let minimumSize = 256 * 1024

    /// The interval for an index of `size` bytes: a power of two from 4 KiB with at most 64
    /// checkpoints (256 KiB for a 12 MB index); saved checkpoints at another interval are not used.
    static func interval(forSize size: Int) -> Int {
        var interval = 4096
        while interval < 1 << 30 && size / interval > 64 { interval *= 2 }
        return interval
    }

    private static let magic: [UInt8] = Array("CMS1".utf8)

    /// The file's bytes: magic, interval, hashed length, checksum, count, the states (five words
    /// each), all big-endian, then a CRC-32 of everything before it.
    func encoded() -> [UInt8] {
        var out = Self.magic
        out.reserveCapacity(4 + 12 + 20 + 4 + states.count * 20 + 4)
        out += BigEndian.bytes(UInt32(truncatingIfNeeded: interval))
        out += BigEndian.bytes(UInt32(truncatingIfNeeded: hashedLength >> 32))
        out += BigEndian.bytes(UInt32(truncatingIfNeeded: hashedLength))
        out += checksum
        out += BigEndian.bytes(UInt32(truncatingIfNeeded: states.count))
        for state in states {
            for word in state.words { out += BigEndian.bytes(word) }
        }
        let crc = out.withUnsafeBufferPointer { cards_crc32(0, $0.baseAddress, $0.count) }
        out += BigEndian.bytes(crc)
        return out
    }

    /// The checkpoints in `bytes` (as `encoded` writes them), or nil when anything is off.
    static func decode(_ bytes: [UInt8]) -> IndexMidstates? {
        let header = 4 + 12 + 20 + 4
        guard bytes.count >= header + 4, Array(bytes[0..<4]) == magic else { return nil }
        return bytes.withUnsafeBytes { raw -> IndexMidstates? in
            let body = raw.count - 4
            let crc = raw.baseAddress.map { cards_crc32(0, $0.assumingMemoryBound(to: UInt8.self), body) }
            guard crc == BigEndian.read32(raw, at: body) else { return nil }
            let interval = Int(BigEndian.read32(raw, at: 4))
            let hashedLength = Int(BigEndian.read32(raw, at: 8)) << 32 | Int(BigEndian.read32(raw, at: 12))
            let count = Int(BigEndian.read32(raw, at: 36))
            guard interval >= 64, interval % 64 == 0, body == header + count * 20,
                count * interval <= hashedLength
            else { return nil }
            var states: [SHA1.Midstate] = []
            states.reserveCapacity(count)
            for index in 0..<count {
                let words = (0..<5).map { BigEndian.read32(raw, at: header + index * 20 + $0 * 4) }
                guard let state = SHA1.Midstate(words: words, length: (index + 1) * interval) else { return nil }
                states.append(state)
            }
            return IndexMidstates(
                interval: interval, hashedLength: hashedLength, checksum: Array(bytes[16..<36]), states: states)
        }
    }

    /// The checkpoints saved beside `indexPath`, when they are of `index` (the index's bytes, with its
    /// checksum): the same size and trailing checksum.
    static func load(for indexPath: String, describing index: UnsafeRawBufferPointer) -> IndexMidstates? {
        guard index.count >= 20,
            let bytes = Repository.readSmallFile(path(for: indexPath), limit: 64 * 1024, followingLinks: false),
            let midstates = decode(bytes), midstates.hashedLength == index.count - 20,
            midstates.checksum.elementsEqual(index[(index.count - 20)...])
        else { return nil }
        return midstates
    }

    /// Writes the checkpoints beside `indexPath` (not flushed: a cache), through a new file renamed
    /// into place: whatever is at that name (a FIFO, a second name of another file) is replaced, never
    /// opened. A failure only costs the next patch a whole hash.
    func save(for indexPath: String) {
        let target = Self.path(for: indexPath)
        // One name for every writer (they take turns under cards.lock): what a killed one left is
        // removed here, and a mix of two could only fail the file's CRC.
        let temporary = "\(target).tmp"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard fd >= 0 else { return }
        let failure = FileSync.writeAll(fd, encoded())
        close(fd)
        if failure != 0 || rename(temporary, target) != 0 { unlink(temporary) }
    }
}
