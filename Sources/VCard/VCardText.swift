import CardModel

/// RFC 6350's rules for the text of a vCard: escaping of text values (3.4), parameter values (3.3, with
/// RFC 6868's caret encoding), and line folding (3.2). Shared by vCard 3.0 (RFC 2426, the same rules
/// but for the caret encoding, which 3.0 readers take as it is) and 4.0.
public enum VCardText {
    /// A text value escaped: backslash, comma, semicolon and newline as `\\`, `\,`, `\;`, `\n` (RFC 6350
    /// 3.4: a comma "MUST be escaped ... even for properties that don't allow multiple instances").
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case ",": out += "\\,"
            case ";": out += "\\;"
            case "\n": out += "\\n"
            case "\r": continue
            // RFC 6350 3.3: a text value holds no control character but a tab (a deck's or an owner's name
            // written before they were checked, a file's text): left out, never written to a reader.
            case _ where scalar != "\t" && Card.isControl(scalar): continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// An escaped text value read back: `\n` and `\N` a newline, `\\`, `\,`, `\;` the character; a
    /// backslash before any other character kept, as RFC 6350 leaves it undefined and readers keep it.
    public static func unescaped(_ text: Substring) -> String {
        guard text.contains("\\") else { return String(text) }
        var out = ""
        var escaping = false
        for scalar in text.unicodeScalars {
            if escaping {
                switch scalar {
                case "n", "N": out += "\n"
                case "\\", ",", ";", ":": out.unicodeScalars.append(scalar)
                default:
                    out += "\\"
                    out.unicodeScalars.append(scalar)
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        if escaping { out += "\\" }
        return out
    }

    /// A compound value (N, ADR) split at its unescaped semicolons, each field still escaped.
    public static func fields(_ value: Substring) -> [Substring] {
        var result: [Substring] = []
        var start = value.startIndex
        var index = value.startIndex
        while index < value.endIndex {
            let character = value[index]
            if character == "\\" {
                index = value.index(after: index)
                if index < value.endIndex { index = value.index(after: index) }
                continue
            }
            if character == ";" {
                result.append(value[start..<index])
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        result.append(value[start..<value.endIndex])
        return result
    }

    /// A parameter value as written: bare when it holds only characters that need no quotes, else in
    /// double quotes, a double quote, newline and caret as `^'`, `^n`, `^^` (RFC 6868's carets, in 3.0 too:
    /// it has no other way to write them, only our own X-CARDS- parameters can hold them, and our reader
    /// undoes them).
    public static func parameterValue(_ value: String) -> String {
        let bare = value.unicodeScalars.allSatisfy {
            ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "-"
                || $0 == "_" || $0 == "." || $0 == "#" || $0 == "/" || $0 == "@" || $0 == "+"
        }
        if bare && !value.isEmpty { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "^'"
            case "\n": out += "^n"
            case "^": out += "^^"
            case "\r": continue
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A parameter value read back: quotes removed, RFC 6868's `^'`, `^n`, `^^` decoded (a caret before
    /// anything else kept, as the RFC says).
    public static func parameterValueRead(_ raw: Substring) -> String {
        var text = raw
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        guard text.contains("^") else { return String(text) }
        var out = ""
        var caret = false
        for scalar in text.unicodeScalars {
            if caret {
                switch scalar {
                case "'": out += "\""
                case "n": out += "\n"
                case "^": out += "^"
                default:
                    out += "^"
                    out.unicodeScalars.append(scalar)
                }
                caret = false
            } else if scalar == "^" {
                caret = true
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        if caret { out += "^" }
        return out
    }

    /// Appends `line` folded as RFC 6350 3.2 says: no physical line longer than 75 octets without its
    /// CRLF, a continuation starting with one space, and a multi-octet UTF-8 character never split.
    public static func appendFolded(_ line: String, to out: inout [UInt8]) {
        var octets = 0
        var limit = 75
        var utf8 = line.utf8.makeIterator()
        var pending: UInt8? = utf8.next()
        while let byte = pending {
            // The length of the character this byte starts (a continuation byte never starts one here).
            let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
            if octets + length > limit {
                out.append(13)
                out.append(10)
                out.append(32)
                octets = 0
                limit = 74  // the leading space counts toward the 75
            }
            out.append(byte)
            for _ in 1..<length {
                guard let next = utf8.next() else { break }
                out.append(next)
            }
            octets += length
            pending = utf8.next()
        }
        out.append(13)
        out.append(10)
    }
}
