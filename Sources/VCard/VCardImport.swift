import CardModel

/// The cards a vCard file gives: each URL-like property (URL, SOCIALPROFILE, X-SOCIALPROFILE, EMAIL) of
/// each vCard one card, as the fields of its card file (a JSON object for `cards import`). Fields this
/// package's export wrote (id, title, icon, colour, rank) are taken back as they were; for others the
/// platform is recognised from the service type or the URL's host and the title made from the name.
public struct VCardImport: Sendable {
    /// Each card's fields, in file order; an `id` and a `rank` only where the file gave them.
    public var cards: [[String: JSONValue]] = []
    /// Properties that cannot be a card (an `xmpp:` IMPP, a text-valued profile, a URL a card may not
    /// hold), each with its line and why.
    public var skipped: [(line: Int, reason: String)] = []
    /// The vCards read.
    public var contacts = 0

    /// Reads `bytes` as vCards; throws, naming the line, when the file is malformed.
    public init(_ bytes: [UInt8]) throws(VCardError) {
        let contacts = try VCardReader.contacts(bytes)
        self.contacts = contacts.count
        var seenURLs: Set<String> = []
        var seenIDs: Set<String> = []
        for contact in contacts {
            let person = VCardImport.displayName(contact)
            for property in contact.properties {
                take(property, person: person, seenURLs: &seenURLs, seenIDs: &seenIDs)
            }
        }
    }

    private mutating func take(
        _ property: VCardProperty, person: String, seenURLs: inout Set<String>, seenIDs: inout Set<String>
    ) {
        let name = property.name
        guard ["URL", "SOCIALPROFILE", "X-SOCIALPROFILE", "EMAIL", "IMPP"].contains(name) else { return }
        let valueType = property.parameter("VALUE")?.lowercased()
        if name == "IMPP" {
            skipped.append((property.line, "IMPP \(VCardImport.short(property.value)) is a chat address, not a link"))
            return
        }
        if valueType == "text" && name != "EMAIL" {
            skipped.append((property.line, "\(name) \(VCardImport.short(property.value)) is a name, not a link"))
            return
        }
        let url: String
        if name == "EMAIL" {
            let address = VCardText.unescaped(property.value).trimmingSpaces()
            url = address.lowercased().hasPrefix("mailto:") ? address : "mailto:" + address
        } else {
            // A URI value is not escaped (RFC 6350 3.4 is about text), but some writers escape its commas.
            url = VCardText.unescaped(property.value).trimmingSpaces()
        }
        var fields: [String: JSONValue] = ["indexURL": .string(url)]
        let serviceType =
            property.parameter("SERVICE-TYPE")
            ?? (name == "X-SOCIALPROFILE" ? property.parameter("TYPE") : nil)
            ?? property.parameter("X-SERVICE-TYPE")
        // Written by `cards export`: its fields taken back as they are, nothing guessed.
        let written = property.parameter("X-CARDS-TITLE")
        let platform: Platform?
        let platformName: String
        if written != nil {
            platform = nil
            platformName = property.parameter("X-CARDS-PLATFORM") ?? serviceType ?? ""
        } else {
            platform =
                serviceType.flatMap(Platform.named)
                ?? (name == "EMAIL" ? Platform.named("Email") : Platform.of(url: url))
            // The service type as written, but a platform's own name in its own spelling (`linkedin` is
            // LinkedIn; `twitter` stays twitter, another name of X).
            if let serviceType, let platform, serviceType.lowercased() != platform.name.lowercased() {
                platformName = serviceType
            } else {
                platformName = platform?.name ?? serviceType ?? ""
            }
        }
        if !platformName.isEmpty { fields["platformName"] = .string(platformName) }
        if let id = property.parameter("PROP-ID") ?? property.parameter("X-CARDS-ID"),
            let normalized = CardID.normalize(id)
        {
            guard !seenIDs.contains(normalized) else {
                skipped.append((property.line, "\(name): card id \(normalized) given twice; the first kept"))
                return
            }
            seenIDs.insert(normalized)
            fields["id"] = .string(normalized)
        } else if seenURLs.contains(url) {
            // The same link twice (a URL and an X-SOCIALPROFILE of it): one card.
            return
        }
        seenURLs.insert(url)
        fields["title"] = .string(written ?? VCardImport.title(person: person, platform: platformName, url: url))
        if let icon = property.parameter("X-CARDS-ICON") ?? platform?.icon {
            fields["platformIcon"] = .string(icon)
        }
        if let color = property.parameter("X-CARDS-COLOR") ?? platform?.color { fields["color"] = .string(color) }
        if let rank = property.parameter("X-CARDS-RANK") { fields["rank"] = .string(rank) }
        // Checked as a card is (a placeholder id and rank where the import makes them): a property that
        // cannot be one is skipped, said, not a reason to refuse the others.
        var check = fields
        if check["id"] == nil { check["id"] = .string("00000000-0000-4000-8000-000000000000") }
        if check["rank"] == nil { check["rank"] = .string("a0") }
        if check["color"] == nil { check["color"] = .string("blue") }
        do {
            try Card(fields: check).validate()
        } catch {
            skipped.append((property.line, "\(name) \(VCardImport.short(property.value)): \(error)"))
            return
        }
        cards.append(fields)
    }

    /// The person's name: FN, else N's given and family names, else "".
    static func displayName(_ contact: VCardContact) -> String {
        if let fn = contact.properties.first(where: { $0.name == "FN" }) {
            let name = VCardText.unescaped(fn.value).trimmingSpaces()
            if !name.isEmpty { return name }
        }
        if let n = contact.properties.first(where: { $0.name == "N" }) {
            let parts = VCardText.fields(n.value).map { VCardText.unescaped($0) }
            let given = parts.count > 1 ? parts[1] : ""
            return [given, parts.first ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
        }
        return ""
    }

    /// A title for a card the file gave none for: "Ada on GitHub", the platform, or the URL's host.
    static func title(person: String, platform: String, url: String) -> String {
        let subject = String(person.prefix(120))
        let title: String
        if platform == "Email" || url.lowercased().hasPrefix("mailto:") {
            title = subject.isEmpty ? String(url.dropFirst(7)) : "Write to \(subject)"
        } else if !platform.isEmpty {
            title = subject.isEmpty ? platform : "\(subject) on \(platform)"
        } else {
            title = Platform.host(of: url) ?? url
        }
        return String(title.unicodeScalars.filter { !Card.isControl($0) }.prefix(200).map(Character.init))
    }

    static func short(_ value: Substring) -> String {
        Card.quoted(String(value))
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(Card.trimmed(self))
    }
}
