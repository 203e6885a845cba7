/// One side of a merge, as the winner rule and the conflict records see it.
///
/// The winner of a field both sides changed differently is the side with the
/// later `time`; equal times go to the larger `commit` (compared by bytes); equal
/// commits to the larger value (by canonical bytes). None of this depends on
/// which side runs the merge, so both devices pick the same winner.
public struct MergeSide: Hashable, Sendable {
    /// The commit id of this side's newest commit (touching the card, if known), recorded in conflict records.
    public var commit: String
    /// That commit's committer time, in seconds since 1970.
    public var time: Int64

    /// Creates a side.
    public init(commit: String, time: Int64) {
        self.commit = commit
        self.time = time
    }
}
