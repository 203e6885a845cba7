/// How many columns a character takes in a terminal: 2 for East Asian wide characters and emoji shown as
/// pictures, 0 for invisible formatting characters, else 1.
///
/// A table of the common wide ranges, not the full Unicode East Asian Width data: enough for card titles in
/// Chinese, Japanese or Korean, which the seeds were written in.
public enum CharacterWidth {
    /// The columns `character` takes: 2 for East Asian wide characters and most emoji, else 1.
    public static func of(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 1 }
        // Invisible formatting (zero-width spaces, joiners, bidi controls): no column (`ScreenGrid.put`
        // leaves them out).
        if scalar.properties.generalCategory == .format { return 0 }
        // Emoji drawn as pictures (🚀, 🫠, ✅), and any character asked to be one (U+FE0F), take two.
        if scalar.properties.isEmojiPresentation || character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) {
            return 2
        }
        let v = scalar.value
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
        ]
        return wide.contains { $0.contains(v) } ? 2 : 1
    }
}

extension CharacterWidth {
    /// The columns a whole string takes.
    public static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }
}
