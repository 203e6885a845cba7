extension SwipeGesture {
    /// Swipes the card away without a drag (`--left`/`--right`, an accessibility action, tests): commits with
    /// reason `programmatic` (rule 9).
    ///
    /// - Throws: `SwipeRefusal` while a gesture is in flight, for a direction the configuration does not allow,
    ///   or when the card already left or vanished.
    public mutating func swipe(_ direction: SwipeDirection) throws -> SwipeFrame {
        let preset = configuration.name
        if phase.isGestureInFlight {
            throw SwipeRefusal(
                code: .gestureInFlight,
                message: "cannot swipe \(direction) while a drag is in progress; release the card first")
        }
        guard configuration.allowedDirections.contains(direction) else {
            let allowed = SwipeDirection.allCases.filter(configuration.allowedDirections.contains)
            throw SwipeRefusal(
                code: .directionNotAllowed,
                message: "preset '\(preset)' does not allow a swipe \(direction); allowed: "
                    + allowed.map(\.rawValue).joined(separator: ", "))
        }
        switch phase {
        case .exiting, .committed:
            throw SwipeRefusal(code: .alreadyCommitted, message: "card \(cardID) already left by a swipe")
        case .invalidated:
            throw SwipeRefusal(code: .invalidated, message: "card \(cardID) is gone; nothing to swipe")
        default:
            break
        }
        guard resolved != nil else {
            throw SwipeRefusal(
                code: .invalidGeometry,
                message: "card size \(cardSize.width)×\(cardSize.height) cannot drive preset '\(preset)'; "
                    + "give a positive width and height")
        }
        resetMotion()
        return finish(decision: .commit(direction, .programmatic), events: [], velocity: .zero)
    }
}
