/// Turns frames into terminal output, writing only the cells that changed since the previous frame.
///
/// The caller writes the returned bytes in one `write` per frame; an identical frame gives no bytes at all.
public struct ScreenRenderer: Sendable {
    private var previous: ScreenGrid?
    /// Draw without colours (bold, dim and reverse stay): for `NO_COLOR`.
    public var monochrome: Bool
    /// The colours the terminal shows: RGB is drawn as the nearest it has.
    public var colorDepth: ColorDepth

    /// Creates a renderer whose first frame is drawn in full.
    public init(monochrome: Bool = false, colorDepth: ColorDepth = .trueColor) {
        self.monochrome = monochrome
        self.colorDepth = colorDepth
    }

    /// Forgets the previous frame: the next one is drawn in full (after a resize, or when the screen was
    /// disturbed).
    public mutating func invalidate() { previous = nil }

    /// The bytes that turn the previous frame into `grid`.
    public mutating func render(_ grid: ScreenGrid) -> [UInt8] {
        var out = ""
        let old = previous.flatMap { $0.size == grid.size ? $0 : nil }
        if old == nil { out += "\u{1B}[0m\u{1B}[2J" }
        var cursor: (row: Int, column: Int)? = nil
        var style: CellStyle? = nil
        for row in 0..<grid.size.rows {
            var column = 0
            while column < grid.size.columns {
                let cell = grid[row, column]
                let wide = !cell.isContinuation && grid[row, column + 1].isContinuation
                let span = wide ? 2 : 1
                defer { column += cell.isContinuation ? 1 : span }
                if cell.isContinuation { continue }
                if let old {
                    let same = old[row, column] == cell && (!wide || old[row, column + 1] == grid[row, column + 1])
                    if same { continue }
                } else if cell == .blank {
                    continue  // the clear already drew it
                }
                if cursor.map({ $0.row != row || $0.column != column }) ?? true {
                    out += "\u{1B}[\(row + 1);\(column + 1)H"
                }
                let cellStyle =
                    monochrome
                    ? CellStyle(attributes: cell.style.attributes)
                    : CellStyle(
                        foreground: cell.style.foreground.reduced(to: colorDepth),
                        background: cell.style.background.reduced(to: colorDepth), attributes: cell.style.attributes)
                if style != cellStyle {
                    out += cellStyle.escape
                    style = cellStyle
                }
                out.append(cell.character)
                cursor = (row, column + span)
            }
        }
        if style != nil && style != .plain { out += "\u{1B}[0m" }
        previous = grid
        return Array(out.utf8)
    }
}
