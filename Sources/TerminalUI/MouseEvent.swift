/// A mouse report (xterm SGR mode 1006), positions 0-based.
public struct MouseEvent: Equatable, Hashable, Sendable {
    /// What happened.
    public enum Kind: String, Hashable, Sendable {
        /// A button went down.
        case press
        /// The pointer moved with a button down (mode 1002).
        case drag
        /// A button went up.
        case release
        /// The pointer moved with no button down (mode 1003 only).
        case move
        /// The wheel turned up.
        case scrollUp
        /// The wheel turned down.
        case scrollDown
    }

    /// Which button.
    public enum Button: String, Hashable, Sendable {
        /// The left (primary) button.
        case left
        /// The middle button.
        case middle
        /// The right button.
        case right
        /// No button (motion, wheel).
        case none
    }

    /// What happened.
    public var kind: Kind
    /// Which button.
    public var button: Button
    /// 0-based column.
    public var column: Int
    /// 0-based row.
    public var row: Int
    /// Shift, Alt (Meta) and Control, as the report's modifier bits (4, 8, 16).
    public var modifiers: UInt8

    /// Creates an event.
    public init(kind: Kind, button: Button, column: Int, row: Int, modifiers: UInt8 = 0) {
        self.kind = kind
        self.button = button
        self.column = column
        self.row = row
        self.modifiers = modifiers
    }
}
