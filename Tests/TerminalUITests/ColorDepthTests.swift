import Testing

@testable import TerminalUI

/// Card colours drawn as near as the terminal can: 24-bit only where the terminal says so.
@Suite("Colour depth: what the terminal announces, and RGB drawn as the nearest it has")
struct ColorDepthTests {
    @Test("COLORTERM and TERM tell the depth")
    func announced() {
        let cases: [(String?, String?, ColorDepth)] = [
            ("truecolor", "xterm-256color", .trueColor), ("24bit", "screen", .trueColor),
            ("TrueColor", nil, .trueColor), (nil, "xterm-direct", .trueColor), (nil, "xterm-256color", .palette256),
            ("", "tmux-256color", .palette256), (nil, "linux", .ansi16), (nil, "xterm", .ansi16), (nil, nil, .ansi16),
            ("yes", "vt100", .ansi16),
        ]
        for (colorTerm, term, depth) in cases {
            #expect(
                ColorDepth.announced(colorTerm: colorTerm, term: term) == depth, "\(colorTerm ?? "-") \(term ?? "-")")
        }
    }

    @Test("every RGB colour becomes the palette entry nearest to it, and the ANSI colour nearest to it")
    func nearest() {
        var checked = 0
        for r in stride(from: 0, through: 255, by: 17) {
            for g in stride(from: 0, through: 255, by: 17) {
                for b in stride(from: 0, through: 255, by: 17) {
                    let color = TerminalColor.rgb(UInt8(r), UInt8(g), UInt8(b))
                    let rgb = (r, g, b)
                    // The nearest entry by a search over all 240 cube and grey entries.
                    let best = (16...255).map { UInt8($0) }.min { x, y in
                        let a = TerminalColor.paletteRGB(x)
                        let c = TerminalColor.paletteRGB(y)
                        return TerminalColor.distance(rgb, (Int(a.0), Int(a.1), Int(a.2)))
                            < TerminalColor.distance(rgb, (Int(c.0), Int(c.1), Int(c.2)))
                    }!
                    guard case .palette(let index) = color.reduced(to: .palette256) else {
                        Issue.record("\(rgb) did not become a palette entry")
                        continue
                    }
                    let found = TerminalColor.paletteRGB(index)
                    let wanted = TerminalColor.paletteRGB(best)
                    #expect(
                        TerminalColor.distance(rgb, (Int(found.0), Int(found.1), Int(found.2)))
                            == TerminalColor.distance(rgb, (Int(wanted.0), Int(wanted.1), Int(wanted.2))),
                        "\(rgb): entry \(index), nearest \(best)")
                    guard case .ansi(let ansi) = color.reduced(to: .ansi16), ansi < 16 else {
                        Issue.record("\(rgb) did not become an ANSI colour")
                        continue
                    }
                    // Nearest among all 16, or among those with a hue for a clearly coloured one.
                    let saturated = max(r, g, b) - min(r, g, b) >= 64
                    let allowed = saturated ? TerminalColor.chromaticANSI : Array(0..<16)
                    let distances = allowed.map { TerminalColor.distance(rgb, TerminalColor.ansiRGB[$0]) }
                    #expect(allowed.contains(Int(ansi)), "\(rgb): ANSI \(ansi)")
                    #expect(
                        TerminalColor.distance(rgb, TerminalColor.ansiRGB[Int(ansi)]) == distances.min(),
                        "\(rgb): ANSI \(ansi)")
                    #expect(color.reduced(to: .trueColor) == color)
                    checked += 1
                }
            }
        }
        #expect(checked == 16 * 16 * 16)
        // The swipe's "release to delete" red, and a palette entry on a 16-colour terminal.
        #expect(TerminalColor.alarm.reduced(to: .palette256) == .palette(160))
        #expect(TerminalColor.alarm.reduced(to: .ansi16) == .ansi(1))
        #expect(TerminalColor.palette(160).reduced(to: .ansi16) == .ansi(1))
        #expect(TerminalColor.ansi(4).reduced(to: .palette256) == .ansi(4))
        // Every named card colour on a 16-colour terminal, as a person would pick it.
        let expected: [String: UInt8] = [
            "red": 1, "orange": 3, "yellow": 3, "green": 2, "mint": 6, "teal": 6, "cyan": 6, "blue": 12, "indigo": 12,
            "purple": 5, "pink": 5, "brown": 8, "gray": 8, "black": 0, "white": 7,
        ]
        for (name, ansi) in expected {
            let (r, g, b) = CardColor.rgb(name)
            #expect(TerminalColor.rgb(r, g, b).reduced(to: .ansi16) == .ansi(ansi), "\(name)")
        }
        // A purple card stays purple-ish (magenta), not grey; a dark grey card stays dark.
        #expect(TerminalColor.rgb(142, 68, 173).reduced(to: .ansi16) == .ansi(5))
        #expect(TerminalColor.rgb(30, 30, 30).reduced(to: .ansi16) == .ansi(0))
        #expect(TerminalColor.default.reduced(to: .ansi16) == .default)
    }

    @Test("the renderer writes the colour the terminal has: 24-bit, palette or ANSI escapes")
    func rendered() {
        for (depth, escape) in [
            (ColorDepth.trueColor, "48;2;200;40;40"), (.palette256, "48;5;160"), (.ansi16, "41"),
        ] {
            var renderer = ScreenRenderer(colorDepth: depth)
            var grid = ScreenGrid(size: TerminalSize(columns: 4, rows: 1))
            grid.put("X", row: 0, column: 0, style: CellStyle(background: .alarm))
            let out = String(decoding: renderer.render(grid), as: UTF8.self)
            #expect(out.contains("\u{1B}[0;\(escape)mX"), "\(depth): \(out.debugDescription)")
        }
    }
}
