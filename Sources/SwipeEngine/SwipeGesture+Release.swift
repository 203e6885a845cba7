extension SwipeGesture {
    /// The finger lifts. The sample is taken like a move first (it may still recognise or arm the drag), then the
    /// gesture is decided (rule 6). The frame keeps the card where it was at release, with the decision and the
    /// animation hint. Ignored unless a gesture is in flight.
    public mutating func touchUp(_ sample: SwipeSample) -> SwipeFrame {
        guard fingerDown else { return makeFrame() }
        var events: [SwipeEvent] = []
        var releaseTime = lastTime
        if phase.isGestureInFlight {
            if let problem = Self.problem(with: sample, after: lastTime) {
                events.append(.sampleDropped(problem))
                // A finite release time still counts for staleness, even when the translation was unusable.
                if problem == .nonFiniteTranslation { releaseTime = sample.time }
            } else {
                accept(sample, into: &events)
                releaseTime = sample.time
            }
        }
        fingerDown = false
        let velocity = tracker.velocity(releaseTime: releaseTime)
        switch phase {
        case .dragging:
            return finish(decision: releaseDecision(velocity: velocity), events: events, velocity: velocity)
        case .rejected:
            phase = .idle
            return makeFrame(events: events, decision: .rejected, velocity: velocity)
        case .invalidated:
            return makeFrame(events: events, decision: SwipeDecision.none, velocity: velocity)
        default:
            phase = .idle
            let frame = makeFrame(events: events, decision: SwipeDecision.none, velocity: velocity)
            resetMotion()
            return frame
        }
    }

    /// Rule 6, for a recognised drag.
    func releaseDecision(velocity: SwipeVector) -> SwipeDecision {
        guard resolved != nil else { return .snapBack(.invalidGeometry) }
        guard let heading = configuration.candidate(forOffsetX: offset.x) else {
            return .snapBack(.noDisplacementInAllowedDirection)
        }
        let armed = armedDirection == heading.direction
        guard let fling = configuration.fling else {
            return armed ? .commit(heading.direction, .distance) : .snapBack(.belowThreshold)
        }
        let along = velocity.x * heading.direction.sign
        let across = abs(velocity.y)
        if fling.reverseCancels, -along >= fling.minimumVelocity, -along > across {
            return .snapBack(.reverseFling)
        }
        if armed { return .commit(heading.direction, .distance) }
        if along >= fling.minimumVelocity, along - across >= fling.crossAxisMargin {
            return heading.displacement >= fling.minimumTravel
                ? .commit(heading.direction, .fling) : .snapBack(.flingTooShort)
        }
        return .snapBack(.belowThreshold)
    }

    /// Ends the gesture with `decision`: emits the commit (once per gesture), picks the phase and the hint.
    mutating func finish(decision: SwipeDecision, events: [SwipeEvent], velocity: SwipeVector) -> SwipeFrame {
        var events = events
        let hint: SwipeAnimationHint
        if case .commit(let direction, let reason) = decision, !hasCommitted {
            hasCommitted = true
            events.append(.commit(cardID: cardID, direction: direction, reason: reason))
            phase = .exiting
            hint = exitHint(direction: direction, velocity: velocity)
        } else {
            phase = .settlingBack
            hint = SwipeAnimationHint(
                targetOffset: .zero, targetRotation: 0, anchor: anchor,
                duration: Self.nonNegative(configuration.settleDuration), removesCard: false)
        }
        pendingAnimation = hint
        return makeFrame(events: events, decision: decision, animation: hint, velocity: velocity)
    }

    /// Where a committed card flies (the preset's exit), and how long it takes.
    func exitHint(direction: SwipeDirection, velocity: SwipeVector) -> SwipeAnimationHint {
        let width = cardSize.isUsable ? cardSize.width : 0
        let target: SwipeVector
        let duration: Double
        switch configuration.exit {
        case .fixed(let x, let y, let seconds):
            target = SwipeVector(x: direction.sign * Self.finite(x), y: Self.finite(y))
            duration = Self.nonNegative(seconds)
        case .inPlace(let seconds):
            target = .zero
            duration = Self.nonNegative(seconds)
        case .travel(let multiple, let shortest, let longest):
            target = SwipeVector(x: direction.sign * Self.finite(multiple) * width, y: offset.y)
            let low = Self.nonNegative(shortest)
            let high = max(low, Self.nonNegative(longest))
            let speed = velocity.x * direction.sign
            let remaining = abs(target.x - offset.x)
            // Faster releases finish sooner; a card released at rest takes the longest time.
            duration = speed > 0 ? min(max(remaining / speed, low), high) : high
        }
        let (degrees, anchor) =
            target == .zero
            ? (0, self.anchor)
            : configuration.rotation(forOffsetX: target.x, width: width, grabbedInLowerHalf: grabbedInLowerHalf)
        return SwipeAnimationHint(
            targetOffset: target, targetRotation: degrees.isFinite ? degrees : 0, anchor: anchor,
            duration: duration.isFinite ? duration : 0, removesCard: true)
    }

    static func finite(_ value: Double) -> Double { value.isFinite ? value : 0 }

    static func nonNegative(_ value: Double) -> Double { value.isFinite && value > 0 ? value : 0 }
}
