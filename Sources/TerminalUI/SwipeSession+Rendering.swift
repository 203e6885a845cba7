import Glibc
import SwipeEngine

extension SwipeSession {
    /// How the top card is highlighted.
    enum Highlight {
        case none
        case delete
        case keep
    }

    /// The screen for the current state.
    public func render() -> ScreenGrid {
        var grid = ScreenGrid(size: size)
        guard size.columns > 0, size.rows > 0 else { return grid }
        let header = " CardDeck · swipe"
        grid.put(header, row: 0, column: 0, style: CellStyle(attributes: .bold))
        let preset = "preset \(configuration.name) "
        // Only beside the header, never run into it.
        if ScreenGrid.width(of: header) + 1 + ScreenGrid.width(of: preset) <= size.columns {
            grid.put(
                preset, row: 0, column: size.columns - ScreenGrid.width(of: preset), style: CellStyle(attributes: .dim))
        }
        drawFooter(into: &grid)
        guard let layout = SessionLayout(size: size, cardSize: cardSize) else {
            // Short lines, so that even a narrow terminal shows the size it needs.
            let lines = [
                "Too small:", "needs \(SessionLayout.minimumColumns)×\(SessionLayout.minimumRows),",
                "now \(size.columns)×\(size.rows).",
            ]
            for (index, line) in lines.enumerated() where 1 + index < size.rows {
                let column = size.columns > ScreenGrid.width(of: line) ? 1 : 0
                let blank = String(repeating: " ", count: max(0, size.columns - column - ScreenGrid.width(of: line)))
                grid.put(line + blank, row: 1 + index, column: column)
            }
            return grid
        }
        // Back to front: the cards peeking beneath, the top card, then a card flying out over everything.
        for depth in [2, 1] where position + depth < deck.cards.count {
            draw(deck.cards[position + depth], layout: layout, depth: depth, into: &grid)
        }
        if let card = topCard {
            if drag != nil, let frame, gestureCard?.id == card.id {
                let highlight: Highlight = frame.armed ? (frame.candidate == .right ? .keep : .delete) : .none
                draw(
                    card, layout: layout, offset: frame.offset, rotation: frame.rotation, anchor: frame.anchor,
                    highlight: highlight, into: &grid)
            } else if let settling, settling.card.id == card.id {
                let state = settling.state(at: now)
                draw(
                    card, layout: layout, offset: state.offset, rotation: state.rotation, anchor: settling.anchor,
                    into: &grid)
            } else {
                draw(card, layout: layout, into: &grid)
            }
        } else {
            let message = deck.cards.isEmpty ? "The deck is empty." : "No more cards."
            grid.put(
                message, row: layout.top + layout.rows / 2, column: layout.left + 2, style: CellStyle(attributes: .bold)
            )
        }
        if let flying {
            let state = flying.state(at: now)
            draw(
                flying.card, layout: layout, offset: state.offset, rotation: state.rotation, anchor: flying.anchor,
                highlight: flying.toOffset.x < 0 ? .delete : .keep, into: &grid)
        }
        return grid
    }

    func drawFooter(into grid: inout ScreenGrid) {
        let bar = CellStyle(attributes: .reverse)
        let armedText = isArmed ? (frame?.candidate == .right ? "release to keep" : "release to delete") : nil
        let status = " \(positionText) · \(armedText ?? lastAction)"
        grid.fill(row: size.rows - 1, column: 0, width: size.columns, height: 1, with: Cell(" ", style: bar))
        // A failure too long for one line (its reason and what to do come at its end) takes the help line
        // too, and the rows below the card stack; any other status is cut, so the keys stay in view.
        if lastActionFailed && armedText == nil && ScreenGrid.width(of: status) > size.columns && statusLines > 1 {
            var lines: [String] = []
            var rest = status
            while !rest.isEmpty && lines.count < statusLines - 1 {
                let (line, after) = ScreenGrid.split(rest, atColumns: size.columns)
                lines.append(line)
                rest = after.isEmpty ? "" : " " + after
            }
            if !rest.isEmpty { lines.append(ScreenGrid.truncate(rest, toColumns: size.columns)) }
            let first = size.rows - lines.count
            grid.fill(row: first, column: 0, width: size.columns, height: lines.count, with: Cell(" ", style: bar))
            for (index, line) in lines.enumerated() { grid.put(line, row: first + index, column: 0, style: bar) }
            return
        }
        let help = " ←/→ or drag · Enter/Space release · u undo · q quit"
        if size.rows >= 3 { grid.put(help, row: size.rows - 2, column: 0, style: CellStyle(attributes: .dim)) }
        grid.put(ScreenGrid.truncate(status, toColumns: size.columns), row: size.rows - 1, column: 0, style: bar)
    }

    /// How many bottom lines a long status may take: the help line's and those below the card stack (the
    /// top card's rows from row 2, and the two cards peeking beneath it a row lower each), at most four.
    var statusLines: Int {
        guard size.rows >= 3 else { return 1 }
        guard size.rows >= SessionLayout.minimumRows else { return 2 }
        let stackBottom = 2 + 2 + min(11, size.rows - 7)
        return min(4, max(2, size.rows - stackBottom))
    }

    /// Draws one card: a framed box in its colour, leaning by `rotation` (drawn as a shear about `anchor`).
    func draw(
        _ card: SwipeCardInfo, layout: SessionLayout, depth: Int = 0, offset: SwipeVector = .zero,
        rotation: Double = 0, anchor: SwipeUnitPoint = .center, highlight: Highlight = .none,
        into grid: inout ScreenGrid
    ) {
        var style = CardColor.style(for: card.color)
        switch highlight {
        case .delete: style.background = .alarm
        case .keep: style.background = .keep
        case .none: break
        }
        if highlight != .none { style.foreground = .rgb(255, 255, 255) }
        if depth > 0 { style.attributes.insert(.dim) }
        let width = layout.columns - 2 * depth
        let (dx, dy) = layout.cells(for: offset)
        let inner = width - 4
        var lines = Array(repeating: "", count: layout.rows)
        if depth == 0, layout.rows >= 6 {
            lines[1] = card.title
            lines[2] = card.platformName
            lines[3] = card.platformIcon.isEmpty ? "" : "icon: \(card.platformIcon)"
            lines[4] = card.indexURL
            // A conflict's lines, between the link and the release label.
            for (index, note) in card.notes.enumerated() where 5 + index < layout.rows - 2 {
                lines[5 + index] = note
            }
            // Centred, so it stays on screen while the card hangs off an edge.
            let label: String
            switch highlight {
            case .delete: label = "← release to delete"
            case .keep: label = "release to keep →"
            case .none: label = ""
            }
            let indent = max(0, (inner - ScreenGrid.width(of: label)) / 2)
            // On a card of six rows the label's line is the link's: taken only while there is a label.
            if highlight != .none || layout.rows > 6 {
                lines[layout.rows - 2] = String(repeating: " ", count: indent) + label
            }
        } else if depth == 0 {
            // A short card (a terminal of 10–12 rows): its title, then its link, as many as fit; red or green
            // and the status bar say what a release would do.
            for (index, text) in [card.title, card.indexURL].enumerated() where index + 1 < layout.rows - 1 {
                lines[index + 1] = text
            }
        }
        let radians = rotation * Double.pi / 180
        let sine = rotation.isFinite ? sin(radians) : 0
        let anchorRow = anchor.y * Double(layout.rows - 1)
        for r in 0..<layout.rows {
            // A rotation drawn as a shear: each row slides by how far the turn moves it sideways.
            let rowPoints = (Double(r) - anchorRow) * layout.pointsPerRow
            let shift = layout.cells(for: SwipeVector(x: -rowPoints * sine, y: 0)).columns
            let x = layout.left + depth + dx + shift
            let y = layout.top + depth + dy + r
            let text: String
            if r == 0 {
                text = "╭" + String(repeating: "─", count: width - 2) + "╮"
            } else if r == layout.rows - 1 {
                text = "╰" + String(repeating: "─", count: width - 2) + "╯"
            } else {
                let content = ScreenGrid.truncate(lines[r], toColumns: inner)
                let padding = String(repeating: " ", count: max(0, inner - ScreenGrid.width(of: content)))
                text = "│ " + content + padding + " │"
            }
            var lineStyle = style
            if r == 1 || (r == layout.rows - 2 && highlight != .none) { lineStyle.attributes.insert(.bold) }
            // The border keeps the plain style; only the text line is bolded.
            grid.put(String(text.prefix(2)), row: y, column: x, style: style)
            let used = grid.put(String(text.dropFirst(2).dropLast(2)), row: y, column: x + 2, style: lineStyle)
            grid.put(String(text.suffix(2)), row: y, column: x + 2 + used, style: style)
        }
    }
}
