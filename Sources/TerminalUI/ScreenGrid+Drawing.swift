extension ScreenGrid {
    /// Writes text from a position, clipped to the grid and to `maxColumns`; control characters become `?`,
    /// and invisible formatting characters (zero-width spaces, bidi overrides, which could reorder the
    /// border) are left out. Returns the number of columns used.
    @discardableResult
    public mutating func put(
        _ text: String, row: Int, column: Int, style: CellStyle = .plain, maxColumns: Int = .max
    ) -> Int {
        var x = column
        let limit = maxColumns == .max ? Int.max : column + max(0, maxColumns)
        for character in text {
            guard let first = character.unicodeScalars.first else { continue }
            if first.properties.generalCategory == .format { continue }
            let shown: Character = first.properties.generalCategory == .control ? "?" : character
            let width = CharacterWidth.of(shown)
            guard x + width <= limit else { break }
            if width == 2 && (x < 0 || x + 1 >= size.columns) {
                // A wide character cut by an edge of the screen (a card dragged partly off it): its
                // visible half is a blank. Written into the last column, a terminal wraps it onto the next
                // row, and at the bottom right scrolls the whole screen.
                for half in [x, x + 1] where half >= 0 && half < size.columns {
                    self[row, half] = Cell(" ", style: style)
                }
                x += width
                continue
            }
            self[row, x] = Cell(shown, style: style)
            if width == 2 { self[row, x + 1] = Cell(" ", style: style, isContinuation: true) }
            x += width
        }
        return x - column
    }

    /// Fills a rectangle with one cell.
    public mutating func fill(row: Int, column: Int, width: Int, height: Int, with cell: Cell) {
        for r in row..<(row + max(0, height)) {
            for c in column..<(column + max(0, width)) { self[r, c] = cell }
        }
    }

    /// Text truncated to fit `columns` cells, with an ellipsis when cut.
    public static func truncate(_ text: String, toColumns columns: Int) -> String {
        guard columns > 0 else { return "" }
        var used = 0
        var out = ""
        for character in text {
            let width = CharacterWidth.of(character)
            if used + width > columns {
                while used + 1 > columns, let last = out.popLast() { used -= CharacterWidth.of(last) }
                return out + "…"
            }
            out.append(character)
            used += width
        }
        return out
    }

    /// `text` split where it reaches `columns`: the part that fits (ending at a space when one lies in its
    /// second half, so that a word is not cut) and the rest, its leading spaces dropped.
    public static func split(_ text: String, atColumns columns: Int) -> (line: String, rest: String) {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let width = CharacterWidth.of(text[index])
            if used + width > columns { break }
            used += width
            end = text.index(after: index)
        }
        guard end < text.endIndex else { return (text, "") }
        var cut = end
        if text[end] != " ", let space = text[..<end].lastIndex(of: " "),
            width(of: String(text[..<space])) * 2 >= columns
        {
            cut = space
        }
        return (String(text[..<cut]), String(text[cut...].drop { $0 == " " }))
    }

    /// The number of columns a string takes.
    public static func width(of text: String) -> Int {
        text.reduce(0) { $0 + CharacterWidth.of($1) }
    }
}
