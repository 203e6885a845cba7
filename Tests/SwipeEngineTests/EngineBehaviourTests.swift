import SwipeEngine
import Testing

@Suite("Engine behaviour beyond the vectors")
struct EngineBehaviourTests {
    @Test func tapIsNone() {
        let frames = runSteps([.down(0, 0, 0), .move(0.05, 3, 2), .up(0.1, 3, 2)], .stack)
        #expect(frames.decision == SwipeDecision.none)
        #expect(frames.last?.phase == .idle)
        #expect(frames.last?.animation == nil)
    }

    @Test func forwardFlingCommitsWithEnoughTravel() {
        let frames = runSteps([.down(0, 0, 0), .ramp(from: 0, to: 0.04, x: -40, y: 0), .up(0.04, -40, 0)], .stack)
        #expect(frames.decision == .commit(.left, .fling))
        #expect(frames.last?.armed == false)
        #expect(frames.events.contains(.commit(cardID: "card", direction: .left, reason: .fling)))
    }

    @Test func forwardFlingWithTooLittleTravelIsFlingTooShort() {
        let frames = runSteps([.down(0, 0, 0), .ramp(from: 0, to: 0.02, x: -20, y: 0), .up(0.02, -20, 0)], .row)
        #expect(frames.decision == .snapBack(.flingTooShort))
    }

    @Test func flingWithoutCrossAxisMarginIsNotAFling() {
        // 1000 pt/s along, 800 across: fast, but not dominant by 400.
        let frames = runSteps([.down(0, 0, 0), .ramp(from: 0, to: 0.05, x: 50, y: 40), .up(0.05, 50, 40)], .stack)
        #expect(frames.decision == .snapBack(.belowThreshold))
    }

    @Test func staleVelocityIsZero() {
        // A fast flick that stopped 100 ms before the release (no samples in between): not a fling.
        let steps: [DragStep] = [.down(0, 0, 0), .ramp(from: 0, to: 0.04, x: -80, y: 0), .up(0.14, -80, 0)]
        let frames = runSteps(steps, .stack)
        #expect(frames.decision == .snapBack(.belowThreshold))
        #expect(frames.last?.velocity == .zero)
        // The same flick released at once is a fling.
        #expect(
            runSteps([.down(0, 0, 0), .ramp(from: 0, to: 0.04, x: -80, y: 0), .up(0.04, -80, 0)], .stack)
                .decision == .commit(.left, .fling))
    }

    @Test func staleVelocityCountsAReleaseWhoseTranslationWasDropped() {
        let steps: [DragStep] = [.down(0, 0, 0), .ramp(from: 0, to: 0.04, x: -80, y: 0), .up(0.1, .nan, 0)]
        let frames = runSteps(steps, .stack)
        #expect(frames.last?.events == [.sampleDropped(.nonFiniteTranslation)])
        #expect(frames.last?.velocity == .zero)
        #expect(frames.decision == .snapBack(.belowThreshold))
    }

    @Test(arguments: [SwipeConfiguration.stack, .row])
    func reverseFlingCancelsEvenWhenArmed(_ preset: SwipeConfiguration) {
        // Slowly past the distance (armed), then flicked back toward the start, still past the release distance.
        let far = -preset.commitDistance.resolved(width: preset.defaultCardSize.width) - 40
        let steps: [DragStep] = [
            .down(0, 0, 0), .ramp(from: 0, to: 1, x: far, y: 0), .ramp(from: 1, to: 1.03, x: far + 30, y: 0),
            .up(1.03, far + 30, 0),
        ]
        let frames = runSteps(steps, preset)
        #expect(frames[frames.count - 2].armed)
        #expect(frames.last?.armed == true)
        #expect(frames.decision == .snapBack(.reverseFling))
        #expect(frames.eventCount { if case .commit = $0 { true } else { false } } == 0)
    }

    @Test func cancelWhileArmedSnapsBack() {
        let frames = runSteps([.down(0, 0, 0), .ramp(from: 0, to: 1, x: -200, y: 0), .cancel(1.1)], .stack)
        #expect(frames[frames.count - 2].armed)
        #expect(frames.decision == .snapBack(.cancelled))
        #expect(frames.last?.phase == .settlingBack)
        #expect(frames.last?.animation?.targetOffset == .zero)
        #expect(frames.eventCount { if case .commit = $0 { true } else { false } } == 0)
    }

    @Test func cancelBeforeRecognitionIsNone() {
        #expect(runSteps([.down(0, 0, 0), .move(0.1, 2, 0), .cancel(0.2)], .stack).decision == SwipeDecision.none)
    }

    @Test(arguments: SwipeConfiguration.presets)
    func invalidationMidGestureNeverCommits(_ preset: SwipeConfiguration) throws {
        var gesture = SwipeGesture(configuration: preset, cardID: "gone")
        var frames = gesture.run([DragStep.down(0, 0, 0), .ramp(from: 0, to: 0.5, x: -300, y: 0)].inputs)
        #expect(frames.last?.armed == true)
        let invalidated = gesture.invalidate()
        #expect(invalidated.events == [.disarmed(.left), .invalidated])
        #expect(invalidated.phase == .invalidated)
        #expect(invalidated.armed == false)
        frames += gesture.run([
            .move(SwipeSample(time: 0.6, x: -400, y: 0)), .up(SwipeSample(time: 0.7, x: -400, y: 0)),
        ])
        #expect(frames.last?.decision == SwipeDecision.none)
        #expect(frames.allSatisfy { !$0.events.contains { if case .commit = $0 { true } else { false } } })
        #expect(throws: SwipeRefusal.self) { try gesture.swipe(.left) }
        #expect(gesture.touchDown(SwipeSample(time: 1, x: 0, y: 0)).phase == .invalidated)
    }

    @Test(arguments: SwipeConfiguration.presets)
    func programmaticSwipeCommits(_ preset: SwipeConfiguration) throws {
        var gesture = SwipeGesture(configuration: preset, cardID: "c1")
        let frame = try gesture.swipe(.left)
        #expect(frame.decision == .commit(.left, .programmatic))
        #expect(frame.events == [.commit(cardID: "c1", direction: .left, reason: .programmatic)])
        #expect(frame.phase == .exiting)
        #expect(frame.animation?.removesCard == true)
        let error = #expect(throws: SwipeRefusal.self) { try gesture.swipe(.left) }
        #expect(error?.code == .alreadyCommitted)
        #expect(gesture.animationFinished().phase == .committed)
    }

    @Test func programmaticSwipeIsRefusedInFlight() {
        var gesture = SwipeGesture(configuration: .stack, cardID: "c1")
        _ = gesture.touchDown(SwipeSample(time: 0, x: 0, y: 0))
        let error = #expect(throws: SwipeRefusal.self) { try gesture.swipe(.right) }
        #expect(error?.code == .gestureInFlight)
        _ = gesture.move(SwipeSample(time: 0.1, x: -30, y: 0))
        #expect(throws: SwipeRefusal.self) { try gesture.swipe(.left) }
        // After the release the card springs back; a swipe is allowed again.
        _ = gesture.touchUp(SwipeSample(time: 0.2, x: -30, y: 0))
        #expect((try? gesture.swipe(.right))?.decision == .commit(.right, .programmatic))
    }

    @Test(arguments: [SwipeConfiguration.row, .classicRow])
    func programmaticSwipeIsRefusedForADisallowedDirection(_ preset: SwipeConfiguration) {
        var gesture = SwipeGesture(configuration: preset, cardID: "c1")
        let error = #expect(throws: SwipeRefusal.self) { try gesture.swipe(.right) }
        #expect(error?.code == .directionNotAllowed)
        #expect(error?.message.contains("allowed: left") == true)
        #expect(gesture.phase == .idle)
    }

    @Test func exitHintsFollowThePresets() {
        let classic = runSteps(VectorCase.v02, .classicStack).last?.animation
        #expect(classic?.targetOffset == SwipeVector(x: 200, y: 10))
        #expect(classic?.duration == 0.35)
        let row = runSteps(VectorCase.v12, .classicRow).last?.animation
        #expect(row?.targetOffset == .zero)
        #expect(row?.removesCard == true)
        // A slow distance commit takes the longest time, a fast fling the shortest.
        let slow = runSteps(VectorCase.v07, .stack).last?.animation
        #expect(slow?.targetOffset == SwipeVector(x: -600, y: 0))
        #expect(slow?.targetRotation == -15)
        #expect(slow?.duration == 0.35)
        let fast = runSteps([.down(0, 0, 0), .ramp(from: 0, to: 0.03, x: -150, y: 0), .up(0.03, -150, 0)], .stack)
        #expect(fast.last?.animation?.duration == 0.15)
        let snap = runSteps(VectorCase.v10, .stack).last?.animation
        #expect(snap?.targetOffset == .zero && snap?.removesCard == false)
    }

    @Test func grabInTheLowerHalfFlipsTheLean() {
        var top = SwipeGesture(configuration: .stack, cardID: "c")
        var bottom = SwipeGesture(configuration: .stack, cardID: "c")
        _ = top.touchDown(SwipeSample(time: 0, x: 0, y: 0, location: SwipeVector(x: 150, y: 50)))
        _ = bottom.touchDown(SwipeSample(time: 0, x: 0, y: 0, location: SwipeVector(x: 150, y: 400)))
        let a = top.move(SwipeSample(time: 0.1, x: 150, y: 0))
        let b = bottom.move(SwipeSample(time: 0.1, x: 150, y: 0))
        #expect(a.rotation == 7.5)
        #expect(b.rotation == -7.5)
        #expect(a.anchor == .center)
        // Clamped at ±15 however far the card goes.
        #expect(top.move(SwipeSample(time: 0.2, x: 1e9, y: 0)).rotation == 15)
    }

    @Test func sameTimeReplacesAndEarlierTimeIsDropped() {
        var gesture = SwipeGesture(configuration: .stack, cardID: "c")
        _ = gesture.touchDown(SwipeSample(time: 1, x: 0, y: 0))
        _ = gesture.move(SwipeSample(time: 1.01, x: -20, y: 0))
        let replaced = gesture.move(SwipeSample(time: 1.01, x: -30, y: 0))
        #expect(replaced.offset.x == -30)
        #expect(replaced.events.isEmpty)
        let dropped = gesture.move(SwipeSample(time: 1.0, x: -90, y: 0))
        #expect(dropped.events == [.sampleDropped(.timeWentBackwards)])
        #expect(dropped.offset.x == -30)
        #expect(gesture.move(SwipeSample(time: .nan, x: 0, y: 0)).events == [.sampleDropped(.nonFiniteTime)])
    }

    @Test func rubberBandResistsTheDisallowedSide() {
        var preset = SwipeConfiguration.row
        preset.disallowedSide = .rubberBand(coefficient: 0.2)
        let frames = runSteps([.down(0, 0, 0), .ramp(from: 0, to: 0.5, x: 300, y: 0), .up(0.5, 300, 0)], preset)
        let x = frames[frames.count - 2].offset.x
        #expect(x > 0 && x < 72)
        #expect(frames.last?.candidate == nil)
        #expect(frames.decision == .snapBack(.noDisplacementInAllowedDirection))
    }

    @Test func invalidGeometrySnapsBack() {
        var gesture = SwipeGesture(configuration: .stack, cardSize: SwipeSize(width: 0, height: 450), cardID: "c")
        let frames = gesture.run(VectorCase.v07.inputs)
        #expect(frames.decision == .snapBack(.invalidGeometry))
        #expect(frames.allSatisfy { $0.numbers.allSatisfy { $0.isFinite } && !$0.armed })
        let error = #expect(throws: SwipeRefusal.self) {
            var fresh = SwipeGesture(configuration: .stack, cardSize: SwipeSize(width: .nan, height: 1), cardID: "c")
            _ = try fresh.swipe(.left)
        }
        #expect(error?.code == .invalidGeometry)
    }

    @Test func presetsAreFoundByName() {
        #expect(SwipeConfiguration.presets.map(\.name) == ["classic-stack", "classic-row", "stack", "row"])
        #expect(SwipeConfiguration.preset(named: "row") == .row)
        #expect(SwipeConfiguration.preset(named: "nope") == nil)
    }
}
