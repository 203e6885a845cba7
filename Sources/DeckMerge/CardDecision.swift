/// What the merge decided for one card, for the merge commit's trailers and `--dry-run`.
public struct CardDecision: Hashable, Sendable {
    /// The kind of decision.
    public enum Kind: String, Hashable, Sendable {
        /// No side changed the card (or it is absent everywhere).
        case unchanged
        /// Only our side changed, added or deleted the card; ours is taken.
        case tookOurs
        /// Only their side changed, added or deleted the card; theirs is taken.
        case tookTheirs
        /// Both sides made the same change.
        case sameOnBoth
        /// Both sides deleted the card.
        case deletedOnBoth
        /// Both sides changed the card; the field merge needed no winner.
        case merged
        /// Both sides changed a field differently; winners were picked and conflict records written.
        case conflict
        /// Deleted on one side, edited on the other, policy `keep`: the edited card stays with a `"*"` record.
        case keptEditedOverDelete
        /// Deleted on one side, edited on the other, policy `delete`: deleted; `restoreCommit` holds the edit.
        case deletedOverEdit
    }

    /// The card's id.
    public var id: String
    /// The kind of decision.
    public var kind: Kind
    /// One line a person reads, e.g. `"Octocat": title from theirs, color from ours`.
    public var summary: String
    /// Commit-message trailers, e.g. `Card-Merged: <id> title from theirs` or
    /// `Card-Conflict: <id> title kept "Work" over "Job"`; empty for `unchanged`.
    public var trailers: [String]
    /// For `deletedOverEdit`: the commit holding the edited version, to restore it from.
    public var restoreCommit: String?

    /// Creates a decision.
    public init(id: String, kind: Kind, summary: String, trailers: [String], restoreCommit: String? = nil) {
        self.id = id
        self.kind = kind
        self.summary = summary
        self.trailers = trailers
        self.restoreCommit = restoreCommit
    }
}
