/// One timestamped drag sample, as a touch or mouse adapter reports it.
public struct SwipeSample: Equatable, Sendable {
    /// Seconds on a monotonic clock (any epoch).
    public var time: Double
    /// The translation from the touch-down point (SwiftUI `DragGesture.Value.translation`).
    public var translation: SwipeVector
    /// The touch-down location in card-local points, if known; only read on touch-down.
    ///
    /// It decides the sign of a grab-point rotation (a card grabbed in its lower half leans the other way).
    public var location: SwipeVector?

    /// Creates a sample.
    public init(time: Double, translation: SwipeVector, location: SwipeVector? = nil) {
        self.time = time
        self.translation = translation
        self.location = location
    }

    /// Creates a sample from plain numbers.
    public init(time: Double, x: Double, y: Double, location: SwipeVector? = nil) {
        self.init(time: time, translation: SwipeVector(x: x, y: y), location: location)
    }
}
