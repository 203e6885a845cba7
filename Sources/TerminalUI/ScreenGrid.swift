/// A frame of the screen: rows × columns of cells, drawn into by the UI and diffed by `ScreenRenderer`.
public struct ScreenGrid: Equatable, Sendable {
    /// The size in cells.
    public let size: TerminalSize
    /// The cells, row by row.
    public private(set) var cells: [Cell]

    /// A blank grid.
    public init(size: TerminalSize) {
        self.size = size
        self.cells = Array(repeating: .blank, count: size.columns * size.rows)
    }

    /// The cell at a row and column, or a blank cell outside the grid.
    public subscript(row: Int, column: Int) -> Cell {
        get { contains(row: row, column: column) ? cells[row * size.columns + column] : .blank }
        set {
            guard contains(row: row, column: column) else { return }
            cells[row * size.columns + column] = newValue
        }
    }

    /// Whether a position is on the grid.
    public func contains(row: Int, column: Int) -> Bool {
        row >= 0 && row < size.rows && column >= 0 && column < size.columns
    }

    /// The text of each row (wide characters once), for tests and logs.
    public var lines: [String] {
        (0..<size.rows).map { row in
            var line = ""
            for column in 0..<size.columns where !self[row, column].isContinuation {
                line.append(self[row, column].character)
            }
            return line
        }
    }

    /// All rows joined by newlines.
    public var text: String { lines.joined(separator: "\n") }
}
