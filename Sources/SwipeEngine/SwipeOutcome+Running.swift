extension SwipeOutcome {
    /// Runs a scripted drag through a fresh engine: touch-down, moves, then touch-up or cancel. This is what
    /// `cards swipe ID --drag SAMPLES` calls; the caller deletes the card when `deletes` is true.
    public static func run(
        _ script: DragScript, configuration: SwipeConfiguration, cardSize: SwipeSize? = nil, cardID: String
    ) -> SwipeOutcome {
        var gesture = SwipeGesture(configuration: configuration, cardSize: cardSize, cardID: cardID)
        var frames: [SwipeFrame] = []
        guard let first = script.samples.first else {
            let frame = gesture.frame
            return SwipeOutcome(decision: .none, lastFrame: frame, frames: [], preset: configuration.name)
        }
        frames.append(gesture.touchDown(first))
        let body: ArraySlice<SwipeSample>
        let end: SwipeFrame
        switch script.ending {
        case .release:
            // A one-sample script touches down and lifts at once: a tap.
            body = script.samples.count > 1 ? script.samples.dropFirst().dropLast() : []
            for sample in body { frames.append(gesture.move(sample)) }
            end = gesture.touchUp(script.samples[script.samples.count - 1])
        case .cancel(let time):
            for sample in script.samples.dropFirst() { frames.append(gesture.move(sample)) }
            end = gesture.cancel(time: time)
        }
        frames.append(end)
        return SwipeOutcome(
            decision: end.decision ?? .none, lastFrame: end, frames: frames, preset: configuration.name)
    }

    /// A programmatic swipe (`cards swipe ID --left | --right`) on a fresh engine.
    /// - Throws: `SwipeRefusal` when the preset does not allow the direction.
    public static func programmatic(
        _ direction: SwipeDirection, configuration: SwipeConfiguration, cardSize: SwipeSize? = nil,
        cardID: String
    ) throws -> SwipeOutcome {
        var gesture = SwipeGesture(configuration: configuration, cardSize: cardSize, cardID: cardID)
        let frame = try gesture.swipe(direction)
        return SwipeOutcome(
            decision: frame.decision ?? .none, lastFrame: frame, frames: [frame], preset: configuration.name)
    }
}
