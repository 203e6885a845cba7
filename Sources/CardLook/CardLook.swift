/// How a card is drawn, the same on `cards serve`'s page and on the page `cards publish` writes: its
/// colour, the ink (black or white) that reads on it, and its platform's glyph.
///
/// The one source of these rules: the published page takes them from here, and app.js keeps a copy for
/// the browser that a test (DeckServerTests' look agreement) runs through node and compares, over every
/// colour a card may have and every icon name.
public enum CardLook {
    /// The colour names a card may use (`Card.colorNames`) and a few the page also reads (`mint`, `cyan`,
    /// `grey`), as `#rrggbb`: Apple's system colours, as the seeds draw them.
    public static let colours: [String: String] = [
        "red": "#ff3b30", "orange": "#ff9500", "yellow": "#ffcc00", "green": "#34c759", "mint": "#00c7be",
        "teal": "#30b0c7", "cyan": "#32ade6", "blue": "#007aff", "indigo": "#5856d6", "purple": "#af52de",
        "pink": "#ff2d55", "brown": "#a2845e", "gray": "#8e8e93", "grey": "#8e8e93", "black": "#1c1c1e",
        "white": "#f2f2f7",
    ]

    /// The colour of a card whose colour is neither a name nor `#rrggbb` (gray).
    public static let fallbackColour = "#8e8e93"

    /// `color` as lowercase `#rrggbb`: a `#rrggbb` of any case as it is, a name (of any case) from
    /// `colours`, anything else `fallbackColour`.
    public static func hex(for color: String) -> String {
        let bytes = Array(color.utf8)
        if bytes.count == 7, bytes[0] == UInt8(ascii: "#"), bytes.dropFirst().allSatisfy({ digit($0) != nil }) {
            return color.lowercased()
        }
        return colours[color.lowercased()] ?? fallbackColour
    }

    /// WCAG 2's relative luminance of `hex` (`#rrggbb`, as `hex(for:)` gives), 0 (black) to 1 (white).
    public static func luminance(_ hex: String) -> Double {
        let bytes = Array(hex.utf8)
        guard bytes.count == 7 else { return 0 }
        func channel(_ at: Int) -> Double {
            let value = Double((digit(bytes[at]) ?? 0) * 16 + (digit(bytes[at + 1]) ?? 0)) / 255
            return value <= 0.04045 ? value / 12.92 : power24((value + 0.055) / 1.055)
        }
        return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
    }

    /// WCAG 2's contrast ratio of two colours, 1 to 21 (AA asks 4.5 of body text).
    public static func contrast(_ first: String, _ second: String) -> Double {
        let (a, b) = (luminance(first), luminance(second))
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// The card's text colour on `hex`: black or white, whichever contrasts more (black on a tie). One of
    /// them is at least 4.58:1 on any colour.
    public static func ink(for hex: String) -> String {
        contrast(hex, "#000000") >= contrast(hex, "#ffffff") ? "#000000" : "#ffffff"
    }

    private static func digit(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    /// `x` to the power 2.4 for `x` in (0, 1], with the standard library alone (it has no `pow`): x² times
    /// the fifth root of x², the root by Newton's method, which from 1 descends to it and stops where a step
    /// no longer lowers it (within an ulp or two of the C library's `pow`, that app.js's `Math.pow` uses).
    static func power24(_ x: Double) -> Double {
        let square = x * x
        guard square > 0 else { return 0 }
        var root = 1.0
        for _ in 0..<100 {
            let fourth = (root * root) * (root * root)
            let next = (4 * root + square / fourth) / 5
            if !(next < root) { break }
            root = next
        }
        return square * root
    }

    /// `text` safe in HTML text and in a double-quoted attribute: `& < > " '` as entities (the published
    /// page and `cards serve`'s own pages).
    public static func htmlEscaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 38 || $0 == 60 || $0 == 62 || $0 == 34 || $0 == 39 }) else {
            return text
        }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
