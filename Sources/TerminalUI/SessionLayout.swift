import SwipeEngine

/// Where the card stack sits on the screen, and how terminal cells map to gesture points.
///
/// A column is `card width / card columns` points; a row counts twice that, because a terminal cell is about
/// twice as tall as it is wide, so a diagonal drag keeps its angle.
struct SessionLayout: Equatable {
    var columns: Int
    var rows: Int
    var left: Int
    var top: Int
    var pointsPerColumn: Double
    var pointsPerRow: Double
    var cardSize: SwipeSize

    /// The smallest terminal that shows a card.
    static let minimumColumns = 24
    /// The fewest rows that show a card.
    static let minimumRows = 10

    /// Nil when the terminal is too small to show a card.
    init?(size: TerminalSize, cardSize: SwipeSize) {
        guard size.columns >= Self.minimumColumns, size.rows >= Self.minimumRows, cardSize.isUsable else { return nil }
        columns = min(46, size.columns - 6)
        rows = min(11, size.rows - 7)
        left = (size.columns - columns) / 2
        top = 2
        pointsPerColumn = cardSize.width / Double(columns)
        pointsPerRow = pointsPerColumn * 2
        self.cardSize = cardSize
    }

    /// Whether a cell is on the card at rest.
    func isOnCard(column: Int, row: Int) -> Bool {
        column >= left && column < left + columns && row >= top && row < top + rows
    }

    /// The card-local point (in card points) under a cell, for the grab-point rotation.
    func cardPoint(column: Int, row: Int) -> SwipeVector {
        SwipeVector(
            x: (Double(column - left) + 0.5) * pointsPerColumn,
            y: (Double(row - top) + 0.5) / Double(rows) * cardSize.height)
    }

    /// A translation in points for a movement in cells.
    func translation(columns dx: Int, rows dy: Int) -> SwipeVector {
        SwipeVector(x: Double(dx) * pointsPerColumn, y: Double(dy) * pointsPerRow)
    }

    /// Whole cells for an offset in points, clamped so a huge offset cannot overflow.
    func cells(for offset: SwipeVector) -> (columns: Int, rows: Int) {
        func clamp(_ v: Double) -> Int {
            guard v.isFinite else { return 0 }
            return Int(min(max(v, -10_000), 10_000).rounded())
        }
        return (clamp(offset.x / pointsPerColumn), clamp(offset.y / pointsPerRow))
    }
}
