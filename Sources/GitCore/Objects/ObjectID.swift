import CGit2

/// A git object id (SHA-1), copied out of libgit2 so it can be kept and compared freely.
///
/// Held inline as three numbers, most significant byte first (so that their order is the bytes'
/// order), not in an array: a merge at 100,000 cards makes, copies, hashes and sorts thousands of
/// ids, and an array's allocation and reference count came with each.
public struct ObjectID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Bytes 0–7, 8–15 and 16–19 of the id, read big-endian.
    private let first: UInt64
    private let second: UInt64
    private let third: UInt32

    /// The all-zero id, which git uses for "nothing".
    public static let zero = ObjectID(bytes: [UInt8](repeating: 0, count: 20))

    /// Wraps 20 raw bytes (any other count is a programming error: every id, digest and tree entry
    /// has 20).
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 20, "an object id has 20 bytes, not \(bytes.count)")
        // Laid out as the three numbers are: 8 + 8 + 4 bytes, in that order.
        var words: (UInt64, UInt64, UInt32) = (0, 0, 0)
        withUnsafeMutableBytes(of: &words) { raw in raw.copyBytes(from: bytes) }
        first = UInt64(bigEndian: words.0)
        second = UInt64(bigEndian: words.1)
        third = UInt32(bigEndian: words.2)
    }

    /// Reads the 20 bytes at `pointer`.
    init(pointer: UnsafeRawPointer) {
        first = UInt64(bigEndian: pointer.loadUnaligned(as: UInt64.self))
        second = UInt64(bigEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        third = UInt32(bigEndian: pointer.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
    }

    /// The 20 raw bytes.
    public var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 20) { buffer, count in
            if let base = buffer.baseAddress { store(to: UnsafeMutableRawPointer(base)) }
            count = 20
        }
    }

    /// Writes the 20 bytes at `pointer`.
    func store(to pointer: UnsafeMutableRawPointer) {
        pointer.storeBytes(of: first.bigEndian, as: UInt64.self)
        pointer.storeBytes(of: second.bigEndian, toByteOffset: 8, as: UInt64.self)
        pointer.storeBytes(of: third.bigEndian, toByteOffset: 16, as: UInt32.self)
    }

    /// Parses 40 hex digits; nil for anything else.
    public init?(hex: String) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 40 else { return nil }
        var result = [UInt8]()
        result.reserveCapacity(20)
        var index = 0
        while index < 40 {
            guard let high = Self.nibble(utf8[index]), let low = Self.nibble(utf8[index + 1]) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        self.init(bytes: result)
    }

    init(_ oid: git_oid) {
        var copy = oid
        self = withUnsafeBytes(of: &copy.id) { raw in raw.baseAddress.map(ObjectID.init(pointer:)) ?? ObjectID.zero }
    }

    init(_ pointer: UnsafePointer<git_oid>) {
        self.init(pointer.pointee)
    }

    var raw: git_oid {
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { buffer in
            if let base = buffer.baseAddress, buffer.count >= 20 { store(to: base) }
        }
        return oid
    }

    /// The 40 lowercase hex digits.
    public var hex: String {
        // Written straight into the string's storage from the three numbers: no array of bytes, of digits
        // or of output (a merge writes thousands of ids into its flag and message).
        String(unsafeUninitializedCapacity: 40) { buffer in
            var position = 0
            func put(_ value: UInt64, digits: Int) {
                for shift in stride(from: digits * 4 - 4, through: 0, by: -4) {
                    let nibble = UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0x0F
                    buffer[position] = nibble < 10 ? nibble + 0x30 : nibble + 0x57
                    position += 1
                }
            }
            put(first, digits: 16)
            put(second, digits: 16)
            put(UInt64(third), digits: 8)
            return position
        }
    }

    /// The first seven hex digits, as `git log --oneline` shows.
    public var short: String { String(hex.prefix(7)) }

    /// Same as `hex`.
    public var description: String { hex }

    /// Whether this is the all-zero id.
    public var isZero: Bool { first == 0 && second == 0 && third == 0 }

    /// Orders ids by their bytes, like git does.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        (lhs.first, lhs.second, lhs.third) < (rhs.first, rhs.second, rhs.third)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension ObjectID {
    /// The id git gives a blob with these bytes, computed without writing anything: for comparing
    /// content with a stored blob (a blob written is named by libgit2's write, which refuses the
    /// content of a collision attack). The zero id where libgit2 refuses to hash it.
    public static func blobHash(of bytes: [UInt8]) -> ObjectID {
        (try? hash(of: bytes, type: GIT_OBJECT_BLOB)) ?? .zero
    }

    /// The id git gives an object of `type` with these bytes, through `git_odb_hash`: libgit2's
    /// SHA-1 that looks for the patterns of a collision attack (SHA1DC), as git hashes every new
    /// object. Every object this package names goes through it, since commits and trees carry text
    /// from users and remotes (messages, file names); `hardwareHash` only checks bytes read back.
    /// Throws libgit2's error ("SHA1 collision attack detected") for bytes laid out as such an attack.
    static func hash(of bytes: [UInt8], type: git_object_t) throws(GitError) -> ObjectID {
        Libgit2.ensureInitialized()
        var oid = git_oid()
        let result = bytes.withUnsafeBytes { git_odb_hash(&oid, $0.baseAddress, $0.count, type) }
        try check(result, "git_odb_hash")
        return ObjectID(oid)
    }
}
