/// One content line of a vCard, unfolded: `[group.]NAME;PARAM=value…:value`.
public struct VCardProperty: Sendable {
    /// The property name, uppercased (`SOCIALPROFILE`); the group prefix dropped.
    public var name: String
    /// The parameters, names uppercased, values read (quotes and RFC 6868 carets undone), a
    /// comma-separated list split into its values; a 3.0 bare parameter (`TEL;WORK:`) is a TYPE.
    public var parameters: [(name: String, values: [String])]
    /// The value as written (still escaped).
    public var value: Substring
    /// The physical line (from 1) it starts on.
    public var line: Int

    /// The first value of parameter `name` (uppercase), or nil.
    public func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.values.first
    }
}

/// One `BEGIN:VCARD … END:VCARD` of a file.
public struct VCardContact: Sendable {
    /// The VERSION it declares (`3.0`, `4.0`).
    public var version: String
    /// Its properties in file order (BEGIN, END and VERSION left out).
    public var properties: [VCardProperty]
    /// The line of its BEGIN.
    public var line: Int
}

/// Why a vCard file is refused: the physical line (from 1) and what is wrong there.
public struct VCardError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The line at fault.
    public var line: Int
    /// What is wrong, in words.
    public var message: String

    /// `line N: message`.
    public var description: String { "line \(line): \(message)" }
}

/// Reads vCard 3.0 and 4.0 files (RFC 2426, RFC 6350): unfolds lines (CRLF or LF, then a space or
/// tab), checks each is UTF-8 and well formed, and splits it into name, parameters and value. Refuses
/// a malformed file naming its first bad line; bounded in what it keeps, so a hostile file costs at
/// most its size.
public enum VCardReader {
    /// The longest unfolded line read (a vCard's embedded photo is the usual long one).
    public static let maximumLineLength = 1 << 20

    /// Every vCard of `bytes`.
    public static func contacts(_ bytes: [UInt8]) throws(VCardError) -> [VCardContact] {
        var contacts: [VCardContact] = []
        var current: VCardContact?
        var sawAny = false
        var failure: VCardError?
        forEachLogicalLine(bytes) { raw, line in
            if failure != nil { return false }
            if raw.count > maximumLineLength {
                failure = VCardError(line: line, message: "a line longer than \(maximumLineLength) bytes")
                return false
            }
            if raw.isEmpty || raw.allSatisfy({ $0 == 32 || $0 == 9 }) { return true }
            guard let text = String(validating: raw, as: UTF8.self) else {
                failure = VCardError(line: line, message: "not UTF-8 text; save the file as UTF-8")
                return false
            }
            do throws(VCardError) {
                let property = try parse(text[...], line: line)
                sawAny = true
                switch property.name {
                case "BEGIN":
                    guard property.value.uppercased() == "VCARD" else {
                        throw VCardError(line: line, message: "BEGIN:\(property.value) where BEGIN:VCARD belongs")
                    }
                    guard current == nil else {
                        throw VCardError(
                            line: line, message: "BEGIN:VCARD inside another vCard (its END:VCARD missing?)")
                    }
                    current = VCardContact(version: "", properties: [], line: line)
                case "END":
                    guard let contact = current, property.value.uppercased() == "VCARD" else {
                        throw VCardError(line: line, message: "END:\(property.value) without its BEGIN:VCARD")
                    }
                    guard contact.version == "3.0" || contact.version == "4.0" else {
                        let said = contact.version.isEmpty ? "no VERSION" : "VERSION:\(contact.version)"
                        throw VCardError(
                            line: contact.line,
                            message: "the vCard that begins here has \(said), and vCard 3.0 and 4.0 are read "
                                + "(contacts apps export 3.0)")
                    }
                    contacts.append(contact)
                    current = nil
                default:
                    guard current != nil else {
                        throw VCardError(line: line, message: "\(property.name) outside BEGIN:VCARD … END:VCARD")
                    }
                    if property.name == "VERSION" {
                        current?.version = String(property.value)
                    } else {
                        current?.properties.append(property)
                    }
                }
            } catch {
                failure = error
                return false
            }
            return true
        }
        if let failure { throw failure }
        if let current { throw VCardError(line: current.line, message: "BEGIN:VCARD without its END:VCARD") }
        if !sawAny { throw VCardError(line: 1, message: "no vCard in the file (it should start with BEGIN:VCARD)") }
        return contacts
    }

    /// Calls `body` with each unfolded line's bytes and the physical line it starts on, until it returns
    /// false. A line ends at LF (a CR before it dropped); one starting with a space or tab continues the
    /// one before it, that first character dropped (RFC 6350 3.2).
    static func forEachLogicalLine(_ bytes: [UInt8], _ body: ([UInt8], Int) -> Bool) {
        var logical: [UInt8] = []
        var logicalStart = 0
        var physical = 0
        var index = 0
        var started = false
        while index < bytes.count {
            physical += 1
            var end = index
            while end < bytes.count && bytes[end] != 10 { end += 1 }
            var lineEnd = end
            if lineEnd > index && bytes[lineEnd - 1] == 13 { lineEnd -= 1 }
            let first = index < lineEnd ? bytes[index] : nil
            if started && (first == 32 || first == 9) {
                if logical.count <= maximumLineLength { logical += bytes[(index + 1)..<lineEnd] }
            } else {
                if started && !body(logical, logicalStart) { return }
                logical.removeAll(keepingCapacity: true)
                logical += bytes[index..<lineEnd]
                logicalStart = physical
                started = true
            }
            index = end + 1
        }
        if started { _ = body(logical, logicalStart) }
    }

    /// One unfolded line split into name, parameters and value (RFC 6350 3.3's contentline).
    static func parse(_ text: Substring, line: Int) throws(VCardError) -> VCardProperty {
        var index = text.startIndex
        func isNameCharacter(_ c: Character) -> Bool {
            c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_")
        }
        // [group "."] name
        var nameStart = index
        while index < text.endIndex, isNameCharacter(text[index]) || text[index] == "." {
            if text[index] == "." { nameStart = text.index(after: index) }
            index = text.index(after: index)
        }
        let name = text[nameStart..<index].uppercased()
        guard !name.isEmpty else {
            throw VCardError(line: line, message: "\(shown(text)) is not a vCard property (NAME:value)")
        }
        var parameters: [(name: String, values: [String])] = []
        while index < text.endIndex, text[index] == ";" {
            index = text.index(after: index)
            let paramStart = index
            while index < text.endIndex, isNameCharacter(text[index]) { index = text.index(after: index) }
            let paramName = text[paramStart..<index].uppercased()
            guard !paramName.isEmpty else {
                throw VCardError(line: line, message: "a parameter without a name in \(name)")
            }
            guard index < text.endIndex, text[index] == "=" else {
                // vCard 3.0 readers take `TEL;WORK:` as TYPE=WORK.
                parameters.append(("TYPE", [paramName]))
                continue
            }
            index = text.index(after: index)
            var values: [String] = []
            while true {
                let valueStart = index
                if index < text.endIndex, text[index] == "\"" {
                    index = text.index(after: index)
                    while index < text.endIndex, text[index] != "\"" { index = text.index(after: index) }
                    guard index < text.endIndex else {
                        throw VCardError(line: line, message: "a quoted value of \(paramName) in \(name) is not closed")
                    }
                    index = text.index(after: index)
                } else {
                    while index < text.endIndex, text[index] != ",", text[index] != ";", text[index] != ":" {
                        index = text.index(after: index)
                    }
                }
                values.append(VCardText.parameterValueRead(text[valueStart..<index]))
                guard index < text.endIndex, text[index] == "," else { break }
                index = text.index(after: index)
            }
            parameters.append((paramName, values))
        }
        guard index < text.endIndex, text[index] == ":" else {
            throw VCardError(line: line, message: "\(name) has no ':' before its value")
        }
        return VCardProperty(
            name: name, parameters: parameters, value: text[text.index(after: index)...], line: line)
    }

    private static func shown(_ text: Substring) -> String {
        let prefix = text.prefix(40).map { ($0.asciiValue ?? 32) < 32 ? "?" : $0 }
        return "\"\(String(prefix))\(text.count > 40 ? "…" : "")\""
    }
}
