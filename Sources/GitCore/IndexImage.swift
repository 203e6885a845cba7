import Glibc

/// A file described as pieces in order: byte ranges of an original file (mapped, never copied) and
/// bytes of its own (new entries, smudged fields, the header, rewritten extensions, the checksum).
///
/// The index patch rewrites a 12 MB index to change one entry: as pieces, the unchanged runs go from
/// the mapping of the old file straight to `SHA1.Hasher` and `writev`, with no copy into a new buffer
/// (and no page faults on one). Adjacent pieces of the same kind are merged as they are added.
struct IndexImage {
    /// One run of bytes of the new file.
    enum Piece: Equatable {
        /// Bytes of the original file.
        case original(Range<Int>)
        /// Bytes of `added`.
        case added(Range<Int>)
    }

    /// The pieces, in file order.
    private(set) var pieces: [Piece] = []
    /// The bytes of every `.added` piece.
    private(set) var added: [UInt8] = []

    /// Adds bytes `range` of the original file.
    mutating func copy(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        if case .original(let last) = pieces.last, last.upperBound == range.lowerBound {
            pieces[pieces.count - 1] = .original(last.lowerBound..<range.upperBound)
        } else {
            pieces.append(.original(range))
        }
    }

    /// Adds bytes of its own.
    mutating func append(contentsOf bytes: some Collection<UInt8>) {
        guard !bytes.isEmpty else { return }
        let start = added.count
        added.append(contentsOf: bytes)
        if case .added(let last) = pieces.last, last.upperBound == start {
            pieces[pieces.count - 1] = .added(last.lowerBound..<added.count)
        } else {
            pieces.append(.added(start..<added.count))
        }
    }

    /// Adds `value` as 4 big-endian bytes.
    mutating func append32(_ value: UInt32) {
        append(contentsOf: BigEndian.bytes(value))
    }

    /// Overwrites 4 bytes of its own at `offset` of `added` with `value`, big-endian (the header's
    /// entry count, known only once every entry is placed).
    mutating func set32(_ value: UInt32, atAdded offset: Int) {
        added.replaceSubrange(offset..<offset + 4, with: BigEndian.bytes(value))
    }

    /// Calls `body` with one `iovec` per piece, pointing into `original` (the file the `.original`
    /// ranges are of) and into `added`; the pointers are valid only inside `body`.
    func withVectors<Result>(
        over original: UnsafeRawBufferPointer, _ body: (UnsafeMutableBufferPointer<iovec>) -> Result
    ) -> Result {
        added.withUnsafeBytes { own in
            var vectors = pieces.map { piece -> iovec in
                let bytes: UnsafeRawBufferPointer
                switch piece {
                case .original(let range): bytes = UnsafeRawBufferPointer(rebasing: original[range])
                case .added(let range): bytes = UnsafeRawBufferPointer(rebasing: own[range])
                }
                return iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
            }
            return vectors.withUnsafeMutableBufferPointer { body($0) }
        }
    }

    /// The SHA-1 of the file described (git's trailing checksum), fed piece by piece.
    func digest(over original: UnsafeRawBufferPointer) -> [UInt8] {
        digest(over: original, resuming: nil, interval: 0).digest
    }

    /// The index checksum of the file described, as `digest(over:)`, hashed from the checkpoint saved
    /// beside `indexPath` (`IndexMidstates`) before its first byte that differs from `original`
    /// (the index it patches) when that index is the one they are of; saves the new file's
    /// checkpoints there for the next patch.
    func checksum(over original: UnsafeRawBufferPointer, indexPath: String) -> [UInt8] {
        let size = pieces.reduce(0) { $0 + $1.count }
        guard size >= IndexMidstates.minimumSize, SHA1.canResume else { return digest(over: original) }
        let loaded = IndexMidstates.load(for: indexPath, describing: original)
        let hashed = digest(
            over: original, resuming: loaded, interval: loaded?.interval ?? IndexMidstates.interval(forSize: size))
        hashed.midstates?.save(for: indexPath)
        return hashed.digest
    }

    /// The SHA-1 of the file described, from the last of `resuming`'s checkpoints (of `original`)
    /// that lies before the first difference from `original`, with the new file's checkpoints every
    /// `interval` bytes (none for 0) and where the hashing started.
    func digest(over original: UnsafeRawBufferPointer, resuming: IndexMidstates?, interval: Int) -> (
        digest: [UInt8], midstates: IndexMidstates?, resumedAt: Int
    ) {
        var hasher = SHA1.Hasher()
        var states: [SHA1.Midstate] = []
        var start = 0
        if let resuming, resuming.interval == interval, interval > 0 {
            let usable = min(firstDifference(from: original), resuming.hashedLength) / interval
            let kept = min(usable, resuming.states.count)
            if kept > 0 {
                hasher = SHA1.Hasher(resuming: resuming.states[kept - 1])
                states = Array(resuming.states[0..<kept])
                start = kept * interval
            }
        }
        var position = 0
        withVectors(over: original) { vectors in
            for vector in vectors {
                let bytes = UnsafeRawBufferPointer(start: vector.iov_base, count: vector.iov_len)
                let end = position + bytes.count
                var offset = max(start, position)
                while offset < end {
                    let checkpoint = interval > 0 ? (offset / interval + 1) * interval : end
                    let stop = min(end, checkpoint)
                    hasher.update(UnsafeRawBufferPointer(rebasing: bytes[(offset - position)..<(stop - position)]))
                    offset = stop
                    if stop == checkpoint, interval > 0, let state = hasher.midstate() { states.append(state) }
                }
                position = end
            }
        }
        let digest = hasher.finalize()
        let midstates =
            interval > 0
            ? IndexMidstates(interval: interval, hashedLength: position, checksum: digest, states: states) : nil
        return (digest, midstates, start)
    }

    /// The offset of the first byte of the file described that differs from `original` at the same
    /// offset (the shorter one's length when one begins the other).
    func firstDifference(from original: UnsafeRawBufferPointer) -> Int {
        var position = 0
        return added.withUnsafeBytes { own in
            for piece in pieces {
                let bytes: UnsafeRawBufferPointer
                switch piece {
                case .original(let range):
                    // The same bytes at the same place: nothing to compare.
                    if range.lowerBound == position {
                        position += range.count
                        continue
                    }
                    bytes = UnsafeRawBufferPointer(rebasing: original[range])
                case .added(let range):
                    bytes = UnsafeRawBufferPointer(rebasing: own[range])
                }
                let available = max(0, min(bytes.count, original.count - position))
                let alike = Self.commonPrefix(
                    bytes, UnsafeRawBufferPointer(rebasing: original[position..<(position + available)]))
                if alike < bytes.count { return position + alike }
                position += bytes.count
            }
            return min(position, original.count)
        }
    }

    /// How many bytes `a` and `b` begin with alike (compared 256 at a time, then one by one).
    private static func commonPrefix(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let length = min(a.count, b.count)
        guard length > 0, let left = a.baseAddress, let right = b.baseAddress else { return 0 }
        var offset = 0
        while offset + 256 <= length && memcmp(left + offset, right + offset, 256) == 0 { offset += 256 }
        while offset < length && a[offset] == b[offset] { offset += 1 }
        return offset
    }
}

extension IndexImage.Piece {
    /// How many bytes the piece holds.
    var count: Int {
        switch self {
        case .original(let range), .added(let range): return range.count
        }
    }
}
