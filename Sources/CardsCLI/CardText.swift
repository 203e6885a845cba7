import CardModel
import GitCore
import Dispatch
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
            text += "  \(fieldName(key)): \(value)\n"
        }
        let conflicts = card.conflicts.count
        if conflicts > 0 {
            text += "  conflicts \(conflicts) (see `cards conflicts`)\n"
        }
        return text
    }

    /// One line per card (`tableRow(card)` each, in order): short id, title, platform, URL, in
    /// aligned columns; the UTF-8 to write.
    ///
    /// Cells of printable ASCII (one byte, one character and one column each, and no newline) are
    /// measured and copied as bytes; any other text takes the character-level `oneLine`, `truncate`
    /// and `pad`, which give the same result for ASCII. Listing 100,000 cards spent a fifth of its
    /// time in that character-level layout when every cell went through it.
    static func table(_ rows: [[UInt8]]) -> [UInt8] {
        var widestTitle = 0
        var widestPlatform = 0
        for row in rows {
            widestTitle = max(widestTitle, TableRow.field(row, TableRow.titleWidth))
            widestPlatform = max(widestPlatform, TableRow.field(row, TableRow.platformWidth))
        }
        let titleWidth = min(40, widestTitle)
        let platformWidth = min(16, widestPlatform)
        // Lines are independent once the widths are known: big tables are laid out in chunks on
        // every core, then joined.
        let chunks = rows.count >= 4_096 ? 8 : 1
        var parts = [[UInt8]](repeating: [], count: chunks)
        parts.withUnsafeMutableBufferPointer { buffer in
            let slots = TableChunks(buffer: buffer)
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                let range = (rows.count * chunk / chunks)..<(rows.count * (chunk + 1) / chunks)
                slots.set(chunk, layOut(rows[range], titleWidth: titleWidth, platformWidth: platformWidth))
            }
        }
        if chunks == 1 { return parts[0] }
        var out: [UInt8] = []
        out.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for part in parts { out.append(contentsOf: part) }
        return out
    }

    /// The lines of `rows` at the given column widths.
    private static func layOut(_ rows: ArraySlice<[UInt8]>, titleWidth: Int, platformWidth: Int) -> [UInt8] {
        let gap: [UInt8] = [0x20, 0x20]
        var out: [UInt8] = []
        out.reserveCapacity(rows.reduce(0) { $0 + $1.count } + rows.count * (titleWidth + platformWidth + 8))
        for row in rows {
            let flags = row[0]
            let idEnd = TableRow.field(row, TableRow.idEnd)
            let titleEnd = TableRow.field(row, TableRow.titleEnd)
            let platformEnd = TableRow.field(row, TableRow.platformEnd)
            out.append(contentsOf: row[TableRow.headerSize..<idEnd])
            out.append(contentsOf: gap)
            TableRow.writeCell(
                row[idEnd..<titleEnd], width: TableRow.field(row, TableRow.titleWidth),
                isPlain: flags & TableRow.plainTitle != 0, columns: titleWidth, into: &out)
            out.append(contentsOf: gap)
            TableRow.writeCell(
                row[titleEnd..<platformEnd], width: TableRow.field(row, TableRow.platformWidth),
                isPlain: flags & TableRow.plainPlatform != 0, columns: platformWidth, into: &out)
            out.append(contentsOf: gap)
            out.append(contentsOf: row[platformEnd...])
        }
        return out
    }

    /// One card's line before the column widths are known: what `table` lays out. Made on the
    /// thread that decoded the card, as one array, so that 100,000 of them cost one allocation each
    /// and move between arrays as one reference.
    static func tableRow(_ card: CardListing) -> [UInt8] {
        var row = [UInt8](repeating: 0, count: TableRow.headerSize)
        let id = card.id
        if TableRow.isPrintableASCII(id) {
            row.append(contentsOf: id.utf8.prefix(8))
        } else {
            row.append(contentsOf: String(id.prefix(8)).utf8)
        }
        TableRow.setField(&row, TableRow.idEnd, row.count)

        let title = card.title
        var titleIsPlain = TableRow.isPrintableASCII(title)
        if titleIsPlain {
            // No newline to replace; the space is the only character `oneLine` trims.
            let utf8 = title.utf8
            let start = utf8.firstIndex { $0 != 0x20 } ?? utf8.endIndex
            let end = utf8.lastIndex { $0 != 0x20 }.map { utf8.index(after: $0) } ?? start
            if start < end { row.append(contentsOf: utf8[start..<end]) }
            TableRow.setField(&row, TableRow.titleWidth, row.count - TableRow.field(row, TableRow.idEnd))
        } else {
            let shown = oneLine(title)
            titleIsPlain = TableRow.isPrintableASCII(shown)
            row.append(contentsOf: shown.utf8)
            TableRow.setField(&row, TableRow.titleWidth, CharacterWidth.of(shown))
        }
        TableRow.setField(&row, TableRow.titleEnd, row.count)

        let platform = card.platformName
        let platformIsPlain = TableRow.isPrintableASCII(platform)
        row.append(contentsOf: platform.utf8)
        TableRow.setField(
            &row, TableRow.platformWidth, platformIsPlain ? platform.utf8.count : CharacterWidth.of(platform))
        TableRow.setField(&row, TableRow.platformEnd, row.count)

        row.append(contentsOf: card.indexURL.utf8)
        if card.hasConflicts { row.append(contentsOf: "  [conflict]".utf8) }
        row.append(0x0A)
        row[0] =
            (titleIsPlain ? TableRow.plainTitle : 0) | (platformIsPlain ? TableRow.plainPlatform : 0)
        return row
    }

    /// A card's field name as the line output shows it: as it is, or quoted with its control characters
    /// escaped (`Card.quoted`) when it holds any. A field name comes from a card file, which a remote or a
    /// hand edit wrote, and a terminal acts on an escape sequence printed to it.
    static func fieldName(_ name: String) -> String {
        hasControl(name) ? Card.quoted(name) : name
    }

    /// `--field NAME` for a command the output suggests (`cards resolve … --field NAME --pick N`), NAME one
    /// word a POSIX shell passes on as it is (`--field=NAME` when it starts with "-", so that it is not read
    /// as an option of its own); a name with control characters cannot be pasted, and is shown escaped.
    static func fieldOption(_ name: String) -> String {
        if hasControl(name) { return "--field \(Card.quoted(name))" }
        return name.hasPrefix("-") ? "--field=\(ShellWord.singleQuoted(name))" : "--field \(ShellWord.word(name))"
    }

    /// A file's path on a line of its own kind (`cards status`): as it is, or in double quotes with its
    /// control characters, `"` and `\` escaped C-style when it holds any, as git quotes a path with
    /// `core.quotePath` off (non-ASCII stays readable; C1 controls, which git leaves raw, in octal): a line
    /// break in a file's name would otherwise start a line that looks like another file's.
    static func path(_ path: String) -> String {
        guard path.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || Card.isControl($0) }) else {
            return path
        }
        var quoted = "\""
        for scalar in path.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            case "\u{07}": quoted += "\\a"
            case "\u{08}": quoted += "\\b"
            case "\u{0B}": quoted += "\\v"
            case "\u{0C}": quoted += "\\f"
            case _ where Card.isControl(scalar):
                // Octal bytes, as git writes the other controls (C1 ones too, which git leaves raw).
                for byte in String(scalar).utf8 {
                    let digits = String(byte, radix: 8)
                    quoted += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
                }
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    private static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: Card.isControl)
    }

    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 }).trimmingSpaces()
    }

    /// Cuts `text` to at most `width` terminal columns, ending with "…" when cut (the swipe screen's rule).
    static func truncate(_ text: String, _ width: Int) -> String {
        CharacterWidth.of(text) <= width ? text : ScreenGrid.truncate(text, toColumns: width)
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

/// The layout of a `CardText.tableRow`: a header of flags and 32-bit little-endian fields, then
/// the short id, the title, the platform (each cell as shown, not yet cut or padded) and the rest
/// of the line.
enum TableRow {
    static let plainTitle: UInt8 = 1
    static let plainPlatform: UInt8 = 2
    // Byte offsets of the header fields.
    static let idEnd = 1
    static let titleEnd = 5
    static let platformEnd = 9
    static let titleWidth = 13
    static let platformWidth = 17
    static let headerSize = 21

    static func field(_ row: [UInt8], _ offset: Int) -> Int {
        Int(row[offset]) | Int(row[offset + 1]) << 8 | Int(row[offset + 2]) << 16 | Int(row[offset + 3]) << 24
    }

    static func setField(_ row: inout [UInt8], _ offset: Int, _ value: Int) {
        // Cells of a valid card are a few kilobytes at most; clamp anything else rather than trap.
        let clamped = UInt32(clamping: value)
        for index in 0..<4 { row[offset + index] = UInt8(truncatingIfNeeded: clamped >> (8 * UInt32(index))) }
    }

    /// Appends a cell cut and padded to `columns`: `CardText.pad(CardText.truncate(text, columns), columns)`.
    static func writeCell(_ text: ArraySlice<UInt8>, width: Int, isPlain: Bool, columns: Int, into out: inout [UInt8]) {
        guard isPlain else {
            let shown = CardText.pad(CardText.truncate(String(decoding: text, as: UTF8.self), columns), columns)
            out.append(contentsOf: shown.utf8)
            return
        }
        if width <= columns {
            out.append(contentsOf: text)
            out.append(contentsOf: repeatElement(0x20, count: columns - width))
        } else {
            // As `truncate`: the characters that fit in one column less, then "…" (one column).
            out.append(contentsOf: text.prefix(max(0, columns - 1)))
            out.append(contentsOf: "…".utf8)
        }
    }

    /// Whether every byte is printable ASCII (space to tilde).
    static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}

/// The laid-out chunks shared by the workers; each index is written by exactly one of them, and
/// read only after all have finished.
private struct TableChunks: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<[UInt8]>

    func set(_ index: Int, _ value: [UInt8]) {
        buffer[index] = value
    }
}
