/// Why a conflict could not be settled as asked.
public struct ResolveError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The card's id.
    public var cardID: String
    /// The field named (`"*"` for delete-versus-edit).
    public var field: String
    /// What is wrong and what to do instead.
    public var message: String

    /// Creates an error.
    public init(cardID: String, field: String, message: String) {
        self.cardID = cardID
        self.field = field
        self.message = message
    }

    /// `card <id>, field <f>: <message>`.
    public var description: String {
        // "*" is the whole card (a deleted-versus-edited record): `--delete`/`--keep`, not a field's name.
        "card \(cardID), \(field == "*" ? "deleted versus edited" : "field \(field)"): \(message)"
    }
}
