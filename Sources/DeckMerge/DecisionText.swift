import CardModel

/// The words of decisions: one summary line and the trailers.
enum DecisionText {
    static func label(id: String, _ versions: CardVersions) -> String {
        for card in [versions.ours, versions.theirs, versions.base] {
            if let title = card?.title, !title.isEmpty { return show(.string(title)) }
        }
        return id
    }

    static func unchanged(id: String, label: String, absent: Bool) -> CardDecision {
        CardDecision(
            id: id, kind: .unchanged, summary: "\(label): \(absent ? "absent on both sides" : "unchanged")",
            trailers: [])
    }

    static func deletedOnBoth(id: String, label: String) -> CardDecision {
        CardDecision(
            id: id, kind: .deletedOnBoth, summary: "\(label): deleted on both sides",
            trailers: ["Card-Merged: \(id) deleted on both sides"])
    }

    static func sameOnBoth(id: String, label: String, added: Bool) -> CardDecision {
        let what = added ? "added alike on both sides" : "same change on both sides"
        return CardDecision(
            id: id, kind: .sameOnBoth, summary: "\(label): \(what)",
            trailers: ["Card-Merged: \(id) \(what)"])
    }

    static func tookSide(id: String, label: String, ours: Bool, what: String) -> CardDecision {
        let side = ours ? " on ours" : " on theirs"
        return CardDecision(
            id: id, kind: ours ? .tookOurs : .tookTheirs, summary: concatenated(label, ": ", what, side),
            trailers: [concatenated("Card-Merged: ", id, " ", what, side)])
    }

    /// `parts` one after another, copied as UTF-8 into one new string: most of a merge's decisions are
    /// this kind of line (two for each card one side changed), and interpolating them cost ~500
    /// instructions a part.
    static func concatenated(_ parts: String...) -> String {
        var count = 0
        for part in parts { count += part.utf8.count }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var position = 0
            for var part in parts {
                part.withUTF8 { bytes in
                    guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
                    (target + position).update(from: source, count: bytes.count)
                    position += bytes.count
                }
            }
            return position
        }
    }

    static func fieldMerge(id: String, label: String, _ merge: FieldMerge, addedOnBoth: Bool) -> CardDecision {
        var groups: [String] = []
        for (source, name) in [
            (FieldMerge.Source.theirs, "from theirs"), (.ours, "from ours"), (.both, "same on both"),
        ] {
            let names = merge.sources.filter { $0.source == source }.map { field($0.field) }
            if !names.isEmpty { groups.append("\(names.joined(separator: ", ")) \(name)") }
        }
        let conflictTexts = merge.conflicts.map { c in
            "\(field(c.field)) kept \(show(c.kept)) over \(show(c.lost))"
        }
        var trailers: [String] = []
        if !groups.isEmpty { trailers.append("Card-Merged: \(id) \(groups.joined(separator: "; "))") }
        trailers += conflictTexts.map { "Card-Conflict: \(id) \($0)" }
        var parts = groups
        if !conflictTexts.isEmpty { parts.append("conflict: " + conflictTexts.joined(separator: "; ")) }
        let prefix = addedOnBoth ? "added on both sides, " : ""
        return CardDecision(
            id: id, kind: merge.conflicts.isEmpty ? .merged : .conflict,
            summary: "\(label): \(prefix)\(parts.joined(separator: "; "))", trailers: trailers)
    }

    static func keptEdited(
        id: String, label: String, editedIsOurs: Bool, deletedIn: String, editedIn: String
    ) -> CardDecision {
        let edited = editedIsOurs ? "ours" : "theirs"
        let deleted = editedIsOurs ? "theirs" : "ours"
        return CardDecision(
            id: id, kind: .keptEditedOverDelete,
            summary: "\(label): deleted on \(deleted) (\(short(deletedIn))) but edited on \(edited) "
                + "(\(short(editedIn))); kept the edited card with a conflict record",
            trailers: ["Card-Conflict: \(id) kept edited card from \(editedIn) over delete in \(deletedIn)"])
    }

    static func deletedEdited(
        id: String, label: String, editedIsOurs: Bool, deletedIn: String, editedIn: String
    ) -> CardDecision {
        let edited = editedIsOurs ? "ours" : "theirs"
        let deleted = editedIsOurs ? "theirs" : "ours"
        return CardDecision(
            id: id, kind: .deletedOverEdit,
            summary: "\(label): deleted on \(deleted) (\(short(deletedIn))) over an edit on \(edited); "
                + "the edited version is in commit \(editedIn)",
            trailers: ["Card-Conflict: \(id) deleted in \(deletedIn) over edit; edited version in \(editedIn)"],
            restoreCommit: editedIn)
    }

    /// A commit id as the rest of the output shows one (its first 7 hex digits); trailers keep it whole.
    static func short(_ commit: String) -> String {
        String(commit.prefix(7))
    }

    /// A value on one line: scalars as JSON, containers by kind, long text cut.
    static func show(_ value: JSONValue?) -> String {
        guard let value else { return "(removed)" }
        // A short title of printable ASCII with nothing to escape (most of them) is its canonical text as it
        // is, in quotes, and needs no cut: a merge of 2,000 cards shows 2,000 titles.
        if case .string(let text) = value, text.utf8.count <= 58, isPlain(text) {
            return concatenated("\"", text, "\"")
        }
        let text: String
        switch value {
        case .array, .object: text = "(\(value.kindDescription))"
        default: text = value.canonicalText()
        }
        return cut(text)
    }

    /// Whether every byte of `text` is printable ASCII other than `"` and `\`, checked where the bytes
    /// lie (through the UTF-8 view's iterator it cost ~20 instructions a byte).
    private static func isPlain(_ text: String) -> Bool {
        func plain(_ byte: UInt8) -> Bool {
            byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
        }
        return text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(plain) } ?? text.utf8.allSatisfy(plain)
    }

    /// A field name safe for a one-line trailer.
    static func field(_ name: String) -> String {
        let text = JSONValue.string(name).canonicalText()
        // Plain names as they are; anything odd in JSON quotes, which escape control characters.
        let plain = name.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.*".unicodeScalars.contains($0)
        }
        return cut(plain && !name.isEmpty ? name : text)
    }

    private static func cut(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > 60 else { return text }
        var short = String.UnicodeScalarView()
        short.append(contentsOf: scalars.prefix(59))
        return String(short) + "…"
    }
}
