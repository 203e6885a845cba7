import SwipeEngine
import Testing

/// The notation of the gesture vectors (`VectorTests`): D touch-down, M move, R linear ramp sampled every 10 ms, U touch-up.
enum DragStep: Sendable {
    case down(Double, Double, Double)
    case move(Double, Double, Double)
    /// From the previous translation at `from` to (x, y) at `to`, a sample every 10 ms (not repeating `from`).
    case ramp(from: Double, to: Double, x: Double, y: Double)
    case up(Double, Double, Double)
    case cancel(Double)
}

/// One engine input, after ramps are expanded.
enum DragInput: Sendable, Equatable {
    case down(SwipeSample)
    case move(SwipeSample)
    case up(SwipeSample)
    case cancel(Double)
    case invalidate
    case programmatic(SwipeDirection)
    case animationFinished

    /// The same input mirrored left to right (x → −x, the grab point too).
    func mirrored(width: Double) -> DragInput {
        func flip(_ s: SwipeSample) -> SwipeSample {
            SwipeSample(
                time: s.time, translation: s.translation.mirrored,
                location: s.location.map { SwipeVector(x: width - $0.x, y: $0.y) })
        }
        switch self {
        case .down(let s): return .down(flip(s))
        case .move(let s): return .move(flip(s))
        case .up(let s): return .up(flip(s))
        case .programmatic(let d): return .programmatic(d.opposite)
        case .cancel, .invalidate, .animationFinished: return self
        }
    }
}

extension Array where Element == DragStep {
    /// Expands ramps into samples.
    var inputs: [DragInput] {
        var out: [DragInput] = []
        var last = SwipeVector.zero
        for step in self {
            switch step {
            case .down(let t, let x, let y):
                out.append(.down(SwipeSample(time: t, x: x, y: y)))
                last = SwipeVector(x: x, y: y)
            case .move(let t, let x, let y):
                out.append(.move(SwipeSample(time: t, x: x, y: y)))
                last = SwipeVector(x: x, y: y)
            case .ramp(let from, let to, let x, let y):
                let steps = Int((to - from) / 0.01 + 0.5)
                for i in 1...steps {
                    let f = Double(i) / Double(steps)
                    let t = from + (to - from) * f
                    out.append(.move(SwipeSample(time: t, x: last.x + (x - last.x) * f, y: last.y + (y - last.y) * f)))
                }
                last = SwipeVector(x: x, y: y)
            case .up(let t, let x, let y):
                out.append(.up(SwipeSample(time: t, x: x, y: y)))
            case .cancel(let t):
                out.append(.cancel(t))
            }
        }
        return out
    }
}

extension SwipeGesture {
    /// Feeds one input; a refused programmatic swipe gives the current frame.
    mutating func apply(_ input: DragInput) -> SwipeFrame {
        switch input {
        case .down(let s): return touchDown(s)
        case .move(let s): return move(s)
        case .up(let s): return touchUp(s)
        case .cancel(let t): return cancel(time: t)
        case .invalidate: return invalidate()
        case .programmatic(let d): return (try? swipe(d)) ?? frame
        case .animationFinished: return animationFinished()
        }
    }

    /// Feeds every input and returns every frame.
    mutating func run(_ inputs: [DragInput]) -> [SwipeFrame] {
        inputs.map { apply($0) }
    }
}

/// Runs steps through a fresh engine for a preset.
func runSteps(_ steps: [DragStep], _ configuration: SwipeConfiguration, id: String = "card") -> [SwipeFrame] {
    var gesture = SwipeGesture(configuration: configuration, cardID: id)
    return gesture.run(steps.inputs)
}

extension [SwipeFrame] {
    var events: [SwipeEvent] { flatMap(\.events) }
    var decision: SwipeDecision? { last?.decision }
    func eventCount(where predicate: (SwipeEvent) -> Bool) -> Int { events.filter(predicate).count }
}

extension SwipeFrame {
    /// Every number of the frame, to check none is NaN or infinite.
    var numbers: [Double] {
        var all = [offset.x, offset.y, rotation, anchor.x, anchor.y, progress, velocity.x, velocity.y]
        if let a = animation {
            all += [a.targetOffset.x, a.targetOffset.y, a.targetRotation, a.anchor.x, a.anchor.y, a.duration]
        }
        return all
    }
}

extension SwipeConfiguration: CustomTestStringConvertible {
    /// The preset's name, so parameterised tests read `classic-row` rather than the whole struct.
    public var testDescription: String { name }
}
