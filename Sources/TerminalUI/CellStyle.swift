/// The look of a cell: colours and attributes.
public struct CellStyle: Equatable, Hashable, Sendable {
    /// The text colour.
    public var foreground: TerminalColor
    /// The background colour.
    public var background: TerminalColor
    /// Bold, dim, italic, underline, reverse.
    public var attributes: CellAttributes

    /// Creates a style.
    public init(
        foreground: TerminalColor = .default, background: TerminalColor = .default, attributes: CellAttributes = []
    ) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// The terminal's default look.
    public static let plain = CellStyle()

    /// The SGR escape that selects exactly this style (it starts with a reset, so no state leaks).
    var escape: String {
        var parameters = ["0"]
        let codes: [(CellAttributes, String)] = [
            (.bold, "1"), (.dim, "2"), (.italic, "3"), (.underline, "4"), (.reverse, "7"),
        ]
        for (attribute, code) in codes where attributes.contains(attribute) { parameters.append(code) }
        if foreground != .default { parameters.append(foreground.sgr(background: false)) }
        if background != .default { parameters.append(background.sgr(background: true)) }
        return "\u{1B}[" + parameters.joined(separator: ";") + "m"
    }
}
