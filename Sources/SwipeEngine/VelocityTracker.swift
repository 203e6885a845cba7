/// Estimates the finger's velocity from recent samples (rule 5).
///
/// A least-squares quadratic through the samples of the last 100 ms (with no gap over 40 ms), differentiated at
/// the newest sample; a straight slope with two samples; zero otherwise. A linear fit lags on a reversal and would
/// flip fling decisions, the quadratic follows it.
public struct VelocityTracker: Equatable, Sendable {
    /// Samples older than this (seconds, from the newest) are ignored.
    public var window: Double = 0.1
    /// A gap longer than this (seconds) between consecutive samples ends the run used for the fit; the newest
    /// sample older than this before the release time gives zero.
    public var maximumGap: Double = 0.04

    private struct Timed: Equatable, Sendable {
        var time: Double
        var position: SwipeVector
    }

    private var samples: [Timed] = []

    /// Creates an empty tracker.
    public init() {}

    /// Forgets every sample.
    public mutating func reset() { samples.removeAll(keepingCapacity: true) }

    /// Adds a sample; one with the same time as the newest replaces it. The caller has sanitised it (finite,
    /// not earlier than the newest).
    public mutating func add(time: Double, position: SwipeVector) {
        if let last = samples.last, last.time == time {
            samples[samples.count - 1].position = position
        } else {
            samples.append(Timed(time: time, position: position))
        }
        // Keep the buffer small: a sample older than the window can never be used again.
        if let newest = samples.last?.time, let stale = samples.firstIndex(where: { newest - $0.time <= window }),
            stale > 0
        {
            samples.removeFirst(stale)
        }
    }

    /// The velocity in points per second at the newest sample, or zero when the newest sample is more than
    /// `maximumGap` before `releaseTime`.
    public func velocity(releaseTime: Double? = nil) -> SwipeVector {
        guard let newest = samples.last else { return .zero }
        if let releaseTime, releaseTime - newest.time > maximumGap { return .zero }
        var run: [Timed] = [newest]
        for sample in samples.dropLast().reversed() {
            guard newest.time - sample.time <= window, run[run.count - 1].time - sample.time <= maximumGap else {
                break
            }
            run.append(sample)
        }
        let result: SwipeVector
        switch run.count {
        case 0, 1:
            result = .zero
        case 2:
            result = Self.slope(run[1], run[0])
        default:
            result = Self.quadraticVelocity(run) ?? Self.slope(run[run.count - 1], run[0])
        }
        return result.isFinite ? result : .zero
    }

    private static func slope(_ older: Timed, _ newer: Timed) -> SwipeVector {
        let dt = newer.time - older.time
        guard dt > 0 else { return .zero }
        return SwipeVector(
            x: (newer.position.x - older.position.x) / dt, y: (newer.position.y - older.position.y) / dt)
    }

    /// Fits `p(u) = a + b·u + c·u²` per axis, u = (t − t_newest) / window in −1...0 (scaled so the normal
    /// equations are well conditioned), and returns `b / window`. Positions are taken relative to the newest
    /// sample so huge coordinates do not swamp the fit. Nil when the system is singular.
    private static func quadraticVelocity(_ run: [Timed]) -> SwipeVector? {
        let newest = run[0]
        let scale = 0.1
        var s = [Double](repeating: 0, count: 5)
        var sx = [Double](repeating: 0, count: 3)
        var sy = [Double](repeating: 0, count: 3)
        for sample in run {
            let u = (sample.time - newest.time) / scale
            let dx = sample.position.x - newest.position.x
            let dy = sample.position.y - newest.position.y
            var power = 1.0
            for k in 0..<5 {
                s[k] += power
                if k < 3 {
                    sx[k] += power * dx
                    sy[k] += power * dy
                }
                power *= u
            }
        }
        let matrix = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]]
        let det = determinant(matrix)
        guard det.isFinite, abs(det) > 1e-15 else { return nil }
        func linearTerm(_ rhs: [Double]) -> Double {
            // Cramer's rule for the middle unknown: replace the second column by the right-hand side.
            var replaced = matrix
            for row in 0..<3 { replaced[row][1] = rhs[row] }
            return determinant(replaced) / det
        }
        return SwipeVector(x: linearTerm(sx) / scale, y: linearTerm(sy) / scale)
    }

    private static func determinant(_ m: [[Double]]) -> Double {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }
}
