/// The size of a card in points.
public struct SwipeSize: Equatable, Hashable, Sendable {
    /// The width in points.
    public var width: Double
    /// The height in points.
    public var height: Double

    /// Creates a size.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Whether the size can drive a gesture: both sides finite and positive.
    public var isUsable: Bool {
        width.isFinite && height.isFinite && width > 0 && height > 0
    }
}
