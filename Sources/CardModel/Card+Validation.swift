extension Card {
    /// Checks every rule of the card table in the README's "The deck on disk".
    ///
    /// Known text fields must be strings without control characters; unknown
    /// fields are not checked (they are kept as they are). A `conflicts` field,
    /// when present, must be an array of objects each naming its `field`.
    ///
    /// - Throws: `CardValidationError` for the first rule broken, in the order
    ///   id, title, platformName, platformIcon, indexURL, color, rank, conflicts, size; with
    ///   every other rule the card breaks in its `others`.
    public func validate() throws(CardValidationError) {
        for (position, rule) in Rule.allCases.enumerated() {
            do {
                try check(rule)
            } catch {
                // Broken: every other rule it breaks is named too, so one look fixes the file.
                var first = error
                for later in Rule.allCases[(position + 1)...] {
                    do { try check(later) } catch { first.others.append(error) }
                }
                throw first
            }
        }
    }

    /// The rules a card file keeps, in the order `validate` names what they find.
    private enum Rule: CaseIterable {
        case id, title, platformName, platformIcon, indexURL, color, rank, conflicts, size
    }

    /// Checks one rule.
    private func check(_ rule: Rule) throws(CardValidationError) {
        switch rule {
        case .id:
            let id = try requiredText("id")
            guard CardID.isValid(id) else {
                throw CardValidationError(
                    field: "id",
                    rule: "\(Card.quoted(id)) is not a lowercase UUID like 3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f")
            }
        case .title:
            let title = try requiredText("title")
            if !Card.isPlainTitle(title) { try Card.checkTitle(title) }
        case .platformName:
            let platformName = try optionalText("platformName")
            // Every character takes at least one byte, so a short text passes without counting characters.
            guard platformName.utf8.count <= 64 || platformName.count <= 64 else {
                throw CardValidationError(
                    field: "platformName", rule: "is \(platformName.count) characters long, at most 64 allowed")
            }
        case .platformIcon:
            let icon = try optionalText("platformIcon")
            guard icon.isEmpty || Card.isIconName(icon) else {
                throw CardValidationError(
                    field: "platformIcon",
                    rule: "\(Card.quoted(icon)) is not an icon name (a-z, 0-9, \".\", \"_\", \"-\", "
                        + "starting with a letter or digit, at most 64 characters)")
            }
        case .indexURL:
            let url = try requiredText("indexURL")
            if !Card.isPlainValidURL(url) { try Card.checkURL(url) }
        case .color:
            let color = try requiredText("color")
            guard Card.isColor(color) else {
                throw CardValidationError(
                    field: "color",
                    rule:
                        "\(Card.quoted(color)) is not a colour name (\(Card.colorNames.joined(separator: " "))) or #rrggbb"
                )
            }
        case .rank:
            let rank = try requiredText("rank")
            guard Rank.isValid(rank) else {
                throw CardValidationError(
                    field: "rank", rule: "\(Card.quoted(rank)) is not a rank (one or more base-62 digits 0-9A-Za-z)")
            }
        case .conflicts:
            if let conflicts = fields["conflicts"] { try Card.checkConflicts(conflicts) }
        case .size:
            try checkEncodedSize()
        }
    }

    /// The card must fit in `maximumFileSize` as we write it (canonically), or the file a command writes
    /// would not read back: a compact file whose unknown fields nest deeply can grow past the limit once
    /// indented.
    private func checkEncodedSize() throws(CardValidationError) {
        // A cheap upper bound spares the encoding for ordinary cards: escaping at most sextuples a
        // string (`\u00xx`); a member costs its indent, the key's quotes, ": " and ",\n" (eight bytes)
        // besides its key and value, a string value two quotes more; the braces and newlines four.
        var bound = 4
        for (key, value) in fields {
            switch value {
            case .string(let text): bound += 6 * (key.utf8.count + text.utf8.count) + 10
            case .number(let digits): bound += 6 * key.utf8.count + digits.utf8.count + 8
            case .null, .bool: bound += 6 * key.utf8.count + 13
            case .array, .object: bound = Int.max
            }
            if bound > Card.maximumFileSize { break }
        }
        guard bound > Card.maximumFileSize else { return }
        let size = encoded().count
        guard size <= Card.maximumFileSize else {
            throw CardValidationError(
                field: nil,
                rule: "written out canonically the card is \(size) bytes, more than the "
                    + "\(Card.maximumFileSize)-byte limit; shorten or remove some fields")
        }
    }

    // MARK: Field access

    private func requiredText(_ name: String) throws(CardValidationError) -> String {
        guard let value = fields[name] else {
            throw CardValidationError(field: name, rule: "is missing; every card needs one")
        }
        return try Card.checkedText(value, name)
    }

    private func optionalText(_ name: String) throws(CardValidationError) -> String {
        guard let value = fields[name] else { return "" }
        return try Card.checkedText(value, name)
    }

    private static func checkedText(_ value: JSONValue, _ name: String) throws(CardValidationError) -> String {
        guard case .string(let text) = value else {
            throw CardValidationError(field: name, rule: "must be a string, found \(value.kindDescription)")
        }
        if mayHoldControl(text), let control = text.unicodeScalars.first(where: isControl) {
            throw CardValidationError(
                field: name, rule: "contains the control character \(hexScalar(control.value)); remove it")
        }
        return text
    }

    // MARK: Rules

    /// Whether `scalar` is a control character (C0, DEL, C1), which no card text may hold.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The title rules by characters: not empty after trimming whitespace, at most 200 characters.
    static func checkTitle(_ title: String) throws(CardValidationError) {
        let trimmed = trimmed(title)
        guard !trimmed.isEmpty else {
            throw CardValidationError(field: "title", rule: "must not be empty (after trimming spaces)")
        }
        guard trimmed.count <= 200 else {
            throw CardValidationError(field: "title", rule: "is \(trimmed.count) characters long, at most 200 allowed")
        }
    }

    /// `text` without white space at either end (a title is checked after this).
    public static func trimmed(_ text: String) -> Substring {
        let start = text.firstIndex { !$0.isWhitespace } ?? text.endIndex
        let end = text.lastIndex { !$0.isWhitespace }.map { text.index(after: $0) } ?? text.endIndex
        return start < end ? text[start..<end] : ""
    }

    /// `[a-z0-9][a-z0-9._-]{0,63}`.
    static func isIconName(_ text: String) -> Bool {
        // Walks the UTF-8 view in place: an array copy per card showed up when listing 100,000 cards.
        var text = text
        return text.withUTF8(isIconName)
    }

    /// `isIconName` of a name's bytes where they lie.
    static func isIconName(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, bytes.count <= 64 else { return false }
        func isLowerAlnum(_ b: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
        }
        guard isLowerAlnum(first) else { return false }
        return bytes.dropFirst().allSatisfy {
            isLowerAlnum($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    static func isColor(_ text: String) -> Bool {
        // Names compared as strings, as the rule says; `#rrggbb` on the bytes.
        if colorNames.contains(text) { return true }
        var text = text
        return text.withUTF8(isColor)
    }

    /// `isColor` of a colour's bytes where they lie: a name compared byte for byte (a name is ASCII, so
    /// bytes equal as the strings are equal), else `#rrggbb`.
    static func isColor(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.count == 7 && bytes[0] == UInt8(ascii: "#") {
            return bytes.dropFirst().allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0)
            }
        }
        // No name starts with "#": only names of the same length are compared, each as two buffers.
        return colorNames.contains { name in
            guard name.utf8.count == bytes.count else { return false }
            var name = name
            return name.withUTF8 { CardListing.same($0, bytes) }
        }
    }

    /// The host of an `http`/`https` URL as written (no user, no port; an IPv6 literal without its
    /// brackets), or nil for another scheme or a URL with no `//`. Empty when the URL names none.
    public static func webHost(of url: String) -> Substring? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon].lowercased()
        let rest = url[url.index(after: colon)...]
        guard scheme == "http" || scheme == "https", rest.hasPrefix("//") else { return nil }
        let authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        if hostAndPort.hasPrefix("[") { return hostAndPort.prefix { $0 != "]" }.dropFirst() }  // IPv6 literal
        return hostAndPort.prefix { $0 != ":" }
    }

    /// Absolute `http`, `https` (with a host) or `mailto` (with an address)
    /// URL, no spaces, at most 2048 characters: the rule a card's `indexURL` keeps, for a caller that checks
    /// a link of its own (the published page's address).
    public static func checkURL(_ url: String) throws(CardValidationError) {
        let length = url.unicodeScalars.count
        guard length <= 2048 else {
            throw CardValidationError(field: "indexURL", rule: "is \(length) characters long, at most 2048 allowed")
        }
        // Built only when thrown: quoting the URL for every valid card cost more than the checks.
        var notAbsolute: CardValidationError {
            CardValidationError(field: "indexURL", rule: "\(quoted(url)) is not an absolute http, https or mailto URL")
        }
        guard let colon = url.firstIndex(of: ":") else { throw notAbsolute }
        let scheme = url[..<colon].lowercased()
        let rest = url[url.index(after: colon)...]
        switch scheme {
        case "http", "https":
            guard let host = webHost(of: url) else { throw notAbsolute }
            guard !host.isEmpty else {
                throw CardValidationError(field: "indexURL", rule: "\(quoted(url)) has no host name")
            }
        case "mailto":
            guard !rest.isEmpty else {
                throw CardValidationError(field: "indexURL", rule: "\(quoted(url)) has no address after mailto:")
            }
        default:
            throw notAbsolute
        }
        // Said only of a URL that is otherwise one: `not a url` is not made one by writing it `not%20a%20url`.
        if url.unicodeScalars.contains(where: { $0.properties.isWhitespace }) {
            throw CardValidationError(
                field: "indexURL", rule: "\(quoted(url)) contains a space; write it as %20")
        }
    }

    static func checkConflicts(_ value: JSONValue) throws(CardValidationError) {
        guard case .array(let records) = value else {
            throw CardValidationError(
                field: "conflicts", rule: "must be an array of conflict records, found \(value.kindDescription)")
        }
        for (index, record) in records.enumerated() {
            guard case .object(let members) = record, members["field"]?.stringValue != nil else {
                throw CardValidationError(
                    field: "conflicts",
                    rule: "record \(index + 1) must be an object with a string \"field\"; "
                        + "settle it with `cards resolve` or remove it")
            }
        }
    }

    /// `"text"` for messages, shortened and with control characters escaped.
    public static func quoted(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(80) {
            if isControl(scalar) {
                shown += "\\u{\(String(scalar.value, radix: 16))}"
            } else if scalar == "\"" {
                shown += "\\\""
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        if text.unicodeScalars.count > 80 { shown += "…" }
        return "\"\(shown)\""
    }
}
