/// Every parameter of the gesture engine. The four presets are static values; build your own by changing any of
/// these public properties.
public struct SwipeConfiguration: Equatable, Hashable, Sendable {
    /// The preset's name (`classic-stack`, `classic-row`, `stack`, `row`), or your own.
    public var name: String
    /// The card size used when the caller gives none.
    public var defaultCardSize: SwipeSize
    /// How far (Euclidean, points) the finger must move before the drag is recognised.
    public var minimumDistance: Double
    /// Which axis must dominate at recognition.
    public var axisLock: AxisLock
    /// The sides the card may leave by.
    public var allowedDirections: Set<SwipeDirection>
    /// What happens to motion toward a side that is not allowed.
    public var disallowedSide: DisallowedSideBehavior
    /// How the card moves vertically while dragged.
    public var crossAxis: CrossAxisBehavior
    /// How far along the candidate direction a release commits.
    public var commitDistance: SwipeLength
    /// Whether reaching the commit distance exactly counts.
    public var commitComparison: ThresholdComparison
    /// Once armed, the card stays armed until the displacement drops below `commitDistance − hysteresis`.
    public var hysteresis: SwipeLength
    /// The fling rule, or nil for distance-only decisions.
    public var fling: FlingRule?
    /// How the card leans.
    public var rotation: RotationStyle
    /// The largest rotation magnitude in degrees (the rotation is clamped to ±this).
    public var maximumRotation: Double
    /// How a committed card leaves.
    public var exit: ExitStyle
    /// Seconds a card takes to spring back.
    public var settleDuration: Double

    /// Creates a configuration from every parameter.
    public init(
        name: String, defaultCardSize: SwipeSize, minimumDistance: Double, axisLock: AxisLock,
        allowedDirections: Set<SwipeDirection>, disallowedSide: DisallowedSideBehavior,
        crossAxis: CrossAxisBehavior, commitDistance: SwipeLength, commitComparison: ThresholdComparison,
        hysteresis: SwipeLength, fling: FlingRule?, rotation: RotationStyle, maximumRotation: Double,
        exit: ExitStyle, settleDuration: Double
    ) {
        self.name = name
        self.defaultCardSize = defaultCardSize
        self.minimumDistance = minimumDistance
        self.axisLock = axisLock
        self.allowedDirections = allowedDirections
        self.disallowedSide = disallowedSide
        self.crossAxis = crossAxis
        self.commitDistance = commitDistance
        self.commitComparison = commitComparison
        self.hysteresis = hysteresis
        self.fling = fling
        self.rotation = rotation
        self.maximumRotation = maximumRotation
        self.exit = exit
        self.settleDuration = settleDuration
    }
}
