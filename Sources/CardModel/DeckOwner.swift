/// The person a deck's cards belong to: the `owner` object of `deck.json` (`cards owner`).
///
/// Members this version does not know are kept in `fields`, as a card keeps its unknown fields, so a
/// newer version's additions survive an edit here.
public struct DeckOwner: Hashable, Sendable {
    /// Every member of the `owner` object, known or not.
    public var fields: [String: JSONValue]

    /// The members this version understands.
    public static let knownFields: Set<String> = ["name", "note", "pronouns", "uid"]

    /// Creates an owner from its known members; an empty `note` or `pronouns` is left out.
    public init(name: String, note: String = "", pronouns: String = "") {
        fields = ["name": .string(name)]
        self.note = note
        self.pronouns = pronouns
    }

    /// Creates an owner from all its members, without validating them.
    public init(fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// The full name (`FN` of the vCard, the page's heading); `""` if missing.
    public var name: String {
        get { fields["name"]?.stringValue ?? "" }
        set { fields["name"] = .string(newValue) }
    }

    /// A short note about the person; setting `""` removes it.
    public var note: String {
        get { fields["note"]?.stringValue ?? "" }
        set { fields["note"] = newValue.isEmpty ? nil : .string(newValue) }
    }

    /// How to refer to the person (`she/her`); setting `""` removes it.
    public var pronouns: String {
        get { fields["pronouns"]?.stringValue ?? "" }
        set { fields["pronouns"] = newValue.isEmpty ? nil : .string(newValue) }
    }

    /// A UUID that names the owner's vCard for good (its `UID`: address books such as khard ignore a
    /// vCard without one, and match a re-imported one by it), made once by `cards owner`; `""` if none.
    public var uid: String {
        get { fields["uid"]?.stringValue ?? "" }
        set { fields["uid"] = newValue.isEmpty ? nil : .string(newValue) }
    }

    /// The `owner` object as `deck.json` holds it.
    public var jsonValue: JSONValue { .object(fields) }

    /// The owner a `deck.json` value holds: nil when it has no `owner`; throws when the member is there
    /// but breaks a rule (`validate`).
    public static func from(deckDescription value: JSONValue) throws(CardValidationError) -> DeckOwner? {
        guard let member = value["owner"] else { return nil }
        guard case .object(let fields) = member else {
            throw CardValidationError(field: "owner", rule: "must be an object, found \(member.kindDescription)")
        }
        let owner = DeckOwner(fields: fields)
        try owner.validate()
        return owner
    }

    /// The rules, as strict as a card's: a name of 1 to 200 characters on one line; a note of at most
    /// 1,000 characters (lines allowed, no other control character); pronouns of at most 50 characters
    /// on one line. Each known member a string.
    public func validate() throws(CardValidationError) {
        for key in DeckOwner.knownFields.sorted() {
            guard let value = fields[key] else { continue }
            guard case .string = value else {
                throw CardValidationError(
                    field: "owner.\(key)", rule: "must be a string, found \(value.kindDescription)")
            }
        }
        let trimmedName = Card.trimmed(name)
        guard !trimmedName.isEmpty else {
            throw CardValidationError(field: "owner.name", rule: "must not be empty (after trimming spaces)")
        }
        try DeckOwner.check(name, "owner.name", limit: 200, lines: false)
        try DeckOwner.check(note, "owner.note", limit: 1000, lines: true)
        try DeckOwner.check(pronouns, "owner.pronouns", limit: 50, lines: false)
        if fields["uid"] != nil, CardID.normalize(uid) != uid {
            throw CardValidationError(field: "owner.uid", rule: "\(Card.quoted(uid)) is not a lowercase UUID")
        }
    }

    private static func check(_ text: String, _ field: String, limit: Int, lines: Bool) throws(CardValidationError) {
        if let control = text.unicodeScalars.first(where: { Card.isControl($0) && !(lines && $0 == "\n") }) {
            throw CardValidationError(
                field: field, rule: "contains the control character U+\(hex4(control.value)); remove it")
        }
        let count = text.count
        guard count <= limit else {
            throw CardValidationError(field: field, rule: "is \(count) characters long, at most \(limit) allowed")
        }
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
