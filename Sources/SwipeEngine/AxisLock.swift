/// Which axis must dominate when the drag is recognised.
public enum AxisLock: Equatable, Hashable, Sendable {
    /// Any direction recognises the drag.
    case none
    /// Recognition requires |dx| > k·|dy|; otherwise the gesture is rejected (a scroll view wins).
    case horizontal(k: Double)
}
