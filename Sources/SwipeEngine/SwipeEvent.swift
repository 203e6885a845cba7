/// Something an input caused, for haptics, logs and tests.
public enum SwipeEvent: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The drag passed the minimum distance (and the axis lock): the card follows now.
    case recognized
    /// A release now would commit to this side (the "ready to delete" highlight turns on).
    case armed(SwipeDirection)
    /// A release now would no longer commit to this side.
    case disarmed(SwipeDirection)
    /// The other axis won; the gesture is ignored from now on.
    case rejected
    /// A sample was ignored.
    case sampleDropped(SampleDropReason)
    /// The card vanished mid-gesture.
    case invalidated
    /// The card with this id leaves by this direction: emitted at most once per gesture.
    case commit(cardID: String, direction: SwipeDirection, reason: SwipeDecision.CommitReason)

    /// Why a sample was ignored.
    public enum SampleDropReason: String, Hashable, Sendable {
        /// The time is NaN or infinite.
        case nonFiniteTime
        /// A translation component is NaN or infinite.
        case nonFiniteTranslation
        /// The time is earlier than the previous sample's.
        case timeWentBackwards
    }

    /// A short name such as `armed(left)`.
    public var description: String {
        switch self {
        case .recognized: return "recognized"
        case .armed(let direction): return "armed(\(direction))"
        case .disarmed(let direction): return "disarmed(\(direction))"
        case .rejected: return "rejected"
        case .sampleDropped(let reason): return "sampleDropped(\(reason))"
        case .invalidated: return "invalidated"
        case .commit(let id, let direction, let reason): return "commit(\(id), \(direction), \(reason))"
        }
    }
}
