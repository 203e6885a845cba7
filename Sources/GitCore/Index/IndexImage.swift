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

    /// The index checksum (SHA-1) of the file described, its pieces hashed where they lie (`original`
    /// is the index it patches).
    func checksum(over original: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA1.Hasher()
        withVectors(over: original) { vectors in
            for vector in vectors {
                hasher.update(UnsafeRawBufferPointer(start: vector.iov_base, count: vector.iov_len))
            }
        }
        return hasher.finalize()
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
