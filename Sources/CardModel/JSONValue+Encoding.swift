extension JSONValue {
    /// The canonical encoding of a card file (the README's "The deck on disk").
    ///
    /// Keys sorted by their UTF-8 bytes, two-space indent, one member or element
    /// per line, `": "` between key and value, `/` and non-ASCII written as they
    /// are, only `"`, `\` and U+0000–U+001F escaped (`\b \f \n \r \t`, else
    /// `\u00xx`), empty containers as `{}` and `[]`, no trailing spaces, and a
    /// final newline. The same value gives the same bytes on every machine, so a
    /// card is the same git blob everywhere.
    public func canonicalBytes() -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out, indent: 0)
        out.append(0x0A)
        return out
    }

    /// The canonical encoding without the final newline: for comparing and
    /// ordering nested values.
    public func canonicalText() -> String {
        var out: [UInt8] = []
        write(into: &out, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// This value as an element of a canonical array: what `canonicalBytes()` of an array writes
    /// for it (two spaces of indent, then the value indented one level), without a comma or newline.
    /// Elements made apart, on several threads, join with `canonicalArray(elements:)`.
    public func canonicalArrayElement() -> [UInt8] {
        var out: [UInt8] = [0x20, 0x20]
        write(into: &out, indent: 2)
        return out
    }

    /// The canonical bytes of an array whose elements are already encoded by
    /// `canonicalArrayElement()`: the same bytes as `JSONValue.array(values).canonicalBytes()`.
    public static func canonicalArray(elements: [[UInt8]]) -> [UInt8] {
        guard !elements.isEmpty else { return Array("[]\n".utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(elements.reduce(4) { $0 + $1.count + 2 })
        out.append(contentsOf: "[\n".utf8)
        for (index, element) in elements.enumerated() {
            out.append(contentsOf: element)
            if index < elements.count - 1 { out.append(UInt8(ascii: ",")) }
            out.append(0x0A)
        }
        out.append(contentsOf: "]\n".utf8)
        return out
    }

    private func write(into out: inout [UInt8], indent: Int) {
        switch self {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let b):
            out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n):
            out.append(contentsOf: n.utf8)
        case .string(let s):
            JSONValue.writeString(s, into: &out)
        case .array(let items):
            guard !items.isEmpty else {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(contentsOf: "[\n".utf8)
            for (index, item) in items.enumerated() {
                out.append(contentsOf: repeatElement(0x20, count: indent + 2))
                item.write(into: &out, indent: indent + 2)
                if index < items.count - 1 { out.append(UInt8(ascii: ",")) }
                out.append(0x0A)
            }
            out.append(contentsOf: repeatElement(0x20, count: indent))
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(contentsOf: "{\n".utf8)
            let entries = JSONValue.sortedEntries(members)
            for (index, entry) in entries.enumerated() {
                out.append(contentsOf: repeatElement(0x20, count: indent + 2))
                JSONValue.writeString(entry.key, into: &out)
                out.append(contentsOf: ": ".utf8)
                entry.value.write(into: &out, indent: indent + 2)
                if index < entries.count - 1 { out.append(UInt8(ascii: ",")) }
                out.append(0x0A)
            }
            out.append(contentsOf: repeatElement(0x20, count: indent))
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: their bytes go in one copy (exporting 100,000 cards spent
        // most of its encoding time appending byte by byte).
        let needsEscape = { (byte: UInt8) in byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") }
        // Over the string's own bytes when they lie in one piece (the UTF-8 view's iterator is ~5x slower).
        let escaping = s.utf8.withContiguousStorageIfAvailable { $0.contains(where: needsEscape) }
        guard escaping ?? s.utf8.contains(where: needsEscape) else {
            out.append(contentsOf: s.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        let hex = Array("0123456789abcdef".utf8)
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x08: out.append(contentsOf: "\\b".utf8)
            case 0x0C: out.append(contentsOf: "\\f".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0x00..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
