extension SwipeOutcome {
    /// The `--json` object of `cards swipe` (the README's Swiping), on one line, keys in this order:
    /// `{"id": "…", "preset": "row", "decision": "commit", "direction": "left", "reason": "distance",
    /// "offset": [-190, 0], "rotation": 0, "progress": 1, "armed": true, "velocity": [-380.2, 0], "deleted": true}`.
    ///
    /// Numbers are finite and rounded to at most 3 decimals; `direction` and `reason` are `null` where they do
    /// not apply.
    /// - Parameter deleted: whether the store deleted the card (false with `--dry-run` or for a right swipe).
    public func json(cardID: String, deleted: Bool) -> String {
        let frame = lastFrame
        let fields: [(String, String)] = [
            ("id", JSONText.string(cardID)),
            ("preset", JSONText.string(preset)),
            ("decision", JSONText.string(decision.name)),
            ("direction", decision.direction.map { JSONText.string($0.rawValue) } ?? "null"),
            ("reason", decision.reasonName.map(JSONText.string) ?? "null"),
            ("offset", JSONText.pair(frame.offset)),
            ("rotation", JSONText.number(frame.rotation)),
            ("progress", JSONText.number(frame.progress)),
            ("armed", frame.armed ? "true" : "false"),
            ("velocity", JSONText.pair(frame.velocity)),
            ("deleted", deleted ? "true" : "false"),
        ]
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }
}
