/// A side a card can leave by. The swipe axis is horizontal.
public enum SwipeDirection: String, CaseIterable, Hashable, Sendable {
    /// Toward negative x. In the store, a commit to the left deletes the card.
    case left
    /// Toward positive x. In the store, a commit to the right keeps the card.
    case right

    /// +1 for right, −1 for left: multiply an x by it to get the displacement along the direction.
    public var sign: Double { self == .right ? 1 : -1 }

    /// The other side.
    public var opposite: SwipeDirection { self == .right ? .left : .right }
}
