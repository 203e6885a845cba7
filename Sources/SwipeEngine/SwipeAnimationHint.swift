/// Where the card should animate after a release, and how fast.
public struct SwipeAnimationHint: Equatable, Sendable {
    /// The offset to animate to.
    public var targetOffset: SwipeVector
    /// The rotation in degrees to animate to.
    public var targetRotation: Double
    /// The anchor of the rotation.
    public var anchor: SwipeUnitPoint
    /// Seconds.
    public var duration: Double
    /// Whether the card is removed from the stack when the animation ends.
    public var removesCard: Bool

    /// Creates a hint.
    public init(
        targetOffset: SwipeVector, targetRotation: Double, anchor: SwipeUnitPoint,
        duration: Double, removesCard: Bool
    ) {
        self.targetOffset = targetOffset
        self.targetRotation = targetRotation
        self.anchor = anchor
        self.duration = duration
        self.removesCard = removesCard
    }
}
