/// A terminal operation failed.
public struct TerminalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Code: String, Hashable, Sendable {
        /// Standard input or output is not a terminal (a pipe, a file, CI).
        case notATerminal
        /// A system call failed (`tcgetattr`, `tcsetattr`, `poll`, `read`, `write`).
        case systemCall
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong and what to do.
    public var message: String
    /// The `errno` of a failed system call, else 0.
    public var errorNumber: Int32

    /// Creates an error.
    public init(code: Code, message: String, errorNumber: Int32 = 0) {
        self.code = code
        self.message = message
        self.errorNumber = errorNumber
    }

    /// The message.
    public var description: String { message }

    /// The interactive swipe needs a terminal; scripts have their own form.
    public static let notATerminal = TerminalError(
        code: .notATerminal,
        message: "cards swipe needs an interactive terminal (standard input and output are not one); "
            + "in scripts use `cards swipe ID --drag 'T:X,Y T:X,Y …' | --left | --right`")
}
