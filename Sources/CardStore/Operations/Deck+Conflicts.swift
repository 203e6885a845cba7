import CardModel
import DeckMerge
import GitCore

extension Deck {
    /// Every card that carries conflict records, in deck order.
    public func conflictedCards() throws(StoreError) -> [Card] {
        try snapshot().allCards().cards.filter { !$0.conflicts.isEmpty }
    }

    /// Settles a conflict of one card as an ordinary commit (op `resolve`): `.pick(n)` for a field,
    /// `.keep`/`.delete` for a deleted-versus-edited card (field `*`).
    @discardableResult
    public func resolve(_ reference: String, field: String, _ resolution: ConflictResolution) throws(StoreError)
        -> Card?
    {
        try resolveCommitting(reference, field: field, resolution).card
    }

    /// `resolve`, also returning the commit it made: what a later undo of this settling takes back (read
    /// from `main` afterwards, it could be another writer's commit made meanwhile).
    package func resolveCommitting(_ reference: String, field: String, _ resolution: ConflictResolution)
        throws(StoreError) -> (card: Card?, commit: ObjectID?)
    {
        var resolved: Card?
        let outcome = try commitChange { (snapshot) throws(StoreError) in
            let card = try snapshot.card(matching: reference)
            let result: Card?
            do {
                result = try ConflictResolver.resolve(card, field: field, resolution)
            } catch {
                throw StoreError(.invalidInput, "\(error)")
            }
            resolved = result
            let what: String
            switch resolution {
            case .pick(let number): what = "\(field): picked choice \(number)"
            case .keep: what = "kept the card"
            case .delete: what = "deleted the card"
            }
            return DeckChange(
                files: [(CardID.path(for: card.id), result?.encoded())],
                message: CommitMessage(
                    subject: "Resolve conflict on card \(CommitMessage.quoted(result?.title ?? card.title)): \(what)",
                    trailers: [("Card-Id", card.id), ("Op", "resolve")]))
        }
        return (resolved, outcome?.commit)
    }
}
