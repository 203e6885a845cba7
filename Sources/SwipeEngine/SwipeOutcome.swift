/// The result of running a whole scripted drag (or a programmatic swipe) through the engine.
public struct SwipeOutcome: Equatable, Sendable {
    /// What the gesture decided (`none` when it never started, e.g. its touch-down was dropped).
    public var decision: SwipeDecision
    /// The frame of the release (or cancel): the card's offset, rotation, progress, `armed` and velocity at that
    /// moment, i.e. the last frame before the release animation, with the decision and the animation hint.
    public var lastFrame: SwipeFrame
    /// Every frame, one per input.
    public var frames: [SwipeFrame]
    /// The preset's name.
    public var preset: String

    /// Creates an outcome.
    public init(decision: SwipeDecision, lastFrame: SwipeFrame, frames: [SwipeFrame], preset: String) {
        self.decision = decision
        self.lastFrame = lastFrame
        self.frames = frames
        self.preset = preset
    }

    /// Every event of every frame, in order.
    public var events: [SwipeEvent] { frames.flatMap(\.events) }

    /// Whether the store should delete the card: a commit to the left.
    public var deletes: Bool { decision.direction == .left }

    /// What the store records of this swipe when it deletes the card, for `Deck.delete(_:gesture:)`'s
    /// `Gesture` trailer ("swipe left, distance, preset row"); nil when it does not delete it.
    public var deletionNote: String? {
        deletes ? SwipeOutcome.deletionNote(reason: decision.reasonName ?? "distance", preset: preset) : nil
    }

    /// The `Gesture` trailer of a left swipe that deleted a card for `reason` (a `reasonName`) under
    /// the preset named `preset`: the words `cards swipe` records, which `cards log` shows.
    public static func deletionNote(reason: String, preset: String) -> String {
        "swipe left, \(reason), preset \(preset)"
    }
}
