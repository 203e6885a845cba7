/// One identity card: the JSON object stored in `cards/<xx>/<id>.json`.
///
/// All fields live in `fields`, including ones this version does not know and
/// the merge's `conflicts` records, so that nothing a newer version wrote is lost
/// when this version edits and writes the card back. The typed properties are
/// conveniences over `fields`.
public struct Card: Hashable, Sendable {
    /// Every field of the card, known or not, keyed by name.
    public var fields: [String: JSONValue]

    /// The largest card file accepted, in bytes (16 KiB).
    public static let maximumFileSize = 16 * 1024

    /// The named colours a card may use instead of `#rrggbb`.
    public static let colorNames: [String] = [
        "red", "green", "blue", "yellow", "purple", "orange", "pink",
        "teal", "indigo", "brown", "gray", "black", "white",
    ]

    /// The field names this version understands; all others are kept as they are.
    public static let knownFields: Set<String> = [
        "id", "title", "platformName", "platformIcon", "indexURL", "color", "rank", "conflicts",
    ]

    /// Changes whenever the rules a card file must follow change: what was judged under other rules (the
    /// invalid files `cards status` remembers) is judged again.
    public static let rulesVersion = 1

    /// The fields every card has (the others may be left out).
    public static let requiredFields: Set<String> = ["id", "title", "indexURL", "color", "rank"]

    /// Creates a card from all its fields, without validating them.
    public init(fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// Creates a card from its known fields; empty `platformName` and
    /// `platformIcon` are left out of the file.
    public init(
        id: String, title: String, indexURL: String, platformName: String = "",
        platformIcon: String = "", color: String = "blue", rank: String
    ) {
        self.fields = [:]
        self.fields["id"] = .string(id)
        self.title = title
        self.indexURL = indexURL
        self.platformName = platformName
        self.platformIcon = platformIcon
        self.color = color
        self.rank = rank
    }
}
