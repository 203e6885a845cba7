import CardModel

/// The three versions of one card that a merge reconciles; `nil` is absent (never added, or deleted).
public struct CardVersions: Hashable, Sendable {
    /// The card at the merge base.
    public var base: Card?
    /// The card on our side.
    public var ours: Card?
    /// The card on their side.
    public var theirs: Card?
    /// Our newest commit touching this card, if the store knows it; else the deck-level side is used.
    public var oursSide: MergeSide?
    /// Their newest commit touching this card, if the store knows it; else the deck-level side is used.
    public var theirsSide: MergeSide?

    /// Creates the versions of one card.
    public init(
        base: Card?, ours: Card?, theirs: Card?, oursSide: MergeSide? = nil, theirsSide: MergeSide? = nil
    ) {
        self.base = base
        self.ours = ours
        self.theirs = theirs
        self.oursSide = oursSide
        self.theirsSide = theirsSide
    }

    /// The same versions seen from the other side.
    public var swapped: CardVersions {
        CardVersions(base: base, ours: theirs, theirs: ours, oursSide: theirsSide, theirsSide: oursSide)
    }
}
