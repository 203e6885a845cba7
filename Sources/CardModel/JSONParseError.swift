/// Why some bytes are not the strict JSON (RFC 8259) a card file must be.
public struct JSONParseError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What is wrong, without where (`expected ',' or '}'`).
    public var problem: String
    /// The byte offset of the problem in the input.
    public var offset: Int
    /// The one-based line of the problem.
    public var line: Int
    /// The one-based column of the problem within its line, in characters.
    public var column: Int

    /// Creates an error for `problem` at `offset`, which is at `line` and `column`.
    public init(problem: String, offset: Int, line: Int, column: Int) {
        self.problem = problem
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// What is wrong and where, as `line L, column C: …`.
    public var message: String { "line \(line), column \(column): \(problem)" }

    /// The message.
    public var description: String { message }
}
