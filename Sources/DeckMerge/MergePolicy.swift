/// What the merge does with a card deleted on one side and edited on the other.
public enum MergePolicy: String, Sendable, CaseIterable {
    /// Keep the edited card, with a `"*"` conflict record naming the deleting commit (the default).
    case keep
    /// Delete the card; the decision names the edited version's commit so it can be restored.
    case delete
}
