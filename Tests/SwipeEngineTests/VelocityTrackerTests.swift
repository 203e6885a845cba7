import SwipeEngine
import Testing

@Suite("Least-squares velocity")
struct VelocityTrackerTests {
    @Test func quadraticFitIsExactOnAParabola() {
        // x = 5000 t², so dx/dt = 10000 t = 400 at t = 0.04; a straight fit through the window would say ~200.
        var tracker = VelocityTracker()
        for i in 0...4 {
            let t = Double(i) * 0.01
            tracker.add(time: t, position: SwipeVector(x: 5000 * t * t, y: -3))
        }
        let v = tracker.velocity()
        #expect(abs(v.x - 400) < 1e-6)
        #expect(abs(v.y) < 1e-9)
    }

    @Test func twoSamplesGiveTheSlope() {
        var tracker = VelocityTracker()
        tracker.add(time: 0, position: .zero)
        tracker.add(time: 0.02, position: SwipeVector(x: 10, y: -4))
        #expect(tracker.velocity() == SwipeVector(x: 500, y: -200))
    }

    @Test func oneSampleAndAGapGiveZero() {
        var tracker = VelocityTracker()
        tracker.add(time: 0, position: .zero)
        #expect(tracker.velocity() == .zero)
        // A 50 ms gap ends the run: only the newest sample is left.
        tracker.add(time: 0.05, position: SwipeVector(x: 100, y: 0))
        #expect(tracker.velocity() == .zero)
    }

    @Test func oldSamplesLeaveTheWindow() {
        var tracker = VelocityTracker()
        for i in 0...30 {
            let t = Double(i) * 0.01
            // Fast at first, then steady at 100 pt/s for the last 100 ms.
            tracker.add(time: t, position: SwipeVector(x: t < 0.2 ? t * 5000 : 1000 + (t - 0.2) * 100, y: 0))
        }
        #expect(abs(tracker.velocity().x - 100) < 1e-6)
    }

    @Test func staleSamplesAtReleaseGiveZero() {
        var tracker = VelocityTracker()
        tracker.add(time: 0, position: .zero)
        tracker.add(time: 0.01, position: SwipeVector(x: 10, y: 0))
        #expect(tracker.velocity(releaseTime: 0.05) == SwipeVector(x: 1000, y: 0))
        #expect(tracker.velocity(releaseTime: 0.051) == .zero)
    }

    @Test func hugeCoordinatesStayFinite() {
        var tracker = VelocityTracker()
        tracker.add(time: 0, position: SwipeVector(x: -1e308, y: 1e308))
        tracker.add(time: 0.01, position: SwipeVector(x: 1e308, y: -1e308))
        tracker.add(time: 0.02, position: SwipeVector(x: -1e308, y: 0))
        #expect(tracker.velocity().isFinite)
    }
}
