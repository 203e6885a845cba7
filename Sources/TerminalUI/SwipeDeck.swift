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
}

extension SwipeDeck {
    /// A deck only this session changes: nothing to read again.
    public mutating func refresh() throws -> Bool { false }
}
