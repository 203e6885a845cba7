import CardModel

/// The vCard version to write.
public enum VCardVersion: String, Sendable {
    /// RFC 6350, with RFC 9554's SOCIALPROFILE, PRONOUNS and PROP-ID.
    case v4 = "4.0"
    /// RFC 2426, for clients that read nothing newer: N, URL;TYPE=…, X-SOCIALPROFILE.
    case v3 = "3.0"
}

/// Writes a deck as one vCard: the owner (FN, N in 3.0, PRONOUNS, NOTE, a stable UID) with each card as
/// a property, and every card field the deck needs to restore it in parameters (`VCardReader` reads them
/// back): the id as PROP-ID (4.0) or X-CARDS-ID (3.0), title, icon, colour and rank as X-CARDS- parameters,
/// the platform as the service type.
public struct VCardWriter {
    /// The version written.
    public var version: VCardVersion
    private var out: [UInt8] = []

    /// Starts the vCard of `owner` (or, when the deck has none, of the deck's `deckName`); `fallbackUID`
    /// names it when the owner has no uid of its own.
    public init(version: VCardVersion, owner: DeckOwner?, deckName: String, fallbackUID: String) {
        self.version = version
        out.reserveCapacity(4096)
        let name = owner?.name ?? deckName
        line("BEGIN:VCARD")
        line("VERSION:\(version.rawValue)")
        line("PRODID:-//CardDeck//cards//EN")
        let uid = owner.map(\.uid).flatMap { $0.isEmpty ? nil : $0 } ?? fallbackUID
        line("UID:urn:uuid:\(uid)")
        line("FN:\(VCardText.escaped(name))")
        if version == .v3 {
            // RFC 2426 requires N, and a full name cannot be split into its parts reliably: all of it as the
            // given name, which readers show as written.
            line("N:;\(VCardText.escaped(name));;;")
        }
        if let owner, !owner.pronouns.isEmpty {
            line("\(version == .v4 ? "PRONOUNS" : "X-PRONOUNS"):\(VCardText.escaped(owner.pronouns))")
        }
        if let owner, !owner.note.isEmpty { line("NOTE:\(VCardText.escaped(owner.note))") }
    }

    /// One card's property line, folded, as `add` writes it: made apart (on many threads at once for a big
    /// deck) and appended with `append(encoded:)`.
    public static func encoded(_ card: Card, version: VCardVersion) -> [UInt8] {
        var writer = VCardWriter(version: version)
        writer.add(card)
        return writer.out
    }

    /// Appends a card's line made by `encoded(_:version:)` for the same version.
    public mutating func append(encoded: [UInt8]) {
        out += encoded
    }

    private init(version: VCardVersion) {
        self.version = version
    }

    /// Adds one card: a plain `mailto:address` as EMAIL, a card with a platform as SOCIALPROFILE (4.0) or
    /// X-SOCIALPROFILE (3.0), any other as URL.
    public mutating func add(_ card: Card) {
        let url = card.indexURL
        var parameters = ""
        func parameter(_ name: String, _ value: String) {
            guard !value.isEmpty else { return }
            parameters += ";\(name)=\(VCardText.parameterValue(value))"
        }
        let name: String
        var value = url
        if let address = VCardWriter.plainAddress(url) {
            name = "EMAIL"
            value = VCardText.escaped(address)
            if version == .v3 { parameters += ";TYPE=INTERNET" }
        } else if !card.platformName.isEmpty {
            name = version == .v4 ? "SOCIALPROFILE" : "X-SOCIALPROFILE"
            parameter(version == .v4 ? "SERVICE-TYPE" : "TYPE", card.platformName)
        } else {
            name = "URL"
        }
        parameter(version == .v4 ? "PROP-ID" : "X-CARDS-ID", card.id)
        parameter("X-CARDS-TITLE", card.title)
        if name == "EMAIL" { parameter("X-CARDS-PLATFORM", card.platformName) }
        parameter("X-CARDS-ICON", card.platformIcon)
        parameter("X-CARDS-COLOR", card.color)
        parameter("X-CARDS-RANK", card.rank)
        line(name + parameters + ":" + value)
    }

    /// Ends the vCard and hands its bytes over.
    public mutating func finish() -> [UInt8] {
        line("END:VCARD")
        return out
    }

    /// The whole vCard of a deck, cards in the order given.
    public static func vcard(
        version: VCardVersion, owner: DeckOwner?, deckName: String, fallbackUID: String, cards: [Card]
    ) -> [UInt8] {
        var writer = VCardWriter(version: version, owner: owner, deckName: deckName, fallbackUID: fallbackUID)
        for card in cards { writer.add(card) }
        return writer.finish()
    }

    /// The address of a `mailto:` URL that is nothing but one plain address (no `?`, no `%`, no comma):
    /// written as EMAIL, which holds an address, not a URL; nil for any other URL.
    public static func plainAddress(_ url: String) -> String? {
        guard url.hasPrefix("mailto:") else { return nil }
        let address = url.dropFirst("mailto:".count)
        guard !address.isEmpty, address.contains("@"),
            !address.contains(where: { $0 == "?" || $0 == "%" || $0 == "," || $0 == ";" || $0 == "\\" })
        else { return nil }
        return String(address)
    }

    private mutating func line(_ text: String) {
        VCardText.appendFolded(text, to: &out)
    }

    /// A UUID made from `text` alone (FNV-1a, 128 bits, written as a version-8 UUID): the same deck gives
    /// the same UID on every device when its owner has none of its own.
    public static func stableUID(for text: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 &+ 0x9E37_79B9
        }
        let hex = Array(String(a, radix: 16).leftPadded(16) + String(b, radix: 16).leftPadded(16))
        var chars = hex
        chars[12] = "8"
        chars[16] = ["8", "9", "a", "b"][Int(hex[16].hexDigitValue ?? 0) & 3]
        let s = String(chars)
        func part(_ from: Int, _ to: Int) -> Substring { s.dropFirst(from).prefix(to - from) }
        return "\(part(0, 8))-\(part(8, 12))-\(part(12, 16))-\(part(16, 20))-\(part(20, 32))"
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
