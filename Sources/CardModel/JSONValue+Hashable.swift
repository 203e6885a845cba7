extension JSONValue: Hashable {
    /// Compares two values structurally; strings and keys compare by their UTF-8 bytes.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case (.bool(let a), .bool(let b)):
            return a == b
        case (.number(let a), .number(let b)):
            return a.utf8.elementsEqual(b.utf8)
        case (.string(let a), .string(let b)):
            return a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0 == $1 }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            // Sorted by bytes on both sides, so keys that Swift would call equal
            // under canonical equivalence but that differ in bytes are told apart.
            let left = JSONValue.sortedEntries(a)
            let right = JSONValue.sortedEntries(b)
            return zip(left, right).allSatisfy { l, r in
                l.key.utf8.elementsEqual(r.key.utf8) && l.value == r.value
            }
        default:
            return false
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
