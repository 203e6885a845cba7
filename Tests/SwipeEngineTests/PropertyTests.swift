import SwipeEngine
import TestSupport
import Testing

/// Properties over thousands of random streams per preset. Each stream has its own seed, printed on failure;
/// replay one with `RandomStreams.stream(&SplitMix64(seed: …))`.
@Suite("Engine properties over random streams")
struct PropertyTests {
    static let streamsPerPreset: UInt64 = 1000

    static func seeds(_ salt: UInt64) -> Range<UInt64> {
        (salt << 32)..<((salt << 32) + streamsPerPreset)
    }

    static func stream(seed: UInt64, hostile: Bool = true) -> [DragInput] {
        var rng = SplitMix64(seed: seed)
        return RandomStreams.stream(&rng, hostile: hostile)
    }

    @Test(arguments: SwipeConfiguration.presets)
    func sameInputGivesIdenticalFrames(_ preset: SwipeConfiguration) {
        for seed in Self.seeds(1) {
            let inputs = Self.stream(seed: seed)
            var a = SwipeGesture(configuration: preset, cardID: "x")
            var b = SwipeGesture(configuration: preset, cardID: "x")
            check(a.run(inputs) == b.run(inputs), "seed \(seed)")
        }
    }

    @Test(arguments: SwipeConfiguration.presets)
    func noOutputIsEverNaNOrInfinite(_ preset: SwipeConfiguration) {
        for seed in Self.seeds(2) {
            var gesture = SwipeGesture(configuration: preset, cardID: "x")
            for frame in gesture.run(Self.stream(seed: seed)) {
                check(frame.numbers.allSatisfy { $0.isFinite }, "seed \(seed): \(frame)")
                check(frame.progress >= 0 && frame.progress <= 1, "seed \(seed)")
                guard frame.decision != nil else { continue }
                let outcome = SwipeOutcome(
                    decision: frame.decision ?? .none, lastFrame: frame, frames: [], preset: preset.name)
                let json = outcome.json(cardID: "x", deleted: false)
                check(!json.contains("nan") && !json.contains("inf"), "seed \(seed): \(json)")
            }
        }
    }

    @Test(arguments: SwipeConfiguration.presets)
    func atMostOneCommitPerGestureAndNoneAfterInvalidation(_ preset: SwipeConfiguration) {
        for seed in Self.seeds(3) {
            var gesture = SwipeGesture(configuration: preset, cardID: "x")
            var commits = 0
            var invalidated = false
            for frame in gesture.run(Self.stream(seed: seed)) {
                for event in frame.events {
                    if case .commit(let id, _, _) = event {
                        commits += 1
                        check(id == "x" && !invalidated, "seed \(seed)")
                    }
                    if event == .invalidated { invalidated = true }
                }
                if let decision = frame.decision, decision.isCommit {
                    check(frame.events.contains { if case .commit = $0 { true } else { false } }, "seed \(seed)")
                }
            }
            // One engine is one card: it commits at most once in its whole life.
            check(commits <= 1, "seed \(seed)")
        }
    }

    /// `armed` is exactly "a release now would commit by distance" (a reverse fling may still cancel it).
    @Test(arguments: SwipeConfiguration.presets)
    func armedMeansReleaseNowCommitsByDistance(_ preset: SwipeConfiguration) {
        for seed in Self.seeds(4) {
            var gesture = SwipeGesture(configuration: preset, cardID: "x")
            var lastAccepted: SwipeSample?
            for input in Self.stream(seed: seed) {
                let frame = gesture.apply(input)
                let dropped = frame.events.contains { if case .sampleDropped = $0 { true } else { false } }
                switch input {
                case .down(let s), .move(let s): if !dropped { lastAccepted = s }
                default: break
                }
                guard frame.phase == .dragging, let sample = lastAccepted else { continue }
                var probe = gesture
                let decision = probe.touchUp(SwipeSample(time: sample.time, translation: sample.translation))
                    .decision
                if frame.armed {
                    let ok =
                        decision == .commit(frame.candidate ?? .left, .distance)
                        || decision == .snapBack(.reverseFling)
                    check(ok, "seed \(seed): armed but release gives \(String(describing: decision))")
                } else {
                    check(
                        decision?.reasonName != "distance", "seed \(seed): disarmed but release commits by distance")
                }
            }
        }
    }

    @Test(arguments: SwipeConfiguration.presets)
    func progressIsMonotoneInDisplacement(_ preset: SwipeConfiguration) {
        var points: [SwipeDirection: [(Double, Double)]] = [:]
        for seed in Self.seeds(5) {
            var gesture = SwipeGesture(configuration: preset, cardID: "x")
            for frame in gesture.run(Self.stream(seed: seed)) where frame.phase == .dragging {
                guard let candidate = frame.candidate else {
                    check(frame.progress == 0, "seed \(seed)")
                    continue
                }
                points[candidate, default: []].append((abs(frame.offset.x), frame.progress))
            }
        }
        for (direction, list) in points {
            let sorted = list.sorted { $0.0 < $1.0 }
            for (a, b) in zip(sorted, sorted.dropFirst()) {
                check(a.1 <= b.1, "\(direction): displacement \(a.0) → \(a.1), \(b.0) → \(b.1)")
            }
        }
    }

    @Test(arguments: [SwipeConfiguration.stack, .classicStack])
    func decisionsMirrorUnderXFlip(_ preset: SwipeConfiguration) {
        let width = preset.defaultCardSize.width
        for seed in Self.seeds(6) {
            let inputs = Self.stream(seed: seed)
            var a = SwipeGesture(configuration: preset, cardID: "x")
            var b = SwipeGesture(configuration: preset, cardID: "x")
            let frames = a.run(inputs)
            let mirrored = b.run(inputs.map { $0.mirrored(width: width) })
            for (f, m) in zip(frames, mirrored) {
                check(f.decision.map(Self.mirror) == m.decision, "seed \(seed)")
                check(f.events.map(Self.mirror) == m.events, "seed \(seed)")
                check(f.offset.mirrored == m.offset, "seed \(seed)")
                check(f.rotation == -m.rotation, "seed \(seed)")
                check(f.velocity.mirrored == m.velocity, "seed \(seed)")
                check(f.armed == m.armed && f.progress == m.progress, "seed \(seed)")
                check(f.candidate?.opposite == m.candidate, "seed \(seed)")
            }
        }
    }

    static func mirror(_ decision: SwipeDecision) -> SwipeDecision {
        if case .commit(let direction, let reason) = decision { return .commit(direction.opposite, reason) }
        return decision
    }

    static func mirror(_ event: SwipeEvent) -> SwipeEvent {
        switch event {
        case .armed(let d): return .armed(d.opposite)
        case .disarmed(let d): return .disarmed(d.opposite)
        case .commit(let id, let d, let r): return .commit(cardID: id, direction: d.opposite, reason: r)
        default: return event
        }
    }
}

/// `#expect` for hot loops: building an expectation per frame in a debug build costs more than the engine itself,
/// so the condition is tested first and only a failure is recorded (with its seed).
func check(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    if !condition() { Issue.record(Comment(rawValue: message()), sourceLocation: sourceLocation) }
}
