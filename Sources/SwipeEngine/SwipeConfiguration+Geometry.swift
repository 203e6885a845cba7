extension SwipeConfiguration {
    /// The thresholds of this configuration for one card size, resolved to points; nil when they cannot drive a
    /// gesture (a size or a length that is zero, negative or not finite).
    struct Resolved: Equatable, Sendable {
        var size: SwipeSize
        var commitDistance: Double
        var releaseDistance: Double
    }

    func resolved(for size: SwipeSize) -> Resolved? {
        guard size.isUsable, minimumDistance.isFinite, minimumDistance >= 0 else { return nil }
        let commit = commitDistance.resolved(width: size.width)
        let slack = hysteresis.resolved(width: size.width)
        guard commit.isFinite, commit > 0, slack.isFinite, slack >= 0, slack <= commit else { return nil }
        return Resolved(size: size, commitDistance: commit, releaseDistance: commit - slack)
    }

    /// Maps a translation to the card's offset (rule 3): clamps or rubber-bands motion toward a side that is not
    /// allowed, and applies the cross-axis rule.
    func offset(for translation: SwipeVector, width: Double) -> SwipeVector {
        var x = translation.x
        let towardSide: SwipeDirection = x < 0 ? .left : .right
        if x != 0, !allowedDirections.contains(towardSide) {
            switch disallowedSide {
            case .clamp:
                x = 0
            case .rubberBand(let coefficient):
                // The iOS scroll-view formula: approaches `limit` but never reaches it, finite for any x.
                let limit = max(0, coefficient.isFinite ? coefficient : 0) * width
                x = limit > 0 ? towardSide.sign * (1 - 1 / (abs(x) / limit + 1)) * limit : 0
            }
        }
        let y: Double
        switch crossAxis {
        case .free: y = translation.y
        case .fixed(let fixed): y = fixed.isFinite ? fixed : 0
        }
        return SwipeVector(x: x, y: y)
    }

    /// The rotation for an offset: degrees and anchor.
    func rotation(forOffsetX x: Double, width: Double, grabbedInLowerHalf: Bool) -> (Double, SwipeUnitPoint) {
        let limit = maximumRotation.isFinite ? abs(maximumRotation) : 0
        switch rotation {
        case .none:
            return (0, .center)
        case .corner(let degrees):
            let magnitude = min(abs(degrees.isFinite ? degrees : 0), limit)
            if x > 0 { return (magnitude, .topLeading) }
            if x < 0 { return (-magnitude, .topTrailing) }
            return (0, .topLeading)
        case .proportional(let maxDegrees, let flips):
            guard width.isFinite, width > 0, x.isFinite else { return (0, .center) }
            let ratio = min(max(x / width, -1), 1)
            var degrees = (maxDegrees.isFinite ? maxDegrees : 0) * ratio
            if flips && grabbedInLowerHalf { degrees = -degrees }
            // `+ 0` turns −0 into 0, so x = 0 reads as no rotation in every output.
            return (min(max(degrees, -limit), limit) + 0, .center)
        }
    }

    /// The candidate direction and the displacement along it: the allowed direction with the largest offset
    /// along it relative to its commit distance (rule 4). Nil when the card has not moved toward an allowed side.
    func candidate(forOffsetX x: Double) -> (direction: SwipeDirection, displacement: Double)? {
        let toward: SwipeDirection = x < 0 ? .left : .right
        guard x != 0, allowedDirections.contains(toward) else { return nil }
        return (toward, abs(x))
    }
}
