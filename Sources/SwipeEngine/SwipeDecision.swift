/// What a release (or a programmatic swipe, or a cancel) decided.
public enum SwipeDecision: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The card leaves by `direction`. The store deletes it when the direction is left.
    case commit(SwipeDirection, CommitReason)
    /// The card springs back to where it was.
    case snapBack(SnapBackReason)
    /// The other axis won: the gesture never moved the card.
    case rejected
    /// A tap: the gesture was never recognised (or its card vanished).
    case none

    /// Why a gesture committed.
    public enum CommitReason: String, Hashable, Sendable {
        /// Released past the commit distance.
        case distance
        /// Released below the distance, but flung forward fast enough.
        case fling
        /// A swipe requested by a command or an accessibility action, not a drag.
        case programmatic
    }

    /// Why a gesture snapped back.
    public enum SnapBackReason: String, Hashable, Sendable {
        /// Not far enough and no fling.
        case belowThreshold
        /// The card never moved toward a side it may leave by.
        case noDisplacementInAllowedDirection
        /// A fast fling back toward the start (cancels even when armed).
        case reverseFling
        /// A forward fling, but with less travel than the fling rule's minimum.
        case flingTooShort
        /// The system cancelled the gesture.
        case cancelled
        /// The card size or the configuration cannot drive a gesture (zero, negative or not finite).
        case invalidGeometry
    }

    /// `commit`, `snapBack`, `rejected` or `none`, as in `--json`.
    public var name: String {
        switch self {
        case .commit: return "commit"
        case .snapBack: return "snapBack"
        case .rejected: return "rejected"
        case .none: return "none"
        }
    }

    /// The direction of a commit, else nil.
    public var direction: SwipeDirection? {
        if case .commit(let direction, _) = self { return direction }
        return nil
    }

    /// The reason of a commit or a snap-back, else nil.
    public var reasonName: String? {
        switch self {
        case .commit(_, let reason): return reason.rawValue
        case .snapBack(let reason): return reason.rawValue
        case .rejected, .none: return nil
        }
    }

    /// Whether the card leaves.
    public var isCommit: Bool { direction != nil }

    /// `commit(left, distance)`, `snapBack(cancelled)`, `rejected`, `none`.
    public var description: String {
        switch self {
        case .commit(let direction, let reason): return "commit(\(direction), \(reason))"
        case .snapBack(let reason): return "snapBack(\(reason))"
        case .rejected: return "rejected"
        case .none: return "none"
        }
    }
}
