import CardModel
import GitCore

/// What `import` did.
public struct ImportSummary: Sendable, Hashable {
    /// Cards that were not in the deck.
    public var added = 0
    /// Cards that replaced a different version with the same id.
    public var updated = 0
    /// Cards already in the deck exactly as given.
    public var unchanged = 0
}

extension Deck {
    /// Largest import file we read.
    public static let maximumImportSize = 512 * 1024 * 1024

    /// Parses an import file: a JSON array of card objects, or JSON Lines (one object per line).
    /// A card without `id` gets a new one; without `rank`, the next rank at the end.
    /// Fails naming the item (array index or line number) and the rule it breaks.
    public static func parseImport(_ bytes: [UInt8], name: String) throws(StoreError) -> [Card] {
        var objects: [(label: String, fields: [String: JSONValue])] = []
        let firstByte = bytes.first(where: { $0 != 0x20 && $0 != 0x0a && $0 != 0x0d && $0 != 0x09 })
        if firstByte == UInt8(ascii: "[") {
            let value: JSONValue
            do { value = try JSONValue.parse(bytes) } catch {
                throw StoreError(.invalidInput, "\(name) is not valid JSON: \(error)")
            }
            guard case .array(let items) = value else {
                throw StoreError(.invalidInput, "\(name): expected a JSON array")
            }
            for (index, item) in items.enumerated() {
                guard case .object(let fields) = item else {
                    throw StoreError(
                        .invalidInput, "\(name): item \(index) is \(item.kindDescription), not a card object")
                }
                objects.append(("item \(index)", fields))
            }
        } else {
            for (number, line) in bytes.split(separator: 0x0a, omittingEmptySubsequences: false).enumerated() {
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }) { continue }
                let value: JSONValue
                do { value = try JSONValue.parse(line) } catch {
                    throw StoreError(.invalidInput, "\(name): line \(number + 1) is not valid JSON: \(error)")
                }
                guard case .object(let fields) = value else {
                    throw StoreError(
                        .invalidInput, "\(name): line \(number + 1) is \(value.kindDescription), not a card object")
                }
                objects.append(("line \(number + 1)", fields))
            }
        }
        var cards: [Card] = []
        var seen: Set<String> = []
        var ranks = Rank.sequence(count: objects.count, after: appendRank()).makeIterator()
        for (label, original) in objects {
            var fields = original
            if fields["id"] == nil { fields["id"] = .string(CardID.random()) }
            if case .string(let id) = fields["id"], let normalized = CardID.normalize(id) {
                fields["id"] = .string(normalized)
            }
            if fields["rank"] == nil { fields["rank"] = .string(ranks.next() ?? appendRank()) }
            for (key, value) in [("platformName", ""), ("platformIcon", ""), ("color", "blue")] where fields[key] == nil
            {
                fields[key] = .string(value)
            }
            let card = Card(fields: fields)
            do { try card.validate() } catch {
                throw StoreError(.invalidCard, "\(name): \(label): \(error.description)")
            }
            guard seen.insert(card.id).inserted else {
                throw StoreError(.invalidInput, "\(name): \(label): id \(card.id) appears twice in the file")
            }
            cards.append(card)
        }
        return cards
    }

    /// Adds or replaces cards in one commit (op `import`); nothing when every card is already there as given.
    @discardableResult
    public func importCards(_ cards: [Card], source: String) throws(StoreError) -> ImportSummary {
        var summary = ImportSummary()
        try commitChange { (snapshot) throws(StoreError) in
            summary = ImportSummary()
            var files: [(path: String, content: [UInt8]?)] = []
            for card in cards {
                let path = CardID.path(for: card.id)
                let bytes = card.encoded()
                if let existing = try snapshot.blobID(at: path) {
                    if existing == ObjectID.blobHash(of: bytes) {
                        summary.unchanged += 1
                        continue
                    }
                    summary.updated += 1
                } else {
                    summary.added += 1
                }
                files.append((path, bytes))
            }
            if files.isEmpty { return nil }
            let count = files.count
            let from = source.isEmpty ? "" : " from \(source)"
            return DeckChange(
                files: files,
                message: CommitMessage(
                    subject: "Import \(count) card\(count == 1 ? "" : "s")\(from)",
                    body: "\(summary.added) added, \(summary.updated) updated, \(summary.unchanged) unchanged.",
                    trailers: [("Op", "import")]))
        }
        return summary
    }

    /// Every card as a canonical JSON array, in deck order, and the files that are not valid cards.
    public func export() throws(StoreError) -> (json: [UInt8], problems: [CardProblem]) {
        let (cards, problems) = try snapshot().allCards()
        let array = JSONValue.array(cards.map { .object($0.fields) })
        return (array.canonicalBytes(), problems)
    }
}
