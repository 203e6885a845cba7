import CardModel
import TerminalUI

/// How cards look in the human (non-JSON) output.
enum CardText {
    static let knownOrder = ["title", "id", "platformName", "platformIcon", "indexURL", "color", "rank", "conflicts"]

    /// A card over several lines: title, then each field.
    static func detail(_ card: Card) -> String {
        var text = "\(card.title)\n"
        text += "  id        \(card.id)\n"
        let platform = card.platformName.isEmpty ? "-" : card.platformName
        text += "  platform  \(platform)\(card.platformIcon.isEmpty ? "" : " (icon \(card.platformIcon))")\n"
        text += "  url       \(card.indexURL)\n"
        text += "  color     \(card.color)\n"
        text += "  rank      \(card.rank)\n"
        for key in card.fields.keys.sorted() where !knownOrder.contains(key) {
            let value = card.fields[key].map { oneLine($0.canonicalText()) } ?? ""
            text += "  \(key): \(value)\n"
        }
        let conflicts = card.conflicts.count
        if conflicts > 0 {
            text += "  conflicts \(conflicts) (see `cards conflicts`)\n"
        }
        return text
    }

    /// One line per card: short id, title, platform, URL, in aligned columns.
    static func table(_ cards: [Card]) -> String {
        let titleWidth = min(40, cards.map { CharacterWidth.of(oneLine($0.title)) }.max() ?? 0)
        let platformWidth = min(16, cards.map { CharacterWidth.of($0.platformName) }.max() ?? 0)
        var text = ""
        for card in cards {
            var line = String(card.id.prefix(8)) + "  "
            line += pad(truncate(oneLine(card.title), titleWidth), titleWidth) + "  "
            line += pad(truncate(card.platformName, platformWidth), platformWidth) + "  "
            line += card.indexURL
            if !card.conflicts.isEmpty { line += "  [conflict]" }
            text += line + "\n"
        }
        return text
    }

    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 }).trimmingSpaces()
    }

    /// Cuts `text` to at most `width` terminal columns, ending with "…" when cut.
    static func truncate(_ text: String, _ width: Int) -> String {
        if CharacterWidth.of(text) <= width { return text }
        var result = ""
        var used = 0
        for character in text {
            let next = CharacterWidth.of(character)
            if used + next > width - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }

    /// Pads `text` with spaces to `width` terminal columns (wide characters count two).
    static func pad(_ text: String, _ width: Int) -> String {
        let used = CharacterWidth.of(text)
        return used >= width ? text : text + String(repeating: " ", count: width - used)
    }
}

extension String {
    func trimmingSpaces() -> String {
        var slice = self[...]
        while slice.first == " " || slice.first == "\n" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\n" { slice = slice.dropLast() }
        return String(slice)
    }
}
