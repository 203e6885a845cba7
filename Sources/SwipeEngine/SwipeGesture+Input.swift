extension SwipeGesture {
    /// A finger (or the mouse button) goes down on the card. Ignored while a gesture is in flight, while the card
    /// is leaving, or after it left or vanished.
    public mutating func touchDown(_ sample: SwipeSample) -> SwipeFrame {
        guard phase == .idle || phase == .settlingBack else { return makeFrame() }
        if let problem = Self.problem(with: sample, after: nil) { return makeFrame(events: [.sampleDropped(problem)]) }
        resetMotion()
        phase = .pressed
        fingerDown = true
        pendingAnimation = nil
        if let location = sample.location, location.y.isFinite, cardSize.height.isFinite {
            grabbedInLowerHalf = location.y > cardSize.height / 2
        }
        var events: [SwipeEvent] = []
        accept(sample, into: &events)
        return makeFrame(events: events)
    }

    /// The finger moves. Ignored unless a gesture is in flight.
    public mutating func move(_ sample: SwipeSample) -> SwipeFrame {
        guard fingerDown, phase.isGestureInFlight else { return makeFrame() }
        if let problem = Self.problem(with: sample, after: lastTime) {
            return makeFrame(events: [.sampleDropped(problem)])
        }
        var events: [SwipeEvent] = []
        accept(sample, into: &events)
        return makeFrame(events: events)
    }

    /// The system cancels the gesture (an incoming call, a scroll view taking over). Never commits (rule 7).
    public mutating func cancel(time: Double) -> SwipeFrame {
        guard fingerDown else { return makeFrame() }
        fingerDown = false
        switch phase {
        case .dragging:
            return finish(decision: .snapBack(.cancelled), events: [], velocity: .zero)
        case .rejected:
            phase = .idle
            return makeFrame(decision: .rejected)
        case .invalidated:
            return makeFrame(decision: SwipeDecision.none)
        default:
            phase = .idle
            resetMotion()
            return makeFrame(decision: SwipeDecision.none)
        }
    }

    /// The card disappeared mid-gesture (a sync deleted it): this gesture can never commit (rule 8). Ignored once
    /// the card has committed.
    public mutating func invalidate() -> SwipeFrame {
        guard phase != .committed, phase != .exiting, phase != .invalidated else { return makeFrame() }
        var events: [SwipeEvent] = []
        if let armed = armedDirection { events.append(.disarmed(armed)) }
        events.append(.invalidated)
        resetMotion()
        phase = .invalidated
        pendingAnimation = nil
        return makeFrame(events: events)
    }

    /// The release or settle animation finished: an exiting card is gone (`committed`), a settling one rests.
    public mutating func animationFinished() -> SwipeFrame {
        switch phase {
        case .exiting:
            phase = .committed
            if let hint = pendingAnimation {
                offset = hint.targetOffset
                rotation = hint.targetRotation
                anchor = hint.anchor
            }
        case .settlingBack:
            phase = .idle
            resetMotion()
        default:
            break
        }
        pendingAnimation = nil
        return makeFrame()
    }

    /// Why this sample must be dropped (rule 1), or nil.
    static func problem(with sample: SwipeSample, after lastTime: Double?) -> SwipeEvent.SampleDropReason? {
        guard sample.time.isFinite else { return .nonFiniteTime }
        guard sample.translation.isFinite else { return .nonFiniteTranslation }
        if let lastTime, sample.time < lastTime { return .timeWentBackwards }
        return nil
    }

    /// Takes a sanitised sample: recognition (rule 2), mapping (rule 3), arming (rule 4).
    mutating func accept(_ sample: SwipeSample, into events: inout [SwipeEvent]) {
        lastTime = sample.time
        tracker.add(time: sample.time, position: sample.translation)
        if phase == .pressed {
            let translation = sample.translation
            guard translation.length >= configuration.minimumDistance else { return }
            if case .horizontal(let k) = configuration.axisLock,
                !(abs(translation.x) > (k.isFinite ? k : 1) * abs(translation.y))
            {
                phase = .rejected
                events.append(.rejected)
                return
            }
            phase = .dragging
            events.append(.recognized)
        }
        guard phase == .dragging, let resolved else { return }
        offset = configuration.offset(for: sample.translation, width: resolved.size.width)
        (rotation, anchor) = configuration.rotation(
            forOffsetX: offset.x, width: resolved.size.width, grabbedInLowerHalf: grabbedInLowerHalf)
        let heading = configuration.candidate(forOffsetX: offset.x)
        candidate = heading?.direction
        let displacement = heading?.displacement ?? 0
        progress = heading == nil ? 0 : min(max(displacement / resolved.commitDistance, 0), 1)
        updateArming(heading: heading, resolved: resolved, events: &events)
    }

    /// Rule 4 with hysteresis: arms past the commit distance, stays armed until the displacement falls below
    /// `commit distance − hysteresis`, under the same strict/inclusive comparison. With no hysteresis this is
    /// exactly the arming test, so seed 002 disarms at x = −75 (vector V09).
    mutating func updateArming(
        heading: (direction: SwipeDirection, displacement: Double)?, resolved: SwipeConfiguration.Resolved,
        events: inout [SwipeEvent]
    ) {
        let comparison = configuration.commitComparison
        if let armed = armedDirection {
            let stays =
                heading?.direction == armed
                && comparison.passes(heading?.displacement ?? 0, resolved.releaseDistance)
            if !stays {
                events.append(.disarmed(armed))
                armedDirection = nil
            }
        }
        if armedDirection == nil, let heading, comparison.passes(heading.displacement, resolved.commitDistance) {
            armedDirection = heading.direction
            events.append(.armed(heading.direction))
        }
    }

    mutating func resetMotion() {
        tracker.reset()
        lastTime = nil
        grabbedInLowerHalf = false
        armedDirection = nil
        offset = .zero
        (rotation, anchor) = configuration.rotation(
            forOffsetX: 0, width: cardSize.width, grabbedInLowerHalf: false)
        candidate = nil
        progress = 0
    }
}
