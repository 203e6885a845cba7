/// When a fast release decides a gesture regardless of (or despite) the distance.
public struct FlingRule: Equatable, Hashable, Sendable {
    /// Points per second along the candidate direction for a fling (forward or back).
    public var minimumVelocity: Double
    /// A forward fling must beat the cross-axis speed by this much (points per second).
    public var crossAxisMargin: Double
    /// A forward fling commits only with at least this much travel along the direction (points).
    public var minimumTravel: Double
    /// Whether a fast fling back toward the start snaps back even when armed.
    public var reverseCancels: Bool

    /// Creates a fling rule.
    public init(minimumVelocity: Double, crossAxisMargin: Double, minimumTravel: Double, reverseCancels: Bool) {
        self.minimumVelocity = minimumVelocity
        self.crossAxisMargin = crossAxisMargin
        self.minimumTravel = minimumTravel
        self.reverseCancels = reverseCancels
    }

    /// The best-practice rule: 700 pt/s, cross margin 400 pt/s, 32 pt travel, a reverse fling cancels.
    public static let standard = FlingRule(
        minimumVelocity: 700, crossAxisMargin: 400, minimumTravel: 32, reverseCancels: true)
}
