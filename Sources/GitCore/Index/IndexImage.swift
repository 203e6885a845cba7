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

    /// The index checksum (SHA-1) of the file described, hashed from the checkpoint saved beside
    /// `indexPath` (`IndexMidstates`) before its first byte that differs from `original` (the index
    /// it patches) when they are that index's; and the new file's checkpoints, for the caller to save
    /// once the new file is the index (nil for a small index).
    func checksum(over original: UnsafeRawBufferPointer, indexPath: String) -> (
        digest: [UInt8], midstates: IndexMidstates?
    ) {
        let size = pieces.reduce(0) { $0 + $1.count }
        guard size >= IndexMidstates.minimumSize, SHA1.canResume else {
            return (digest(over: original, resuming: nil, interval: 0).digest, nil)
        }
        let interval = IndexMidstates.interval(forSize: size)
        let loaded = IndexMidstates.load(for: indexPath, describing: original)
        // Checkpoints at another interval (an index grown or shrunk past a power of two) are not used.
        let hashed = digest(over: original, resuming: loaded, interval: interval)
        return (hashed.digest, hashed.midstates)
    }

    /// The SHA-1 of the file described, from the last of `resuming`'s checkpoints (of `original`)
    /// that lies before the first difference from `original`, with the new file's checkpoints every
    /// `interval` bytes (none for 0, or if one could not be taken) and where the hashing started.
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
        var recording = interval > 0
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
                    // Each checkpoint in its place, or none at all: a missing one would shift the rest.
                    if recording && stop == checkpoint {
                        if let state = hasher.midstate(), state.length == stop {
                            states.append(state)
                        } else {
                            recording = false
                        }
                    }
                }
                position = end
            }
        }
        let digest = hasher.finalize()
        let midstates =
            recording
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
                let alike = RawTree.commonPrefix(
                    bytes, UnsafeRawBufferPointer(rebasing: original[position..<(position + available)]),
                    limit: available)
                if alike < bytes.count { return position + alike }
                position += bytes.count
            }
            return min(position, original.count)
        }
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
