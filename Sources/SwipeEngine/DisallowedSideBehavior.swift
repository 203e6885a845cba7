/// What happens to motion toward a side the card may not leave by.
public enum DisallowedSideBehavior: Equatable, Hashable, Sendable {
    /// The offset stays 0 (seed 002: `x = width < 0 ? width : 0`).
    case clamp
    /// The offset resists: it approaches `coefficient × width` but never reaches it.
    case rubberBand(coefficient: Double)
}
