import SwipeEngine

/// The presets' geometry as the page reads it: what it needs to draw the card under the finger between
/// input events (offset, rotation, progress, armed) exactly as the engine would. The release is never
/// decided from this: the page sends its samples, and the engine on the server decides.
///
/// A test (ServeBrowserTests) runs every vector of gesture.md through the page's copy and checks its
/// `armed` against `cards swipe --json` for every preset.
enum PageGeometry {
    /// `{"stack": {…}, "row": {…}, …}`, every preset by name.
    static let presetsJSON: String = {
        "{" + SwipeConfiguration.presets.map { JSONText.string($0.name) + ":" + json($0) }.joined(separator: ",")
            + "}"
    }()

    static func json(_ preset: SwipeConfiguration) -> String {
        func number(_ value: Double) -> String { JSONText.number(value) }
        func length(_ length: SwipeLength) -> String {
            switch length {
            case .points(let points): return "{\"points\":\(number(points))}"
            case .widthFraction(let fraction): return "{\"fraction\":\(number(fraction))}"
            }
        }
        let axis: String
        switch preset.axisLock {
        case .none: axis = "null"
        case .horizontal(let k): axis = number(k.isFinite ? k : 1)
        }
        let disallowed: String
        switch preset.disallowedSide {
        case .clamp: disallowed = "null"
        case .rubberBand(let coefficient): disallowed = number(coefficient)
        }
        let cross: String
        switch preset.crossAxis {
        case .free: cross = "null"
        case .fixed(let y): cross = number(y)
        }
        let rotation: String
        switch preset.rotation {
        case .none: rotation = "{\"kind\":\"none\"}"
        case .corner(let degrees): rotation = "{\"kind\":\"corner\",\"degrees\":\(number(degrees))}"
        case .proportional(let degrees, let flips):
            rotation = "{\"kind\":\"proportional\",\"degrees\":\(number(degrees)),\"flips\":\(flips)}"
        }
        let exit: String
        switch preset.exit {
        case .fixed(let x, let y, let duration):
            exit = "{\"kind\":\"fixed\",\"x\":\(number(x)),\"y\":\(number(y)),\"duration\":\(number(duration))}"
        case .inPlace(let duration): exit = "{\"kind\":\"inPlace\",\"duration\":\(number(duration))}"
        case .travel(let multiple, let shortest, let longest):
            exit =
                "{\"kind\":\"travel\",\"widthMultiple\":\(number(multiple)),\"minimumDuration\":\(number(shortest)),"
                + "\"maximumDuration\":\(number(longest))}"
        }
        let fields = [
            "\"name\":\(JSONText.string(preset.name))",
            "\"width\":\(number(preset.defaultCardSize.width))",
            "\"height\":\(number(preset.defaultCardSize.height))",
            "\"minimumDistance\":\(number(preset.minimumDistance))",
            "\"axisLock\":\(axis)",
            "\"left\":\(preset.allowedDirections.contains(.left))",
            "\"right\":\(preset.allowedDirections.contains(.right))",
            "\"rubberBand\":\(disallowed)",
            "\"crossAxis\":\(cross)",
            "\"commitDistance\":\(length(preset.commitDistance))",
            "\"inclusive\":\(preset.commitComparison == .inclusive)",
            "\"hysteresis\":\(length(preset.hysteresis))",
            "\"rotation\":\(rotation)",
            "\"maximumRotation\":\(number(preset.maximumRotation))",
            "\"exit\":\(exit)",
            "\"settleDuration\":\(number(preset.settleDuration))",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }
}
