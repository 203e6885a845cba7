import TestSupport
import SwipeEngine

/// Random input streams for the property tests: plausible drags with hostile samples mixed in (NaN, infinities,
/// huge values, time going backwards), cancels, programmatic swipes and invalidations.
enum RandomStreams {
    static func stream(_ rng: inout SplitMix64, hostile: Bool = true) -> [DragInput] {
        var inputs: [DragInput] = []
        var time = Double(Int.random(in: 0...1000, using: &rng)) / 10
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let grab = SwipeVector(
                x: Double.random(in: 0...300, using: &rng), y: Double.random(in: 0...450, using: &rng))
            inputs.append(.down(SwipeSample(time: time, x: 0, y: 0, location: grab)))
            var position = SwipeVector.zero
            for _ in 0..<Int.random(in: 0...30, using: &rng) {
                time += [0.0, 0.004, 0.01, 0.016, 0.03, 0.05].randomElement(using: &rng) ?? 0.01
                let speed: Double = [5.0, 20, 60].randomElement(using: &rng) ?? 20
                position.x += Double.random(in: -speed...speed, using: &rng)
                position.y += Double.random(in: -speed / 2...speed / 2, using: &rng)
                var sample = SwipeSample(time: time, translation: position)
                if hostile, Int.random(in: 0..<12, using: &rng) == 0 {
                    sample = hostileSample(near: sample, &rng)
                }
                inputs.append(.move(sample))
                switch Int.random(in: 0..<60, using: &rng) {
                case 0: inputs.append(.invalidate)
                case 1: inputs.append(.programmatic(Bool.random(using: &rng) ? .left : .right))
                default: break
                }
            }
            time += Double.random(in: 0...0.06, using: &rng)
            if Int.random(in: 0..<10, using: &rng) == 0 {
                inputs.append(.cancel(time))
            } else {
                var release = SwipeSample(time: time, translation: position)
                if hostile, Int.random(in: 0..<10, using: &rng) == 0 { release = hostileSample(near: release, &rng) }
                inputs.append(.up(release))
            }
            if Bool.random(using: &rng) { inputs.append(.animationFinished) }
            if Int.random(in: 0..<8, using: &rng) == 0 {
                inputs.append(.programmatic(Bool.random(using: &rng) ? .left : .right))
            }
            time += 0.2
        }
        return inputs
    }

    static func hostileSample(near sample: SwipeSample, _ rng: inout SplitMix64) -> SwipeSample {
        let weird: [Double] = [
            .nan, .infinity, -.infinity, 1e308, -1e308, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
        ]
        var s = sample
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: s.time = weird.randomElement(using: &rng) ?? .nan
        case 1: s.translation.x = weird.randomElement(using: &rng) ?? .nan
        case 2: s.translation.y = weird.randomElement(using: &rng) ?? .nan
        default: s.time -= Double.random(in: 0.001...1, using: &rng)
        }
        return s
    }
}
