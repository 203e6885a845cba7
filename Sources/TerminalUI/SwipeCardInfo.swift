/// What the swipe session shows of a card; the storage layer fills it from its own card model.
public struct SwipeCardInfo: Equatable, Hashable, Sendable {
    /// The card's id (a UUID string): every delete and restore names it.
    public var id: String
    /// The title, e.g. "GitHub".
    public var title: String
    /// The platform's name, e.g. "Code hosting".
    public var platformName: String
    /// The platform icon's name, e.g. "chevron.left.slash.chevron.right".
    public var platformIcon: String
    /// The card's link.
    public var indexURL: String
    /// A colour name (`blue`, `orange`, …) or `#rrggbb`.
    public var color: String
    /// Lines said under the card's fields: a conflict the card carries and how to settle it.
    public var notes: [String]
    /// How many choices keys 1…9 pick from (a field conflict's values), 0 for none.
    public var choices: Int

    /// Creates card info.
    public init(
        id: String, title: String, platformName: String, platformIcon: String, indexURL: String, color: String,
        notes: [String] = [], choices: Int = 0
    ) {
        self.notes = notes
        self.choices = choices
        self.id = id
        self.title = title
        self.platformName = platformName
        self.platformIcon = platformIcon
        self.indexURL = indexURL
        self.color = color
    }
}
