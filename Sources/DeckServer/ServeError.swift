/// Why `cards serve` cannot serve: a port taken, an address that is not this machine's, the server
/// library missing. The message names what is at fault and what to do.
public struct ServeError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, and what to do.
    public var message: String

    /// Creates an error with its message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
