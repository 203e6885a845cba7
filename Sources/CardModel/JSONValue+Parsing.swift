extension JSONValue {
    /// Parses strict RFC 8259 JSON.
    ///
    /// Rejects invalid UTF-8, a byte-order mark, duplicate object keys, lone
    /// surrogate escapes, nesting deeper than `maxDepth` containers and anything
    /// after the value. The parser keeps its own stack instead of recursing, so
    /// no input can exhaust the call stack while parsing. Encoding, comparing
    /// and releasing a value do recurse, one level per container, so keep
    /// `maxDepth` modest (cards use the default 64).
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 text.
    ///   - maxDepth: The deepest nesting of arrays and objects allowed.
    /// - Complexity: O(*n*) in the length of `bytes`.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        try parse(Array(bytes), maxDepth: maxDepth)
    }

    /// Parses strict RFC 8259 JSON held in an array: `parse(_:maxDepth:)` without generic code (a
    /// caller in another module reaches a generic function unspecialized).
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        return try parser.parseDocument()
    }
}

/// One open array or object while parsing.
private struct OpenContainer {
    var isObject: Bool
    var items: [JSONValue] = []
    var members: [String: JSONValue] = [:]
    /// The key whose value is being parsed (objects only).
    var pendingKey = ""
}

/// The state of one parse: the input and the read position.
private struct JSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var pos = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw error("a byte-order mark is not allowed; save the file as UTF-8 without BOM", at: 0)
        }
        let value = try parseValue()
        skipWhitespace()
        if pos < bytes.count {
            throw error("unexpected \(describeByte(at: pos)) after the end of the JSON value", at: pos)
        }
        return value
    }

    /// Parses one value with an explicit stack of open containers.
    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        var stack: [OpenContainer] = []
        while true {
            skipWhitespace()
            guard pos < bytes.count else {
                throw error("unexpected end of input, expected a value", at: pos)
            }
            var value: JSONValue
            switch bytes[pos] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[pos] == UInt8(ascii: "{")
                if stack.count >= maxDepth {
                    throw error("nesting is deeper than the limit of \(maxDepth) arrays and objects", at: pos)
                }
                pos += 1
                skipWhitespace()
                let close = UInt8(ascii: isObject ? "}" : "]")
                if pos < bytes.count, bytes[pos] == close {
                    pos += 1
                    value = isObject ? .object([:]) : .array([])
                } else {
                    var container = OpenContainer(isObject: isObject)
                    // A card has about eight fields: room for them at once spares three rehashes.
                    if isObject && stack.isEmpty { container.members.reserveCapacity(8) }
                    if isObject {
                        container.pendingKey = try parseKey(existing: container.members)
                    }
                    stack.append(container)
                    continue
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            default:
                throw error("unexpected \(describeByte(at: pos)), expected a value", at: pos)
            }

            // Attach the finished value to its parents, closing every container
            // that ends here; stop at the first that continues with a comma.
            while true {
                guard !stack.isEmpty else { return value }
                let top = stack.count - 1
                skipWhitespace()
                if stack[top].isObject {
                    stack[top].members[stack[top].pendingKey] = value
                } else {
                    stack[top].items.append(value)
                }
                guard pos < bytes.count else {
                    let closer = stack[top].isObject ? "}" : "]"
                    throw error("unexpected end of input, expected ',' or '\(closer)'", at: pos)
                }
                let byte = bytes[pos]
                if byte == UInt8(ascii: ",") {
                    pos += 1
                    if stack[top].isObject {
                        skipWhitespace()
                        stack[top].pendingKey = try parseKey(existing: stack[top].members)
                    }
                    break
                }
                let closer = UInt8(ascii: stack[top].isObject ? "}" : "]")
                guard byte == closer else {
                    throw error(
                        "unexpected \(describeByte(at: pos)), expected ',' or '\(Character(Unicode.Scalar(closer)))'",
                        at: pos)
                }
                pos += 1
                let finished = stack.removeLast()
                value = finished.isObject ? .object(finished.members) : .array(finished.items)
            }
        }
    }

    /// Parses `"key" :` and refuses a key already present in the object.
    mutating func parseKey(existing: [String: JSONValue]) throws(JSONParseError) -> String {
        skipWhitespace()
        let start = pos
        guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else {
            throw error("expected a string key in double quotes, found \(describeByte(at: pos))", at: pos)
        }
        let key = try parseString()
        // Swift compares keys by canonical equivalence, so two keys that differ
        // only in Unicode normalization also count as duplicates: refusing them
        // is safer than silently keeping one.
        if existing[key] != nil {
            throw error("duplicate key \"\(key)\" in an object; keep only one", at: start)
        }
        skipWhitespace()
        guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else {
            throw error("expected ':' after the key \"\(key)\", found \(describeByte(at: pos))", at: pos)
        }
        pos += 1
        return key
    }

    mutating func parseString() throws(JSONParseError) -> String {
        pos += 1  // the opening quote
        let start = pos
        // Most strings have no escape: check them in place and make the String straight from the
        // input, with no buffer. At the first escape or control character the loop below takes over
        // from the same position, so errors are found and worded exactly as there.
        while pos < bytes.count {
            let byte = bytes[pos]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: bytes[start..<pos], as: UTF8.self)
                pos += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte < 0x80 {
                pos += 1
            } else {
                pos += try validUTF8SequenceLength()
            }
        }
        var buffer = Array(bytes[start..<pos])
        while true {
            guard pos < bytes.count else {
                throw error("unterminated string, expected '\"'", at: pos)
            }
            let byte = bytes[pos]
            switch byte {
            case UInt8(ascii: "\""):
                pos += 1
                return String(decoding: buffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case 0x00..<0x20:
                throw error("control character \(hexScalar(UInt32(byte))) in a string must be escaped", at: pos)
            case 0x20..<0x80:
                buffer.append(byte)
                pos += 1
            default:
                try copyUTF8Sequence(into: &buffer)
            }
        }
    }

    /// Validates one multi-byte UTF-8 sequence (no overlong forms, no encoded
    /// surrogates, nothing above U+10FFFF) and copies it.
    mutating func copyUTF8Sequence(into buffer: inout [UInt8]) throws(JSONParseError) {
        let length = try validUTF8SequenceLength()
        buffer.append(contentsOf: bytes[pos..<(pos + length)])
        pos += length
    }

    /// The length of the valid multi-byte UTF-8 sequence at `pos` (no overlong forms, no encoded
    /// surrogates, nothing above U+10FFFF); does not move `pos`.
    func validUTF8SequenceLength() throws(JSONParseError) -> Int {
        let start = pos
        let lead = bytes[pos]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default:
            throw error("invalid UTF-8 byte 0x\(hexByte(lead)); the file must be UTF-8", at: start)
        }
        guard start + length <= bytes.count else {
            throw error("truncated UTF-8 sequence; the file must be UTF-8", at: start)
        }
        for index in 1..<length {
            let range = index == 1 ? secondRange : 0x80...0xBF
            guard range.contains(bytes[start + index]) else {
                throw error("invalid UTF-8 sequence; the file must be UTF-8", at: start)
            }
        }
        return length
    }

    mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONParseError) {
        let start = pos
        pos += 1
        guard pos < bytes.count else {
            throw error("unterminated escape sequence", at: start)
        }
        let byte = bytes[pos]
        pos += 1
        switch byte {
        case UInt8(ascii: "\""): buffer.append(0x22)
        case UInt8(ascii: "\\"): buffer.append(0x5C)
        case UInt8(ascii: "/"): buffer.append(0x2F)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4(escapeStart: start)
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u")
                else {
                    throw error("lone surrogate \\u\(hex4(unit)) (a high surrogate without its low half)", at: start)
                }
                let lowStart = pos
                pos += 2
                let low = try parseHex4(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error(
                        "lone surrogate \\u\(hex4(unit)) (followed by \\u\(hex4(low)), not a low surrogate)", at: start)
                }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw error("lone surrogate \\u\(hex4(unit)) (a low surrogate without its high half)", at: start)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else {
                throw error("invalid escaped code point", at: start)
            }
            buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            throw error("invalid escape sequence '\\\(describeRaw(byte))'", at: start)
        }
    }

    mutating func parseHex4(escapeStart: Int) throws(JSONParseError) -> UInt16 {
        // pos is just after the "u".
        guard pos + 4 <= bytes.count else {
            throw error("\\u must be followed by four hex digits", at: escapeStart)
        }
        var value: UInt16 = 0
        for byte in bytes[pos..<(pos + 4)] {
            guard let digit = hexDigitValue(byte) else {
                throw error("\\u must be followed by four hex digits", at: escapeStart)
            }
            value = value << 4 | UInt16(digit)
        }
        pos += 4
        return value
    }

    /// Checks the number grammar `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    /// and returns its text.
    mutating func parseNumber() throws(JSONParseError) -> String {
        let start = pos
        func isDigit(_ index: Int) -> Bool {
            index < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
        }
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        guard isDigit(pos) else {
            throw error("invalid number: expected a digit", at: pos)
        }
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
            if isDigit(pos) {
                throw error("invalid number: leading zeros are not allowed", at: start)
            }
        } else {
            while isDigit(pos) { pos += 1 }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
            pos += 1
            guard isDigit(pos) else {
                throw error("invalid number: expected a digit after '.'", at: pos)
            }
            while isDigit(pos) { pos += 1 }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            pos += 1
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") {
                pos += 1
            }
            guard isDigit(pos) else {
                throw error("invalid number: expected a digit in the exponent", at: pos)
            }
            while isDigit(pos) { pos += 1 }
        }
        return String(decoding: bytes[start..<pos], as: UTF8.self)
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let text = literal.withUTF8Buffer { Array($0) }
        guard pos + text.count <= bytes.count, bytes[pos..<(pos + text.count)].elementsEqual(text) else {
            throw error("unexpected \(describeByte(at: pos)), expected a value", at: pos)
        }
        pos += text.count
    }

    mutating func skipWhitespace() {
        while pos < bytes.count {
            switch bytes[pos] {
            case 0x20, 0x09, 0x0A, 0x0D: pos += 1
            default: return
            }
        }
    }

    // MARK: Messages

    func error(_ what: String, at offset: Int) -> JSONParseError {
        let (line, column) = lineAndColumn(of: offset)
        return JSONParseError(problem: what, offset: offset, line: line, column: column)
    }

    /// One-based line and column; the column counts characters (UTF-8 lead bytes), not bytes.
    func lineAndColumn(of offset: Int) -> (Int, Int) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    func describeByte(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        return "character " + describeRaw(bytes[offset])
    }

    func describeRaw(_ byte: UInt8) -> String {
        if (0x21..<0x7F).contains(byte) {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        return "byte 0x\(hexByte(byte))"
    }
}

private func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}

private func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}

private func hex4(_ unit: UInt16) -> String {
    hexByte(UInt8(unit >> 8)) + hexByte(UInt8(unit & 0xFF))
}

/// `U+0009`-style name of a code point.
func hexScalar(_ value: UInt32) -> String {
    var text = String(value, radix: 16, uppercase: true)
    while text.count < 4 { text = "0" + text }
    return "U+" + text
}
