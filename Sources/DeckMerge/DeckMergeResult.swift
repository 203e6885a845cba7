import CardModel

/// The outcome of merging a set of cards.
public struct DeckMergeResult: Sendable {
    /// For every id given: the merged card, or `nil` when the result is that the card is absent (deleted).
    public var cards: [String: Card?]
    /// One decision per id given, sorted by id.
    public var decisions: [CardDecision]
    /// The conflict records this merge added (not those the cards already carried), by card id.
    public var newConflicts: [String: [ConflictRecord]]

    /// Creates a result.
    public init(cards: [String: Card?], decisions: [CardDecision], newConflicts: [String: [ConflictRecord]]) {
        self.cards = cards
        self.decisions = decisions
        self.newConflicts = newConflicts
    }

    /// Whether any card needed a winner or a delete-versus-edit decision.
    public var hasConflicts: Bool {
        decisions.contains { [.conflict, .keptEditedOverDelete, .deletedOverEdit].contains($0.kind) }
    }

    /// All trailers, in decision order, for the merge commit message.
    public var trailers: [String] {
        decisions.flatMap(\.trailers)
    }
}
