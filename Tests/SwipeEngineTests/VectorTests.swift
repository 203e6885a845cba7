import SwipeEngine
import Testing

/// The gesture engine's test vectors V01…V12 (from the product's gesture spec), each for all four presets.
struct VectorCase: Sendable, CustomTestStringConvertible {
    enum Check: Sendable {
        case offset(Double, Double)
        case rotation(Double, SwipeUnitPoint)
        case armedCount(Int)
        case disarmedCount(Int)
        case armEvents([SwipeEvent])
        case droppedCount(Int)
        case velocityZero
        case offsetStaysZero
    }

    var vector: String
    var preset: SwipeConfiguration
    var steps: [DragStep]
    var decision: SwipeDecision
    var checks: [Check] = []

    var testDescription: String { "\(vector) \(preset.name) → \(decision)" }
}

extension VectorCase {
    static let v01: [DragStep] = [.down(0, 0, 0), .move(0.05, 12, 5), .move(0.10, 15, 8), .up(0.12, 15, 8)]
    static let v02: [DragStep] = [.down(0, 0, 0), .ramp(from: 0, to: 1, x: 160, y: 4), .up(1, 160, 4)]
    static let v03: [DragStep] = [.down(0, 0, 0), .ramp(from: 0, to: 1, x: 150, y: 0), .up(1, 150, 0)]
    static let v04: [DragStep] = [.down(0, 0, 0), .ramp(from: 0, to: 0.04, x: 80, y: 0), .up(0.04, 80, 0)]
    static let v05: [DragStep] = [
        .down(0, 0, 0), .ramp(from: 0, to: 1, x: 200, y: 0), .ramp(from: 1, to: 2, x: 100, y: 0), .up(2, 100, 0),
    ]
    static let v06: [DragStep] = [.down(0, 0, 0), .ramp(from: 0, to: 0.5, x: 10, y: 300), .up(0.5, 10, 300)]
    static let v07: [DragStep] = [.down(0, 0, 0), .ramp(from: 0, to: 1, x: -151, y: 0), .up(1, -151, 0)]
    static let v08: [DragStep] = [
        .down(0, 0, 0), .move(0.1, 40, 0), .move(0.2, .nan, 0), .move(0.3, 90, 0), .move(0.4, .infinity, 5),
        .up(0.5, 90, 0),
    ]
    static let v09: [DragStep] = [
        .down(0, 0, 0), .move(0.1, -20, 0), .move(0.2, -80, 0), .move(0.3, -75, 0), .move(0.4, -76, 0),
        .up(0.5, -76, 0),
    ]
    static let v10: [DragStep] = [.down(0, 0, 0), .move(0.1, -40, 0), .move(0.2, -75, 0), .up(0.3, -75, 0)]
    static let v11: [DragStep] = [.down(0, 0, 0), .ramp(from: 0, to: 0.5, x: 200, y: 0), .up(0.5, 200, 0)]
    static let v12: [DragStep] = [
        .down(0, 0, 0), .move(0.01, -2, -10), .ramp(from: 0.01, to: 0.31, x: -80, y: -300), .up(0.31, -80, -300),
    ]

    static let below = SwipeDecision.snapBack(.belowThreshold)
    static let noDisplacement = SwipeDecision.snapBack(.noDisplacementInAllowedDirection)
    static let right = SwipeDecision.commit(.right, .distance)
    static let left = SwipeDecision.commit(.left, .distance)

    static let all: [VectorCase] = {
        let cs = SwipeConfiguration.classicStack
        let cr = SwipeConfiguration.classicRow
        let st = SwipeConfiguration.stack
        let row = SwipeConfiguration.row
        return [
            VectorCase(vector: "V01", preset: cs, steps: v01, decision: .none),
            VectorCase(vector: "V01", preset: cr, steps: v01, decision: noDisplacement),
            VectorCase(vector: "V01", preset: st, steps: v01, decision: below),
            VectorCase(vector: "V01", preset: row, steps: v01, decision: noDisplacement),

            VectorCase(
                vector: "V02", preset: cs, steps: v02, decision: right,
                checks: [.offset(160, 10), .rotation(5, .topLeading)]),
            VectorCase(vector: "V02", preset: cr, steps: v02, decision: noDisplacement),
            VectorCase(vector: "V02", preset: st, steps: v02, decision: right),
            VectorCase(vector: "V02", preset: row, steps: v02, decision: noDisplacement),

            // V03: exactly at the distance. Inclusive presets commit.
            VectorCase(vector: "V03", preset: cs, steps: v03, decision: right, checks: [.offset(150, 10)]),
            VectorCase(vector: "V03", preset: cr, steps: v03, decision: noDisplacement),
            VectorCase(vector: "V03", preset: st, steps: v03, decision: right),
            VectorCase(vector: "V03", preset: row, steps: v03, decision: noDisplacement),

            VectorCase(vector: "V04", preset: cs, steps: v04, decision: below),
            VectorCase(vector: "V04", preset: cr, steps: v04, decision: noDisplacement),
            VectorCase(
                vector: "V04", preset: st, steps: v04, decision: .commit(.right, .fling), checks: [.armedCount(0)]),
            VectorCase(vector: "V04", preset: row, steps: v04, decision: noDisplacement),

            VectorCase(vector: "V05", preset: cs, steps: v05, decision: below),
            VectorCase(vector: "V05", preset: cr, steps: v05, decision: noDisplacement),
            VectorCase(
                vector: "V05", preset: st, steps: v05, decision: below,
                checks: [.armedCount(1), .disarmedCount(1), .armEvents([.armed(.right), .disarmed(.right)])]),
            VectorCase(vector: "V05", preset: row, steps: v05, decision: noDisplacement),

            VectorCase(vector: "V06", preset: cs, steps: v06, decision: below, checks: [.offset(10, 10)]),
            VectorCase(vector: "V06", preset: cr, steps: v06, decision: noDisplacement),
            VectorCase(vector: "V06", preset: st, steps: v06, decision: below, checks: [.offset(10, 300)]),
            VectorCase(vector: "V06", preset: row, steps: v06, decision: .rejected, checks: [.offsetStaysZero]),

            VectorCase(
                vector: "V07", preset: cs, steps: v07, decision: left,
                checks: [.offset(-151, 10), .rotation(-5, .topTrailing)]),
            VectorCase(vector: "V07", preset: cr, steps: v07, decision: left, checks: [.offset(-151, 0)]),
            VectorCase(vector: "V07", preset: st, steps: v07, decision: left),
            VectorCase(vector: "V07", preset: row, steps: v07, decision: below),

            VectorCase(vector: "V08", preset: cs, steps: v08, decision: below, checks: [.droppedCount(2)]),
            VectorCase(vector: "V08", preset: cr, steps: v08, decision: noDisplacement, checks: [.droppedCount(2)]),
            VectorCase(
                vector: "V08", preset: st, steps: v08, decision: below, checks: [.droppedCount(2), .velocityZero]),
            VectorCase(vector: "V08", preset: row, steps: v08, decision: noDisplacement, checks: [.droppedCount(2)]),

            VectorCase(vector: "V09", preset: cs, steps: v09, decision: below, checks: [.armedCount(0)]),
            VectorCase(
                vector: "V09", preset: cr, steps: v09, decision: left,
                checks: [.armEvents([.armed(.left), .disarmed(.left), .armed(.left)])]),
            VectorCase(vector: "V09", preset: st, steps: v09, decision: below, checks: [.armedCount(0)]),
            VectorCase(vector: "V09", preset: row, steps: v09, decision: below, checks: [.armedCount(0)]),

            VectorCase(vector: "V10", preset: cs, steps: v10, decision: below),
            VectorCase(vector: "V10", preset: cr, steps: v10, decision: below, checks: [.armedCount(0)]),
            VectorCase(vector: "V10", preset: st, steps: v10, decision: below),
            VectorCase(vector: "V10", preset: row, steps: v10, decision: below),

            VectorCase(vector: "V11", preset: cs, steps: v11, decision: right),
            VectorCase(vector: "V11", preset: cr, steps: v11, decision: noDisplacement, checks: [.offsetStaysZero]),
            VectorCase(vector: "V11", preset: st, steps: v11, decision: right),
            VectorCase(vector: "V11", preset: row, steps: v11, decision: noDisplacement, checks: [.offsetStaysZero]),

            VectorCase(vector: "V12", preset: cs, steps: v12, decision: below),
            VectorCase(vector: "V12", preset: cr, steps: v12, decision: left, checks: [.offset(-80, 0)]),
            VectorCase(vector: "V12", preset: st, steps: v12, decision: below),
            VectorCase(vector: "V12", preset: row, steps: v12, decision: .rejected, checks: [.offsetStaysZero]),
        ]
    }()
}

@Suite("Gesture test vectors")
struct VectorTests {
    @Test(arguments: VectorCase.all)
    func vector(_ c: VectorCase) {
        let frames = runSteps(c.steps, c.preset)
        guard let release = frames.last else {
            Issue.record("no frames")
            return
        }
        #expect(release.decision == c.decision)
        #expect(release.decision?.direction == c.decision.direction)
        #expect(release.decision?.reasonName == c.decision.reasonName)
        let commits = frames.eventCount { if case .commit = $0 { return true } else { return false } }
        #expect(commits == (c.decision.isCommit ? 1 : 0))
        for frame in frames { #expect(frame.numbers.allSatisfy { $0.isFinite }) }
        for check in c.checks {
            switch check {
            case .offset(let x, let y):
                #expect(abs(release.offset.x - x) < 1e-9 && abs(release.offset.y - y) < 1e-9, "\(release.offset)")
            case .rotation(let degrees, let anchor):
                #expect(release.rotation == degrees)
                #expect(release.anchor == anchor)
            case .armedCount(let n):
                #expect(frames.eventCount { if case .armed = $0 { return true } else { return false } } == n)
            case .disarmedCount(let n):
                #expect(frames.eventCount { if case .disarmed = $0 { return true } else { return false } } == n)
            case .armEvents(let expected):
                let arming = frames.events.filter {
                    switch $0 {
                    case .armed, .disarmed: return true
                    default: return false
                    }
                }
                #expect(arming == expected)
            case .droppedCount(let n):
                #expect(frames.eventCount { if case .sampleDropped = $0 { return true } else { return false } } == n)
            case .velocityZero:
                #expect(release.velocity == .zero)
            case .offsetStaysZero:
                #expect(frames.allSatisfy { $0.offset == .zero })
            }
        }
    }

    @Test func vectorTableCoversEveryVectorAndPreset() {
        #expect(VectorCase.all.count == 12 * 4)
        for preset in SwipeConfiguration.presets {
            #expect(VectorCase.all.filter { $0.preset.name == preset.name }.count == 12)
        }
    }

    /// V09 in seed 002: the disarm happens exactly at x = −75 (strict), the re-arm at −76.
    @Test func classicRowDisarmsExactlyAtSeventyFive() {
        let frames = runSteps(VectorCase.v09, .classicRow)
        #expect(frames[3].events == [.disarmed(.left)])
        #expect(frames[3].offset.x == -75)
        #expect(frames[4].events == [.armed(.left)])
    }

    /// V05 in the stack: hysteresis keeps the card armed down to 105 (120 − 15) and disarms below it.
    @Test func stackHysteresisDisarmsBelowReleaseDistance() {
        let frames = runSteps(VectorCase.v05, .stack)
        let disarm = frames.first { $0.events.contains(.disarmed(.right)) }
        #expect(disarm.map { $0.offset.x < 105 && $0.offset.x > 103 } == true)
        let arm = frames.first { $0.events.contains(.armed(.right)) }
        #expect(arm.map { $0.offset.x >= 120 && $0.offset.x < 122 } == true)
    }
}
