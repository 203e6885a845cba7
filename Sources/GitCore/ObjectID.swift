import CGit2

/// A git object id (SHA-1), copied out of libgit2 so it can be kept and compared freely.
public struct ObjectID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 20 raw bytes.
    public let bytes: [UInt8]

    /// The all-zero id, which git uses for "nothing".
    public static let zero = ObjectID(bytes: [UInt8](repeating: 0, count: 20))

    /// Wraps 20 raw bytes.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
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
        bytes = result
    }

    init(_ oid: git_oid) {
        var copy = oid
        bytes = withUnsafeBytes(of: &copy.id) { Array($0) }
    }

    init(_ pointer: UnsafePointer<git_oid>) {
        self.init(pointer.pointee)
    }

    var raw: git_oid {
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { buffer in
            for (index, byte) in bytes.enumerated() where index < buffer.count { buffer[index] = byte }
        }
        return oid
    }

    /// The 40 lowercase hex digits.
    public var hex: String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(40)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The first seven hex digits, as `git log --oneline` shows.
    public var short: String { String(hex.prefix(7)) }

    /// Same as `hex`.
    public var description: String { hex }

    /// Whether this is the all-zero id.
    public var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    /// Orders ids by their bytes, like git does.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
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
    /// The id git gives a blob with these bytes, computed without writing anything.
    public static func blobHash(of bytes: [UInt8]) -> ObjectID {
        Libgit2.ensureInitialized()
        var oid = git_oid()
        let result = bytes.withUnsafeBytes { buffer in
            git_odb_hash(&oid, buffer.baseAddress, buffer.count, GIT_OBJECT_BLOB)
        }
        if result != 0 { git_error_clear() }
        return ObjectID(oid)
    }
}
