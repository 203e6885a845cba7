extension SwipeConfiguration {
    /// Seed 000's Tinder-style stack, its decisions reproduced exactly (offset = translation, not its `+=` bug).
    public static let classicStack = SwipeConfiguration(
        name: "classic-stack", defaultCardSize: SwipeSize(width: 300, height: 450), minimumDistance: 20,
        axisLock: .none, allowedDirections: [.left, .right], disallowedSide: .clamp, crossAxis: .fixed(10),
        commitDistance: .points(150), commitComparison: .inclusive, hysteresis: .points(0), fling: nil,
        rotation: .corner(degrees: 5), maximumRotation: 5, exit: .fixed(x: 200, y: 10, duration: 0.35),
        settleDuration: 0.35)

    /// Seed 002's swipe-to-delete row: left only, ready to delete while `x < -75`.
    public static let classicRow = SwipeConfiguration(
        name: "classic-row", defaultCardSize: SwipeSize(width: 360, height: 450), minimumDistance: 10,
        axisLock: .none, allowedDirections: [.left], disallowedSide: .clamp, crossAxis: .fixed(0),
        commitDistance: .points(75), commitComparison: .strict, hysteresis: .points(0), fling: nil,
        rotation: .none, maximumRotation: 0, exit: .inPlace(duration: 0.35), settleDuration: 0.35)

    /// The best-practice stack: both sides, 40 % of the width, hysteresis, flings, a grab-point lean.
    public static let stack = SwipeConfiguration(
        name: "stack", defaultCardSize: SwipeSize(width: 300, height: 450), minimumDistance: 10,
        axisLock: .none, allowedDirections: [.left, .right], disallowedSide: .clamp, crossAxis: .free,
        commitDistance: .widthFraction(0.4), commitComparison: .inclusive, hysteresis: .widthFraction(0.05),
        fling: .standard, rotation: .proportional(maxDegrees: 15, flipsInLowerHalf: true), maximumRotation: 15,
        exit: .travel(widthMultiple: 2, minimumDuration: 0.15, maximumDuration: 0.35), settleDuration: 0.3)

    /// The best-practice row: left only, a horizontal axis lock so vertical scrolling wins, half the width.
    public static let row = SwipeConfiguration(
        name: "row", defaultCardSize: SwipeSize(width: 360, height: 450), minimumDistance: 10,
        axisLock: .horizontal(k: 1), allowedDirections: [.left], disallowedSide: .clamp, crossAxis: .fixed(0),
        commitDistance: .widthFraction(0.5), commitComparison: .inclusive, hysteresis: .widthFraction(0.05),
        fling: .standard, rotation: .none, maximumRotation: 0,
        exit: .travel(widthMultiple: 1, minimumDuration: 0.12, maximumDuration: 0.25), settleDuration: 0.25)

    /// The four presets, in the order of the README's presets table.
    public static let presets: [SwipeConfiguration] = [classicStack, classicRow, stack, row]

    /// The preset with this name (`classic-stack`, `classic-row`, `stack`, `row`), or nil.
    public static func preset(named name: String) -> SwipeConfiguration? {
        presets.first { $0.name == name }
    }
}
