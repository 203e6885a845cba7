/// Turns a card's colour (a name or `#rrggbb`/`#rgb`) into terminal colours.
enum CardColor {
    static let named: [String: (UInt8, UInt8, UInt8)] = [
        "red": (215, 58, 73), "orange": (230, 126, 34), "yellow": (241, 196, 15), "green": (39, 174, 96),
        "mint": (0, 199, 190), "teal": (22, 160, 133), "cyan": (0, 172, 193), "blue": (41, 98, 255),
        "indigo": (88, 86, 214), "purple": (142, 68, 173), "pink": (232, 67, 147), "brown": (141, 110, 99),
        "gray": (110, 110, 120), "grey": (110, 110, 120), "black": (30, 30, 30), "white": (240, 240, 240),
    ]
    /// Used for a colour the session cannot read.
    static let fallback: (UInt8, UInt8, UInt8) = (70, 90, 130)

    static func rgb(_ text: String) -> (UInt8, UInt8, UInt8) {
        let lower = text.lowercased()
        if let color = named[lower] { return color }
        guard lower.hasPrefix("#") else { return fallback }
        var hex = Array(lower.dropFirst())
        if hex.count == 3 { hex = hex.flatMap { [$0, $0] } }
        guard hex.count == 6, let value = UInt32(String(hex), radix: 16) else { return fallback }
        return (UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
    }

    /// The card's background and a readable text colour on it.
    static func style(for text: String) -> CellStyle {
        let (r, g, b) = rgb(text)
        let luminance = (299 * Int(r) + 587 * Int(g) + 114 * Int(b)) / 1000
        let foreground: TerminalColor = luminance > 150 ? .rgb(20, 20, 20) : .rgb(250, 250, 250)
        return CellStyle(foreground: foreground, background: .rgb(r, g, b))
    }
}
