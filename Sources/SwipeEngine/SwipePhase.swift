/// Where a gesture is in its life.
public enum SwipePhase: String, Hashable, Sendable {
    /// No finger down, nothing moving.
    case idle
    /// Touched down, not yet moved far enough to be recognised.
    case pressed
    /// Recognised: the card follows the finger.
    case dragging
    /// The other axis won (a scroll): the card does not move for the rest of the gesture.
    case rejected
    /// Released with a commit: the card is flying out (see the animation hint).
    case exiting
    /// Released without a commit: the card springs back (see the animation hint).
    case settlingBack
    /// The card vanished mid-gesture: this gesture can never commit.
    case invalidated
    /// The card has left for good; the engine ignores further input.
    case committed

    /// Whether a finger is down on the card (a programmatic swipe is refused then).
    public var isGestureInFlight: Bool {
        self == .pressed || self == .dragging || self == .rejected
    }
}
