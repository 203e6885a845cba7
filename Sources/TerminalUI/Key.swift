/// A key press, decoded from the terminal's bytes.
public enum Key: Equatable, Hashable, Sendable {
    /// A printable character (UTF-8 decoded), e.g. `q`, `u`, `é`, `中`.
    case character(Character)
    /// Return or line feed.
    case enter
    /// The space bar.
    case space
    /// A lone Esc.
    case escape
    /// Backspace (DEL or ^H).
    case backspace
    /// Tab.
    case tab
    /// Arrow up.
    case up
    /// Arrow down.
    case down
    /// Arrow left.
    case left
    /// Arrow right.
    case right
    /// Home.
    case home
    /// End.
    case end
    /// Page up.
    case pageUp
    /// Page down.
    case pageDown
    /// Insert.
    case insert
    /// Delete (forward).
    case delete
    /// Control plus a letter, lower case (`ctrl("c")` is Ctrl-C: in raw mode it arrives as a byte, not a signal).
    case ctrl(Character)

    /// Ctrl-C.
    public static let ctrlC = Key.ctrl("c")
}
