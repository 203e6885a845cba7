/// A pair of numbers in points: a translation, an offset, a location or a velocity (points per second).
///
/// `y` grows downward, as in SwiftUI and in a terminal.
public struct SwipeVector: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The horizontal component.
    public var x: Double
    /// The vertical component (downward is positive).
    public var y: Double

    /// Creates a vector from its components.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The zero vector.
    public static let zero = SwipeVector(x: 0, y: 0)

    /// Whether both components are finite (neither NaN nor infinite).
    public var isFinite: Bool { x.isFinite && y.isFinite }

    /// The Euclidean length, computed without overflowing for huge components.
    public var length: Double {
        let ax = abs(x)
        let ay = abs(y)
        let big = max(ax, ay)
        guard big > 0, big.isFinite else { return big }
        let small = min(ax, ay) / big
        return big * Self.squareRootOfOneToTwo(1 + small * small)
    }

    /// √v for v in 1...2 by Newton's method: the module links nothing but the standard library, and
    /// `squareRoot()` needs libm in unoptimised builds.
    private static func squareRootOfOneToTwo(_ v: Double) -> Double {
        var root = 0.5 + v / 2
        for _ in 0..<6 { root = (root + v / root) / 2 }
        return root
    }

    /// The vector mirrored left to right (x → −x).
    public var mirrored: SwipeVector { SwipeVector(x: -x, y: y) }

    /// `(x, y)`, for messages and test output.
    public var description: String { "(\(x), \(y))" }
}
