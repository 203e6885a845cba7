/// A JSON value as read from or written to a card file.
///
/// Numbers keep their literal text (validated against RFC 8259) so that a value
/// read and written back is the same number byte for byte, whatever its size or
/// precision. Equality and hashing compare strings by their UTF-8 bytes, not by
/// Unicode canonical equivalence, because two values that encode to different
/// bytes must never be treated as the same change by the merge.
public enum JSONValue: Sendable {
    /// The literal `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its validated literal text (for example `-1.5e3`).
    case number(String)
    /// A string.
    case string(String)
    /// An array of values.
    case array([JSONValue])
    /// An object; keys are unique.
    case object([String: JSONValue])
}
