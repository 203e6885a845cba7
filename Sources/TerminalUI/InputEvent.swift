/// One decoded input: a key or a mouse report.
public enum InputEvent: Equatable, Hashable, Sendable {
    /// A key press.
    case key(Key)
    /// A mouse report.
    case mouse(MouseEvent)
}
