/// One character cell of the screen.
public struct Cell: Equatable, Hashable, Sendable {
    /// What is drawn (a space for an empty cell).
    public var character: Character
    /// Colours and attributes.
    public var style: CellStyle
    /// True for the right half of a wide (two-column) character: nothing is drawn there.
    public var isContinuation: Bool

    /// Creates a cell.
    public init(_ character: Character = " ", style: CellStyle = .plain, isContinuation: Bool = false) {
        self.character = character
        self.style = style
        self.isContinuation = isContinuation
    }

    /// An empty cell in the default look.
    public static let blank = Cell()
}
