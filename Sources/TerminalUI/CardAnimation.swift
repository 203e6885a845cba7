import SwipeEngine

/// A card moving on its own: flying out after a commit, springing back, or returning after an undo.
struct CardAnimation: Equatable {
    enum Kind: Equatable {
        case exit
        case settle
        case `return`
    }

    var card: SwipeCardInfo
    var kind: Kind
    var fromOffset: SwipeVector
    var fromRotation: Double
    var toOffset: SwipeVector
    var toRotation: Double
    var anchor: SwipeUnitPoint
    var start: Double
    var duration: Double

    /// Offset and rotation at a time, eased out (fast start, gentle landing).
    func state(at time: Double) -> (offset: SwipeVector, rotation: Double) {
        let p = progress(at: time)
        let eased = 1 - (1 - p) * (1 - p) * (1 - p)
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * eased }
        return (
            SwipeVector(x: mix(fromOffset.x, toOffset.x), y: mix(fromOffset.y, toOffset.y)),
            mix(fromRotation, toRotation)
        )
    }

    func progress(at time: Double) -> Double {
        guard duration > 0, time.isFinite else { return 1 }
        return min(max((time - start) / duration, 0), 1)
    }

    func isDone(at time: Double) -> Bool { progress(at: time) >= 1 }
}
