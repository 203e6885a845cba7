/// A length that is either absolute or a fraction of the card width.
public enum SwipeLength: Equatable, Hashable, Sendable {
    /// A fixed number of points.
    case points(Double)
    /// A fraction of the card width (0.4 is 40 %).
    case widthFraction(Double)

    /// The length in points for a card of this width.
    public func resolved(width: Double) -> Double {
        switch self {
        case .points(let points): return points
        case .widthFraction(let fraction): return fraction * width
        }
    }
}
