/// The engine's output after every input: what to draw and what happened.
public struct SwipeFrame: Equatable, Sendable {
    /// Where the gesture is in its life.
    public var phase: SwipePhase
    /// The card's offset from its resting place, in points.
    public var offset: SwipeVector
    /// The card's rotation in degrees (clockwise positive, as SwiftUI's `rotationEffect`).
    public var rotation: Double
    /// The point the rotation turns about.
    public var anchor: SwipeUnitPoint
    /// The allowed direction the card is heading for, if it has moved toward one.
    public var candidate: SwipeDirection?
    /// Displacement along the candidate relative to the commit distance, 0...1.
    public var progress: Double
    /// What releasing now would do: true when it would commit by distance (the "ready to delete" highlight).
    public var armed: Bool
    /// The finger's velocity in points per second (least squares over the recent samples).
    public var velocity: SwipeVector
    /// What this input caused, in order.
    public var events: [SwipeEvent]
    /// Set on the input that ended the gesture (release, cancel, programmatic swipe).
    public var decision: SwipeDecision?
    /// Set with a decision that moves the card: where to animate to.
    public var animation: SwipeAnimationHint?

    /// Creates a frame.
    public init(
        phase: SwipePhase, offset: SwipeVector = .zero, rotation: Double = 0,
        anchor: SwipeUnitPoint = .center, candidate: SwipeDirection? = nil, progress: Double = 0,
        armed: Bool = false, velocity: SwipeVector = .zero, events: [SwipeEvent] = [],
        decision: SwipeDecision? = nil, animation: SwipeAnimationHint? = nil
    ) {
        self.phase = phase
        self.offset = offset
        self.rotation = rotation
        self.anchor = anchor
        self.candidate = candidate
        self.progress = progress
        self.armed = armed
        self.velocity = velocity
        self.events = events
        self.decision = decision
        self.animation = animation
    }
}
