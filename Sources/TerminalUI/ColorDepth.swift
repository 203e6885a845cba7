/// How many colours a terminal shows: 24-bit only where it says so, else xterm's 256-colour palette or the
/// 16 ANSI colours, so that a card's colour is drawn as near as the terminal can instead of as whatever
/// it makes of an escape it does not know (the Linux console, for one, misreads 24-bit escapes).
public enum ColorDepth: Equatable, Sendable {
    /// The 16 ANSI colours.
    case ansi16
    /// xterm's 256-colour palette.
    case palette256
    /// 24-bit RGB.
    case trueColor

    /// The depth `COLORTERM` and `TERM` announce: `COLORTERM=truecolor` or `24bit` (what terminals that
    /// take 24-bit colour set), or a `TERM` ending in `-direct`, is 24-bit; a `TERM` naming 256 colours is
    /// the palette; anything else the 16 colours.
    public static func announced(colorTerm: String?, term: String?) -> ColorDepth {
        let colorTerm = colorTerm?.lowercased() ?? ""
        let term = term?.lowercased() ?? ""
        if colorTerm == "truecolor" || colorTerm == "24bit" || term.hasSuffix("-direct") { return .trueColor }
        if term.contains("256color") { return .palette256 }
        return .ansi16
    }
}

extension TerminalColor {
    /// This colour as near as a terminal of `depth` shows it: RGB turned into the nearest palette entry
    /// (the 6×6×6 cube or the grey ramp) or the nearest of the 16 ANSI colours as xterm draws them
    /// (`nearestANSI`).
    public func reduced(to depth: ColorDepth) -> TerminalColor {
        switch (self, depth) {
        case (.default, _), (_, .trueColor), (.ansi, _): return self
        case (.palette(let index), .ansi16): return TerminalColor.nearestANSI(TerminalColor.paletteRGB(index))
        case (.palette, .palette256): return self
        case (.rgb(let r, let g, let b), .palette256): return .palette(TerminalColor.nearestPaletteIndex(r, g, b))
        case (.rgb(let r, let g, let b), .ansi16): return TerminalColor.nearestANSI((r, g, b))
        }
    }

    /// The levels of the palette's 6×6×6 colour cube (entries 16–231).
    static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

    /// The palette entry nearest to an RGB colour: the nearest cube colour or the nearest of the 24
    /// greys (entries 232–255, 8 to 238 by 10), whichever is nearer.
    static func nearestPaletteIndex(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        func level(_ value: UInt8) -> Int {
            cubeLevels.indices.min { abs(cubeLevels[$0] - Int(value)) < abs(cubeLevels[$1] - Int(value)) } ?? 0
        }
        let (red, green, blue) = (level(r), level(g), level(b))
        let cube = (cubeLevels[red], cubeLevels[green], cubeLevels[blue])
        let average = (Int(r) + Int(g) + Int(b)) / 3
        let grey = min(23, max(0, (average - 3) / 10))
        let greyValue = 8 + 10 * grey
        let rgb = (Int(r), Int(g), Int(b))
        let cubeIndex = UInt8(16 + 36 * red + 6 * green + blue)
        return distance(rgb, cube) <= distance(rgb, (greyValue, greyValue, greyValue)) ? cubeIndex : UInt8(232 + grey)
    }

    /// The RGB of palette entry `index` as xterm draws it.
    static func paletteRGB(_ index: UInt8) -> (UInt8, UInt8, UInt8) {
        switch index {
        case 0..<16:
            let (r, g, b) = ansiRGB[Int(index)]
            return (UInt8(r), UInt8(g), UInt8(b))
        case 16..<232:
            let cube = Int(index) - 16
            return (UInt8(cubeLevels[cube / 36]), UInt8(cubeLevels[cube / 6 % 6]), UInt8(cubeLevels[cube % 6]))
        default:
            let value = UInt8(8 + 10 * (Int(index) - 232))
            return (value, value, value)
        }
    }

    /// The 16 ANSI colours as xterm draws them.
    static let ansiRGB: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
        (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255),
        (0, 255, 255), (255, 255, 255),
    ]

    /// The ANSI colours with a hue (all but black, the two greys and white).
    static let chromaticANSI = [1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14]
    /// All 16 ANSI colours, by index.
    static let allANSI = Array(ansiRGB.indices)

    /// The ANSI colour nearest to an RGB colour; a clearly coloured one (its channels at least 64 apart)
    /// keeps a hue, as nearest among the colours that have one: a purple card nearest to grey by distance
    /// alone is drawn magenta.
    static func nearestANSI(_ color: (UInt8, UInt8, UInt8)) -> TerminalColor {
        let rgb = (Int(color.0), Int(color.1), Int(color.2))
        let saturated = max(rgb.0, rgb.1, rgb.2) - min(rgb.0, rgb.1, rgb.2) >= 64
        let candidates = saturated ? chromaticANSI : allANSI
        let index = candidates.min { distance(rgb, ansiRGB[$0]) < distance(rgb, ansiRGB[$1]) } ?? 0
        return .ansi(UInt8(index))
    }

    /// The squared distance between two RGB colours.
    static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        let (dr, dg, db) = (a.0 - b.0, a.1 - b.1, a.2 - b.2)
        return dr * dr + dg * dg + db * db
    }
}
