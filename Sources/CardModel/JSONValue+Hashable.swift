extension JSONValue: Hashable {
    /// Compares two values structurally; strings and keys compare by their UTF-8 bytes.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case (.bool(let a), .bool(let b)):
            return a == b
        case (.number(let a), .number(let b)):
            return sameBytes(a, b)
        case (.string(let a), .string(let b)):
            return sameBytes(a, b)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0 == $1 }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            // Each key looked up in the other object, and the key found there compared by bytes: Swift
            // finds keys under canonical equivalence, and keys alike that way but not in bytes differ
            // here. A key with no byte-equal partner has none at all (the other object's keys are
            // pairwise not equivalent, so it holds at most one equivalent to this one).
            for (key, value) in a {
                guard let index = b.index(forKey: key) else { return false }
                let other = b[index]
                guard sameBytes(key, other.key), value == other.value else { return false }
            }
            return true
        default:
            return false
        }
    }

    /// Whether two strings are the same UTF-8 bytes (not merely canonically equivalent), compared
    /// in place: the merge compares every field of every card that changed on both sides. A loop of
    /// our own rather than `memcmp`: CardModel imports nothing but the standard library, so that it
    /// builds on every platform Swift has (a CI test keeps it so).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { left in
            b.withUTF8 { right in
                guard left.count == right.count else { return false }
                return left.elementsEqual(right)
            }
        }
    }

    /// Hashes the value consistently with `==` (by UTF-8 bytes).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let b):
            hasher.combine(1 as UInt8)
            hasher.combine(b)
        case .number(let n):
            hasher.combine(2 as UInt8)
            for byte in n.utf8 { hasher.combine(byte) }
        case .string(let s):
            hasher.combine(3 as UInt8)
            hasher.combine(s.utf8.count)
            for byte in s.utf8 { hasher.combine(byte) }
        case .array(let items):
            hasher.combine(4 as UInt8)
            hasher.combine(items.count)
            for item in items { item.hash(into: &hasher) }
        case .object(let dict):
            hasher.combine(5 as UInt8)
            hasher.combine(dict.count)
            for entry in JSONValue.sortedEntries(dict) {
                hasher.combine(entry.key.utf8.count)
                for byte in entry.key.utf8 { hasher.combine(byte) }
                entry.value.hash(into: &hasher)
            }
        }
    }

    /// The entries of an object sorted by the UTF-8 bytes of their keys: the
    /// order of the canonical encoding.
    static func sortedEntries(_ dict: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
        dict.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }
}
