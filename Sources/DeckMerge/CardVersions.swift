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
    /// Whether `ours` is known to be the very bytes of `base` (the store saw the same blob): the merge
    /// then takes them as the same without comparing the decoded values.
    public var oursIsBase = false
    /// Whether `theirs` is known to be the very bytes of `base`, as `oursIsBase`.
    public var theirsIsBase = false

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
        var versions = CardVersions(base: base, ours: theirs, theirs: ours, oursSide: theirsSide, theirsSide: oursSide)
        versions.oursIsBase = theirsIsBase
        versions.theirsIsBase = oursIsBase
        return versions
    }
}
