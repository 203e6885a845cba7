import SwipeEngine

/// The presets as the page reads them: everything its copy of the engine (Page/engine.js) needs to draw the
/// card under the finger and to predict the release (offset, rotation, progress, armed, the fling rule, the
/// exit), exactly as the engine would. The prediction only flies the card early: the page sends its samples,
/// the engine on the server decides, and a card it keeps comes back.
///
/// A test (ServeBrowserTests) runs every vector of gesture.md through the page's copy against `cards swipe
/// --json`, and every vector and random drags against the server's engine, for every preset.
enum PageGeometry {
    /// The list's default line: seed 002's −75 points (its row turns red past it), with the best-practice
    /// row's axis lock (a vertical scroll never deletes), flings and a small hysteresis. The `row` preset's
    /// half width is 179 points on a phone, where a seed-style slide springs back.
    static let list: SwipeConfiguration = {
        var preset = SwipeConfiguration.row
        preset.name = "list"
        preset.commitDistance = .points(75)
        preset.hysteresis = .points(8)
        return preset
    }()

    /// The presets a page may swipe with: the engine's four and `list`.
    static let presets: [SwipeConfiguration] = SwipeConfiguration.presets + [list]

    /// The page preset with this name, or nil.
    static func preset(named name: String) -> SwipeConfiguration? {
        presets.first { $0.name == name }
    }

    /// `{"stack": {…}, "row": {…}, …}`, every preset by name.
    static let presetsJSON: String = {
        "{" + presets.map { JSONText.string($0.name) + ":" + json($0) }.joined(separator: ",") + "}"
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
        let fling: String
        if let rule = preset.fling {
            fling =
                "{\"minimumVelocity\":\(number(rule.minimumVelocity)),\"crossAxisMargin\":\(number(rule.crossAxisMargin)),"
                + "\"minimumTravel\":\(number(rule.minimumTravel)),\"reverseCancels\":\(rule.reverseCancels)}"
        } else {
            fling = "null"
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
            "\"fling\":\(fling)",
            "\"rotation\":\(rotation)",
            "\"maximumRotation\":\(number(preset.maximumRotation))",
            "\"exit\":\(exit)",
            "\"settleDuration\":\(number(preset.settleDuration))",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }
}
