/// How `cards resolve` settles a conflict.
public enum ConflictResolution: Hashable, Sendable {
    /// For a field conflict: take choice number `n` (1-based, as `ConflictResolver.choices` lists them).
    case pick(Int)
    /// For a delete-versus-edit (`"*"`) conflict: keep the card.
    case keep
    /// For a delete-versus-edit (`"*"`) conflict: delete the card.
    case delete
}
