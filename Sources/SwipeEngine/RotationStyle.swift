/// How the card leans while dragged.
public enum RotationStyle: Equatable, Hashable, Sendable {
    /// It does not.
    case none
    /// Seed 000: `+degrees` about the top-leading corner for x > 0, `−degrees` about the top-trailing corner for
    /// x < 0, 0 at x = 0.
    case corner(degrees: Double)
    /// `maxDegrees × clamp(x / width, −1, 1)` about the centre; the sign flips when the card was grabbed in its
    /// lower half (`flipsInLowerHalf`), so the card turns the way a held sheet of paper would.
    case proportional(maxDegrees: Double, flipsInLowerHalf: Bool)
}
