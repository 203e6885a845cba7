/// How a committed card leaves the screen.
public enum ExitStyle: Equatable, Hashable, Sendable {
    /// Seed 000: to `(±x, y)` in a fixed time, then removed.
    case fixed(x: Double, y: Double, duration: Double)
    /// Seed 002: removed in place; the offset goes back to 0.
    case inPlace(duration: Double)
    /// To `widthMultiple × width` along the direction; faster releases take less time, within the bounds.
    case travel(widthMultiple: Double, minimumDuration: Double, maximumDuration: Double)
}
