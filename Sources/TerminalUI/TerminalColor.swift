/// A cell colour: the terminal's default, one of the 16 ANSI colours, an entry of the 256-colour palette,
/// or 24-bit RGB.
public enum TerminalColor: Equatable, Hashable, Sendable {
    /// The terminal's own foreground or background.
    case `default`
    /// ANSI colour 0...15 (8...15 are the bright ones).
    case ansi(UInt8)
    /// Entry 0...255 of xterm's 256-colour palette.
    case palette(UInt8)
    /// A 24-bit colour.
    case rgb(UInt8, UInt8, UInt8)

    /// Pure-ish red, the "release to delete" background.
    public static let alarm = TerminalColor.rgb(200, 40, 40)
    /// Green, the "release to keep" background.
    public static let keep = TerminalColor.rgb(40, 150, 70)

    /// The SGR parameters selecting this colour as foreground (`background == false`) or background.
    func sgr(background: Bool) -> String {
        switch self {
        case .default: return background ? "49" : "39"
        case .ansi(let n) where n < 8: return String((background ? 40 : 30) + Int(n))
        case .ansi(let n): return String((background ? 100 : 90) + Int(n & 7))
        case .palette(let n): return "\(background ? 48 : 38);5;\(n)"
        case .rgb(let r, let g, let b): return "\(background ? 48 : 38);2;\(r);\(g);\(b)"
        }
    }
}
