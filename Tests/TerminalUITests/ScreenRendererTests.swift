import Testing

@testable import TerminalUI

@Suite("Screen grid and renderer")
struct ScreenRendererTests {
    static let size = TerminalSize(columns: 20, rows: 5)

    @Test func firstFrameClearsAndDrawsText() {
        var renderer = ScreenRenderer()
        var grid = ScreenGrid(size: Self.size)
        grid.put("hi", row: 1, column: 2)
        let out = String(decoding: renderer.render(grid), as: UTF8.self)
        #expect(out.hasPrefix("\u{1B}[0m\u{1B}[2J"))
        #expect(out.contains("\u{1B}[2;3H"))
        #expect(out.contains("hi"))
    }

    @Test func anIdenticalFrameWritesNothing() {
        var renderer = ScreenRenderer()
        var grid = ScreenGrid(size: Self.size)
        grid.put("hello", row: 0, column: 0, style: CellStyle(foreground: .ansi(2), attributes: .bold))
        _ = renderer.render(grid)
        #expect(renderer.render(grid).isEmpty)
    }

    @Test func oneChangedCellWritesOnlyThatCell() {
        var renderer = ScreenRenderer()
        var grid = ScreenGrid(size: Self.size)
        grid.put("hello world", row: 2, column: 0)
        _ = renderer.render(grid)
        grid[2, 4] = Cell("O", style: CellStyle(foreground: .rgb(1, 2, 3)))
        let out = String(decoding: renderer.render(grid), as: UTF8.self)
        #expect(out == "\u{1B}[3;5H\u{1B}[0;38;2;1;2;3mO\u{1B}[0m")
    }

    @Test func adjacentChangesShareOneCursorMove() {
        var renderer = ScreenRenderer()
        var grid = ScreenGrid(size: Self.size)
        _ = renderer.render(grid)
        grid.put("ab", row: 0, column: 0)
        #expect(String(decoding: renderer.render(grid), as: UTF8.self) == "\u{1B}[1;1H\u{1B}[0mab")
    }

    @Test func aResizeRedrawsEverything() {
        var renderer = ScreenRenderer()
        _ = renderer.render(ScreenGrid(size: Self.size))
        let out = renderer.render(ScreenGrid(size: TerminalSize(columns: 10, rows: 3)))
        #expect(String(decoding: out, as: UTF8.self).contains("\u{1B}[2J"))
        renderer.invalidate()
        #expect(!renderer.render(ScreenGrid(size: TerminalSize(columns: 10, rows: 3))).isEmpty)
    }

    @Test func wideCharactersTakeTwoCells() {
        var grid = ScreenGrid(size: Self.size)
        #expect(grid.put("中a", row: 0, column: 0) == 3)
        #expect(grid[0, 1].isContinuation)
        #expect(grid.lines[0].hasPrefix("中a "))
        #expect(ScreenGrid.truncate("abcdef", toColumns: 4) == "abc…")
        #expect(ScreenGrid.truncate("abc", toColumns: 4) == "abc")
        var renderer = ScreenRenderer()
        let out = String(decoding: renderer.render(grid), as: UTF8.self)
        #expect(out.contains("中a"))
    }

    @Test func drawingOffTheGridIsClipped() {
        var grid = ScreenGrid(size: Self.size)
        grid.put("abc", row: -1, column: -1)
        grid.put("xyz", row: 0, column: 18)
        grid.put("\u{7}bell", row: 1, column: 0)
        #expect(grid.lines[0].hasSuffix("xy"))
        #expect(grid.lines[1].hasPrefix("?bell"))
    }

    @Test("a wide character cut by the right or left edge leaves a blank, never half of it for the terminal to wrap")
    func wideCharacterAtAnEdge() {
        var grid = ScreenGrid(size: Self.size)
        grid.put("ab中", row: 4, column: 17)
        grid.put("中z", row: 3, column: -1)
        #expect(grid.lines[4].hasSuffix("ab "), "\(grid.lines[4])")
        #expect(grid.lines[3].hasPrefix(" z"), "\(grid.lines[3])")
        #expect(!grid[4, 19].isContinuation && !grid[3, 0].isContinuation)
        var renderer = ScreenRenderer()
        let out = String(decoding: renderer.render(grid), as: UTF8.self)
        #expect(!out.contains("中"), "\(out)")
    }
}

@Suite("Character widths and what is drawn of a title")
struct CharacterWidthTests {
    @Test("emoji shown as pictures and CJK take two columns, invisible formatting none, the rest one")
    func widths() {
        for wide in ["🚀", "🫠", "✅", "中", "한", "❤️"] { #expect(CharacterWidth.of(Character(wide)) == 2, "\(wide)") }
        for narrow in ["a", "é", "ש", "م", "←"] { #expect(CharacterWidth.of(Character(narrow)) == 1, "\(narrow)") }
        for invisible in ["\u{200B}", "\u{202E}", "\u{2066}", "\u{FEFF}"] {
            #expect(
                CharacterWidth.of(Character(invisible)) == 0,
                "U+\(String(invisible.unicodeScalars.first!.value, radix: 16))")
        }
    }

    @Test("a title's bidi override and zero-width spaces are left out and controls shown as ?, so the border stays put")
    func putLeavesOutFormatting() {
        var grid = ScreenGrid(size: TerminalSize(columns: 20, rows: 1))
        let used = grid.put("a\u{202E}b\u{200B}c\u{9B}d🚀", row: 0, column: 0)
        #expect(used == 7)
        #expect(grid.text.hasPrefix("abc?d🚀"), "\(grid.text)")
    }
}
