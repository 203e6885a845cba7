/// The escape sequences that switch terminal modes, in the order they are entered and left.
public enum TerminalModes {
    /// The alternate screen (the user's scrollback is left alone and comes back on exit).
    public static let enterAlternateScreen = "\u{1B}[?1049h"
    /// Back to the normal screen.
    public static let leaveAlternateScreen = "\u{1B}[?1049l"
    /// Hides the cursor.
    public static let hideCursor = "\u{1B}[?25l"
    /// Shows the cursor.
    public static let showCursor = "\u{1B}[?25h"
    /// Mouse reporting: presses and releases (1000), drags with a button down (1002), SGR coordinates (1006).
    public static let enableMouse = "\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h"
    /// Mouse reporting off, in reverse order.
    public static let disableMouse = "\u{1B}[?1006l\u{1B}[?1002l\u{1B}[?1000l"
    /// Everything the interactive session turns on.
    public static let enterAll = enterAlternateScreen + hideCursor + enableMouse + "\u{1B}[2J"
    /// Everything it turns off, with the colours reset.
    public static let leaveAll = "\u{1B}[0m" + disableMouse + showCursor + leaveAlternateScreen
}
