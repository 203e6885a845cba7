/// A point in a card's unit square (0...1 on each axis), the anchor of a rotation.
public struct SwipeUnitPoint: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// 0 is the leading (left) edge, 1 the trailing edge.
    public var x: Double
    /// 0 is the top edge, 1 the bottom edge.
    public var y: Double

    /// Creates a unit point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The top-left corner.
    public static let topLeading = SwipeUnitPoint(x: 0, y: 0)
    /// The top-right corner.
    public static let topTrailing = SwipeUnitPoint(x: 1, y: 0)
    /// The centre.
    public static let center = SwipeUnitPoint(x: 0.5, y: 0.5)

    /// A name for the common anchors (`topLeading`, `topTrailing`, `center`), else the coordinates.
    public var description: String {
        switch self {
        case .topLeading: return "topLeading"
        case .topTrailing: return "topTrailing"
        case .center: return "center"
        default: return "(\(x), \(y))"
        }
    }
}
