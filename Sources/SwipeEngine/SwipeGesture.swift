/// The gesture engine for one card: timestamped drag samples go in, frames come out (the README's Swiping).
///
/// A pure value with no clock of its own. It decides whether a drag removes the card and names the card by id
/// in its commit; it never touches data. One engine serves one card: once it has committed or its card vanished,
/// it ignores further input, and the caller makes a new engine for the next card.
///
/// ```swift
/// var gesture = SwipeGesture(configuration: .stack, cardID: "2f1c…")
/// _ = gesture.touchDown(SwipeSample(time: 0, x: 0, y: 0))
/// _ = gesture.move(SwipeSample(time: 0.1, x: -90, y: 4))
/// let frame = gesture.touchUp(SwipeSample(time: 0.12, x: -130, y: 5))
/// frame.decision  // commit(left, distance)
/// ```
public struct SwipeGesture: Sendable {
    /// The parameters this engine follows.
    public let configuration: SwipeConfiguration
    /// The card's size in points.
    public let cardSize: SwipeSize
    /// The id the commit names.
    public let cardID: String

    /// Nil when the size or the configuration cannot drive a gesture (releases then snap back `invalidGeometry`).
    let resolved: SwipeConfiguration.Resolved?
    /// The phase after the last input.
    public internal(set) var phase: SwipePhase = .idle
    var tracker = VelocityTracker()
    var lastTime: Double?
    var fingerDown = false
    var grabbedInLowerHalf = false
    var armedDirection: SwipeDirection?
    var hasCommitted = false
    var offset: SwipeVector = .zero
    var rotation: Double = 0
    var anchor: SwipeUnitPoint = .center
    var candidate: SwipeDirection?
    var progress: Double = 0
    var pendingAnimation: SwipeAnimationHint?

    /// Creates an engine for one card; `cardSize` defaults to the configuration's.
    public init(configuration: SwipeConfiguration, cardSize: SwipeSize? = nil, cardID: String) {
        self.configuration = configuration
        self.cardSize = cardSize ?? configuration.defaultCardSize
        self.cardID = cardID
        self.resolved = configuration.resolved(for: self.cardSize)
        self.anchor =
            configuration.rotation(
                forOffsetX: 0, width: self.cardSize.width, grabbedInLowerHalf: false
            ).1
    }

    /// The current state as a frame with no events and no decision.
    public var frame: SwipeFrame { makeFrame() }

    func makeFrame(
        events: [SwipeEvent] = [], decision: SwipeDecision? = nil, animation: SwipeAnimationHint? = nil,
        velocity: SwipeVector? = nil
    ) -> SwipeFrame {
        SwipeFrame(
            phase: phase, offset: offset, rotation: rotation, anchor: anchor, candidate: candidate,
            progress: progress, armed: armedDirection != nil,
            velocity: velocity ?? (fingerDown ? tracker.velocity() : .zero), events: events, decision: decision,
            animation: animation)
    }
}
