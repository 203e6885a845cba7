/// Why some bytes are not the strict JSON (RFC 8259) a card file must be.
public struct JSONParseError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What is wrong and where, as `line L, column C: …`.
    public var message: String
    /// The byte offset of the problem in the input.
    public var offset: Int

    /// Creates an error with a finished message.
    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    /// The message.
    public var description: String { message }
}
