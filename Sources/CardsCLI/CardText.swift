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

    /// One line per card (`TableRow(card)` each): short id, title, platform, URL, in aligned columns;
    /// the UTF-8 to write.
    ///
    /// Cells of printable ASCII (one byte, one character and one column each, and no newline) are
    /// measured and copied as bytes; any other text takes the character-level `oneLine`, `truncate`
    /// and `pad`, which give the same result for ASCII. Listing 100,000 cards spent a fifth of its
    /// time in that character-level layout when every cell went through it.
    static func table(_ rows: [TableRow]) -> [UInt8] {
        let titleWidth = min(40, rows.lazy.map(\.title.width).max() ?? 0)
        let platformWidth = min(16, rows.lazy.map(\.platform.width).max() ?? 0)
        var out: [UInt8] = []
        out.reserveCapacity(rows.count * (titleWidth + platformWidth + 60))
        for row in rows {
            if TableCell.isPrintableASCII(row.id) {
                out.append(contentsOf: row.id.utf8.prefix(8))
            } else {
                out.append(contentsOf: String(row.id.prefix(8)).utf8)
            }
            out.append(contentsOf: "  ".utf8)
            row.title.write(into: &out, width: titleWidth)
            out.append(contentsOf: "  ".utf8)
            row.platform.write(into: &out, width: platformWidth)
            out.append(contentsOf: "  ".utf8)
            out.append(contentsOf: row.url.utf8)
            if row.hasConflicts { out.append(contentsOf: "  [conflict]".utf8) }
            out.append(0x0A)
        }
        return out
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

/// The fields of one table line, each read from the card once (on the thread that decoded it).
/// A class: 100,000 rows are passed from array to array, and a reference is one count to copy.
final class TableRow: Sendable {
    let id: String
    let title: TableCell
    let platform: TableCell
    let url: String
    let hasConflicts: Bool

    init(_ card: Card) {
        id = card.id
        title = TableCell(title: card.title)
        platform = TableCell(text: card.platformName)
        url = card.indexURL
        hasConflicts = !card.conflicts.isEmpty
    }
}

/// One column's text and how many terminal columns it takes.
struct TableCell {
    /// The text as shown (a title on one line, trimmed).
    let text: Substring
    let width: Int
    /// Whether `text` is printable ASCII: one byte is one character and one column.
    let isPlain: Bool

    /// A title: on one line, without spaces or newlines at its ends (`CardText.oneLine`).
    init(title: String) {
        if TableCell.isPrintableASCII(title) {
            // No newline to replace; the space is the only character to trim.
            let utf8 = title.utf8
            let start = utf8.firstIndex { $0 != 0x20 } ?? utf8.endIndex
            let end = utf8.lastIndex { $0 != 0x20 }.map { utf8.index(after: $0) } ?? start
            let shown = start < end ? title[start..<end] : ""
            self.init(text: shown, width: shown.utf8.count, isPlain: true)
        } else {
            self.init(text: CardText.oneLine(title))
        }
    }

    /// Text shown as it is.
    init(text: String) {
        let isPlain = TableCell.isPrintableASCII(text)
        self.init(text: text[...], width: isPlain ? text.utf8.count : CharacterWidth.of(text), isPlain: isPlain)
    }

    private init(text: Substring, width: Int, isPlain: Bool) {
        self.text = text
        self.width = width
        self.isPlain = isPlain
    }

    /// Appends the text cut and padded to `width` columns: `CardText.pad(CardText.truncate(text, width), width)`.
    func write(into out: inout [UInt8], width columns: Int) {
        guard isPlain else {
            let shown = CardText.pad(CardText.truncate(String(text), columns), columns)
            out.append(contentsOf: shown.utf8)
            return
        }
        if width <= columns {
            out.append(contentsOf: text.utf8)
            out.append(contentsOf: repeatElement(0x20, count: columns - width))
        } else {
            // As `truncate`: the characters that fit in one column less, then "…" (one column).
            out.append(contentsOf: text.utf8.prefix(max(0, columns - 1)))
            out.append(contentsOf: "…".utf8)
        }
    }

    /// Whether every byte is printable ASCII (space to tilde).
    static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}
