/// A scripted drag: the samples of `cards swipe ID --drag SAMPLES`. The first sample is the touch-down, the
/// last the touch-up, unless the script ends with a system cancel.
public struct DragScript: Equatable, Sendable {
    /// How the script ends.
    public enum Ending: Equatable, Sendable {
        /// The last sample is the touch-up.
        case release
        /// The system cancels the gesture after the last sample, at this time (the last sample's when unsaid).
        case cancel(time: Double)
    }

    /// The samples in order: touch-down first.
    public var samples: [SwipeSample]
    /// How the script ends.
    public var ending: Ending

    /// Creates a script.
    public init(samples: [SwipeSample], ending: Ending) {
        self.samples = samples
        self.ending = ending
    }
}
