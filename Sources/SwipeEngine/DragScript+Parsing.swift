extension DragScript {
    /// The syntax, for messages.
    static let syntax = "T:X,Y T:X,Y … [cancel|T:cancel] (seconds:points,points), e.g. '0:0,0 0.1:-60,2 0.2:-130,4'"

    /// Reads `T:X,Y T:X,Y … [cancel|T:cancel]`, tokens separated by white space.
    ///
    /// Numbers are what Swift's `Double(_:)` reads, so `nan` and `inf` parse: the engine drops such samples
    /// (rule 1), which is what a hostile input should exercise.
    /// - Parameter grab: the touch-down location in card points (`--grab X,Y`), attached to the first sample.
    /// - Throws: `DragScriptError` naming the first bad token.
    public static func parse(_ text: String, grab: SwipeVector? = nil) throws -> DragScript {
        try parse(tokens: text.split(whereSeparator: { $0.isWhitespace }).map(String.init), grab: grab)
    }

    /// Reads a script already split into tokens (one per command-line argument, say).
    public static func parse(tokens: [String], grab: SwipeVector? = nil) throws -> DragScript {
        guard !tokens.isEmpty else {
            throw DragScriptError(
                token: "", position: 0, message: "the drag has no samples; write \(syntax)")
        }
        var samples: [SwipeSample] = []
        var ending = Ending.release
        for (index, token) in tokens.enumerated() {
            let position = index + 1
            func failure(_ why: String) -> DragScriptError {
                DragScriptError(
                    token: token, position: position,
                    message: "drag token \(position) '\(token)' \(why); write \(syntax)")
            }
            let isCancel = token == "cancel" || token.hasSuffix(":cancel")
            if isCancel {
                guard position == tokens.count else { throw failure("must be the last token") }
                guard let last = samples.last else {
                    throw failure("has no touch-down sample before it")
                }
                if token == "cancel" {
                    ending = .cancel(time: last.time)
                } else {
                    let timeText = String(token.dropLast(":cancel".count))
                    guard let time = Double(timeText) else {
                        throw failure("has a time '\(timeText)' that is not a number")
                    }
                    ending = .cancel(time: time)
                }
                continue
            }
            let timeAndPoint = token.split(separator: ":", omittingEmptySubsequences: false)
            guard timeAndPoint.count == 2 else { throw failure("is not of the form T:X,Y") }
            let coordinates = timeAndPoint[1].split(separator: ",", omittingEmptySubsequences: false)
            guard coordinates.count == 2 else { throw failure("needs two coordinates X,Y after the ':'") }
            guard let time = Double(String(timeAndPoint[0])) else {
                throw failure("has a time '\(timeAndPoint[0])' that is not a number")
            }
            guard let x = Double(String(coordinates[0])) else {
                throw failure("has an X '\(coordinates[0])' that is not a number")
            }
            guard let y = Double(String(coordinates[1])) else {
                throw failure("has a Y '\(coordinates[1])' that is not a number")
            }
            samples.append(SwipeSample(time: time, x: x, y: y, location: samples.isEmpty ? grab : nil))
        }
        return DragScript(samples: samples, ending: ending)
    }

    /// Reads `--grab X,Y`, the touch-down location in card points.
    /// - Throws: `DragScriptError` naming the value.
    public static func parseGrab(_ text: String) throws -> SwipeVector {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(String(parts[0])), let y = Double(String(parts[1])),
            x.isFinite, y.isFinite
        else {
            throw DragScriptError(
                token: text, position: 1,
                message: "grab point '\(text)' is not X,Y in card points; write e.g. --grab 150,400")
        }
        return SwipeVector(x: x, y: y)
    }
}
