import CardModel
import CardStore
import SwipeEngine
import SystemCalls

extension DeckService {
    /// The most samples one swipe may carry: a 20 s drag at 500 events a second (coalesced events of a
    /// fast pen), far beyond a real swipe, well inside the body limit.
    static let maximumSamples = 10_000

    /// A swipe as the page sends it.
    struct SwipeRequest {
        var id: String
        var configuration: SwipeConfiguration
        var size: SwipeSize?
        /// Nil for a programmatic swipe.
        var script: DragScript?
        var direction: SwipeDirection?
        /// Decide only, never delete: the page's prediction checked against the engine (tests).
        var dryRun = false
    }

    /// Reads `{"id", "preset", "width", "height", "grab": [x, y], "samples": [[t, x, y], …], "cancel": t}`
    /// or `{"id", "preset", "direction": "left" | "right"}`, either with `"dryRun": true` to decide without
    /// deleting; throws a message naming the bad field.
    static func parseSwipe(_ body: [UInt8]) throws(ServeError) -> SwipeRequest {
        let object = try jsonObject(body)
        guard let id = object["id"]?.stringValue, !id.isEmpty, id.count <= 100 else {
            throw ServeError("\"id\": expected the card's id as a string")
        }
        let name = object["preset"]?.stringValue ?? "stack"
        guard let configuration = PageGeometry.preset(named: name) else {
            throw ServeError("\"preset\" '\(name)': expected one of classic-stack, classic-row, stack, row, list")
        }
        var dryRun = false
        if let flag = object["dryRun"], !flag.isNull {
            guard let value = flag.boolValue else { throw ServeError("\"dryRun\": expected true or false") }
            dryRun = value
        }
        var size: SwipeSize?
        if object["width"] != nil || object["height"] != nil {
            guard let width = number(object["width"]), let height = number(object["height"]),
                (1...100_000).contains(width), (1...100_000).contains(height)
            else { throw ServeError("\"width\" and \"height\": expected the card's size in points, 1 to 100000") }
            size = SwipeSize(width: width, height: height)
        }
        if let direction = object["direction"]?.stringValue {
            guard let parsed = SwipeDirection(rawValue: direction) else {
                throw ServeError("\"direction\" '\(direction)': expected left or right")
            }
            return SwipeRequest(
                id: id, configuration: configuration, size: size, script: nil, direction: parsed, dryRun: dryRun)
        }
        guard let list = object["samples"]?.arrayValue, !list.isEmpty, list.count <= maximumSamples else {
            throw ServeError("\"samples\": expected 1 to \(maximumSamples) [t, x, y] samples")
        }
        var grab: SwipeVector?
        if let point = object["grab"]?.arrayValue {
            guard point.count == 2, let x = number(point[0]), let y = number(point[1]) else {
                throw ServeError("\"grab\": expected [x, y] in card points")
            }
            grab = SwipeVector(x: x, y: y)
        }
        var samples: [SwipeSample] = []
        samples.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            guard let triple = item.arrayValue, triple.count == 3, let t = number(triple[0]),
                let x = number(triple[1]), let y = number(triple[2])
            else { throw ServeError("\"samples\"[\(index)]: expected [t, x, y] (seconds, points)") }
            samples.append(SwipeSample(time: t, x: x, y: y, location: index == 0 ? grab : nil))
        }
        var ending = DragScript.Ending.release
        if let cancel = object["cancel"], !cancel.isNull {
            guard let time = number(cancel) else { throw ServeError("\"cancel\": expected the cancel's time") }
            ending = .cancel(time: time)
        }
        return SwipeRequest(
            id: id, configuration: configuration, size: size, script: DragScript(samples: samples, ending: ending),
            direction: nil, dryRun: dryRun)
    }

    static func jsonObject(_ body: [UInt8]) throws(ServeError) -> [String: JSONValue] {
        let value: JSONValue
        do { value = try JSONValue.parse(body, maxDepth: 8) } catch {
            throw ServeError("the body is not JSON: \(error)")
        }
        guard let object = value.objectValue else { throw ServeError("the body must be a JSON object") }
        return object
    }

    /// A JSON number as a Double (one too large to be finite reads as infinity: the engine drops it).
    static func number(_ value: JSONValue?) -> Double? {
        value?.numberText.flatMap { Double($0) }
    }

    /// `POST /api/swipe`: the engine decides on the page's samples (the same `SwipeOutcome` as `cards swipe
    /// --drag` and the terminal), and a left commit deletes the card through the store with the same
    /// `Gesture` trailer. Answers `cards swipe --json`'s object, plus `gone` (the card was not in the deck)
    /// and `commitSeconds` (the store's share of the time).
    func swipeResponse(_ body: [UInt8]) -> HTTPResponse {
        let request: SwipeRequest
        do { request = try Self.parseSwipe(body) } catch {
            return .json(400, "{\"error\":\(JSONText.string(error.message))}")
        }
        let outcome: SwipeOutcome
        if let script = request.script {
            outcome = SwipeOutcome.run(
                script, configuration: request.configuration, cardSize: request.size, cardID: request.id)
        } else if let direction = request.direction {
            do {
                outcome = try SwipeOutcome.programmatic(
                    direction, configuration: request.configuration, cardSize: request.size, cardID: request.id)
            } catch {
                return .json(409, "{\"error\":\(JSONText.string("\(error)"))}")
            }
        } else {
            return .json(400, "{\"error\":\"give samples or a direction\"}")
        }
        do {
            let (deleted, gone, seconds, resolved) = try monitor.locked {
                () throws(StoreError) -> (Bool, Bool, Double, String?) in
                // Rule 8: a card gone meanwhile (a sync deleted it) is not deleted again, whatever the drag.
                guard let card = try deck.snapshot().card(id: request.id) else { return (false, true, 0, nil) }
                // A dry run (the page checking its prediction) decides and changes nothing.
                if request.dryRun { return (false, false, 0, nil) }
                let start = MonotonicClock.now()
                // A deleted-versus-edited card: the swipe settles it (DeckService+Conflicts.swift).
                if let settled = try settleBySwipe(card, outcome) {
                    return (settled == "delete", false, MonotonicClock.now() - start, settled)
                }
                guard let note = outcome.deletionNote else {
                    // A right commit keeps the card: seen on this device, out of the stack (DeckService+State).
                    if outcome.decision.direction == .right { try deck.recordKept(request.id) }
                    return (false, false, 0, nil)
                }
                let done = try deck.delete([request.id], gesture: note) != nil
                return (done, false, MonotonicClock.now() - start, nil)
            }
            checkForChange()
            // A keep commits nothing: the pages learn of it (the stack, Undo's label) from the event.
            if outcome.decision.direction == .right && resolved == nil && !gone && !request.dryRun { changes.bump() }
            var json = outcome.json(cardID: request.id, deleted: deleted)
            json.removeLast()
            json +=
                ", \"gone\": \(gone), \"commitSeconds\": \(JSONText.number(seconds)), "
                + "\"resolved\": \(resolved.map(JSONText.string) ?? "null")}"
            return .json(200, json)
        } catch {
            return .json(409, "{\"error\":\(JSONText.string("\(error)"))}")
        }
    }
}
