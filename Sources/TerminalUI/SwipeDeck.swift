/// The storage behind the interactive swipe session, kept behind a protocol so the session is testable and
/// knows nothing of git.
public protocol SwipeDeck {
    /// The cards in deck order.
    var cards: [SwipeCardInfo] { get }
    /// Deletes the card with this id (a left swipe, `reason` the engine's: "distance", "fling"). Deleting an
    /// id that is already gone is a no-op.
    mutating func delete(id: String, reason: String) throws
    /// Brings back a card this session deleted, at this index of `cards` (undo).
    mutating func restore(_ card: SwipeCardInfo, at index: Int) throws
    /// Reads the cards again when someone else changed the deck since (another command, a sync); true
    /// when `cards` changed.
    mutating func refresh() throws -> Bool
    /// A right swipe kept the card (the store settles a deleted-versus-edited conflict it carries).
    mutating func keep(id: String) throws
    /// Takes back what `keep` did (undo), or the resolve commit of a `pick`.
    mutating func unkeep(id: String) throws
    /// Picks choice `number` (from 1) of the card's field conflict.
    mutating func pick(id: String, choice number: Int) throws
}

extension SwipeDeck {
    /// A deck only this session changes: nothing to read again.
    public mutating func refresh() throws -> Bool { false }
    /// A keep changes nothing in a plain deck.
    public mutating func keep(id: String) throws {}
    /// Nothing to take back.
    public mutating func unkeep(id: String) throws {}
    /// A deck without conflicts has nothing to pick.
    public mutating func pick(id: String, choice number: Int) throws {}
}
