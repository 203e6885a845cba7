/// Why a scripted drag (`T:X,Y T:X,Y … [cancel|T:cancel]`) could not be read.
public struct DragScriptError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The offending token as written (empty when the script is empty).
    public var token: String
    /// Its 1-based position among the tokens (0 when the script is empty).
    public var position: Int
    /// What is wrong with it and how to write it instead.
    public var message: String

    /// Creates an error.
    public init(token: String, position: Int, message: String) {
        self.token = token
        self.position = position
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
