import CardModel

extension DeckMerger {
    /// What the one side that changed a card did to it, the other side keeping the base's very file.
    public enum OneSidedChange: Sendable {
        /// Added (no base, the other side has none either).
        case added
        /// Edited (the changed version's bytes differ from the base's).
        case edited
        /// Deleted (the other side has the base's file).
        case deleted
    }

    /// The decision `mergeCard` makes for a card only one side changed, from the versions' titles alone:
    /// the same words, for a store that knows the versions it names are valid cards and counts a file
    /// whose bytes differ from the base's as an edit (as git does), so need not decode them.
    ///
    /// - Parameters:
    ///   - id: The card's id.
    ///   - change: What the changing side did.
    ///   - byOurs: Whether ours is the side that changed the card.
    ///   - changedTitle: The changed version's title (unused for `deleted`).
    ///   - baseTitle: The base's title (unused for `added`).
    public static func oneSidedDecision(
        id: String, _ change: OneSidedChange, byOurs: Bool, changedTitle: String, baseTitle: String
    ) -> CardDecision {
        // `mergeCard`'s label: the first non-empty title among ours, theirs and the base (one side is the
        // base's or absent); an edit is named by the title it ends with.
        func shown(_ title: String, else other: String = "") -> String {
            let chosen = title.isEmpty ? other : title
            return chosen.isEmpty ? id : DecisionText.show(.string(chosen))
        }
        switch change {
        case .added:
            return DecisionText.tookSide(id: id, label: shown(changedTitle), ours: byOurs, what: "added")
        case .edited:
            return DecisionText.tookSide(
                id: id, label: shown(changedTitle, else: baseTitle), ours: byOurs, what: "edited")
        case .deleted:
            return DecisionText.tookSide(id: id, label: shown(baseTitle), ours: byOurs, what: "deleted")
        }
    }
}
