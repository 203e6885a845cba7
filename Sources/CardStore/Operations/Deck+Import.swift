import CardModel
import GitCore

/// What `import` did.
package struct ImportSummary: Sendable, Hashable {
    /// Cards that were not in the deck.
    package var added = 0
    /// Cards already in the deck that the import changed.
    package var updated = 0
    /// Cards already in the deck exactly as given.
    package var unchanged = 0
}

/// Cards to import, already in their canonical file form.
package struct ImportBatch: Sendable {
    /// Each card's id and canonical bytes, in file order.
    package private(set) var cards: [(id: String, bytes: [UInt8])] = []
    /// By position, which of `fieldSets` a card from a file gave (for a card already in the deck,
    /// the deck's values of the others are kept), or -1 for a whole card, which replaces the deck's.
    /// Indexes, not sets: the cards of one file mostly give the same fields, and 100,000 sets would
    /// cost tens of MB.
    private var givenIndex: [Int32] = []
    private var fieldSets: [Set<String>] = []
    private var fieldSetIndex: [Set<String>: Int32] = [:]
    /// By position, for the few cards that leave out a field every card needs, the error to give
    /// unless they update a card of the deck.
    private(set) var unfinishedErrors: [Int: String] = [:]

    /// The fields the file gave for the card at `position`, or nil for a whole card.
    func given(at position: Int) -> Set<String>? {
        let index = givenIndex[position]
        return index < 0 ? nil : fieldSets[Int(index)]
    }

    /// An empty batch.
    package init() {}

    /// Number of cards in the batch.
    package var count: Int { cards.count }

    /// Adds `card` in its canonical encoding: it replaces a card with its id.
    package mutating func append(_ card: Card) {
        cards.append((card.id, card.encoded()))
        givenIndex.append(-1)
    }

    /// Adds `card` read from a file that gave only the fields `given`: a card with its id in the deck
    /// keeps the deck's values of the others (its place included). `unfinished`: the error to give
    /// when it leaves out a field every card needs and there is no card of the deck to take it from.
    mutating func append(_ card: Card, given fields: Set<String>, unfinished: String?) {
        if let unfinished { unfinishedErrors[cards.count] = unfinished }
        cards.append((card.id, card.encoded()))
        if let index = fieldSetIndex[fields] {
            givenIndex.append(index)
        } else {
            let index = Int32(fieldSets.count)
            fieldSets.append(fields)
            fieldSetIndex[fields] = index
            givenIndex.append(index)
        }
    }
}

extension Deck {
    /// Largest import file we read.
    package static let maximumImportSize = 512 * 1024 * 1024

    /// Parses an import file: a JSON array of card objects, or JSON Lines (one object per line).
    /// A card without `id` gets a new one; without `rank`, the next rank at the end.
    /// Fails naming the item (array index or line number) and the rule it breaks.
    package static func parseImport(_ bytes: [UInt8], name: String) throws(StoreError) -> [Card] {
        var cards: [Card] = []
        var firstUnfinished: String?
        try forEachImportedCard(bytes, name: name) { card, _, unfinished in
            cards.append(card)
            if firstUnfinished == nil { firstUnfinished = unfinished }
        }
        // Whole cards only: with no deck to update, a card without what every card needs is an error.
        if let firstUnfinished { throw StoreError(.invalidCard, firstUnfinished) }
        return cards
    }

    /// `parseImport` straight to the card files' bytes: what `cards import` keeps in memory is the
    /// encoded cards (~300 bytes each), not the parsed ones (~1 KB each), nor the file once parsed.
    package static func encodeImport(_ bytes: [UInt8], name: String) throws(StoreError) -> ImportBatch {
        var batch = ImportBatch()
        try forEachImportedCard(bytes, name: name) { card, given, unfinished in
            batch.append(card, given: given, unfinished: unfinished)
        }
        return batch
    }

    /// The fields a new card in an import file must give (the other fields `Card.requiredFields` names, the
    /// import fills in: an id, a rank, a colour).
    static let importRequiredFields = ["title", "indexURL"]
    /// Valid values of `importRequiredFields`, to check the rest of a card that leaves them out.
    static let placeholder: [String: JSONValue] = ["title": .string("x"), "indexURL": .string("https://x.example")]

    /// Calls `body` with each card of an import file, in file order, each validated and completed
    /// (id, rank and colour when left out) and checked against the ids before it, the fields the
    /// file gave, and for a card that names its id but leaves out a field every card needs, the
    /// error to give unless it updates a card of the deck.
    private static func forEachImportedCard(
        _ bytes: [UInt8], name: String, _ body: (Card, Set<String>, String?) -> Void
    ) throws(StoreError) {
        var seen: Set<String> = []
        func accept(_ original: [String: JSONValue], _ label: String, _ rank: () -> String) throws(StoreError) {
            var fields = original
            if fields["id"] == nil { fields["id"] = .string(CardID.random()) }
            if case .string(let id) = fields["id"] {
                // Any case is taken here (written lowercase); what is not a UUID at all is said so.
                guard let normalized = CardID.normalize(id) else {
                    throw StoreError(
                        .invalidCard,
                        "\(name): \(label): id \(Card.quoted(id)) is not a UUID like 3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f "
                            + "(leave it out to have one made)")
                }
                fields["id"] = .string(normalized)
            }
            if fields["rank"] == nil { fields["rank"] = .string(rank()) }
            // As `add` makes a card: empty platform fields are left out.
            if fields["color"] == nil { fields["color"] = .string("blue") }
            let card = Card(fields: fields)
            var unfinished: String?
            do { try card.validate() } catch {
                // A card that names its id may leave out what every card needs: an update of the
                // deck's card, checked once merged with it (`importCards`).
                let missing = Deck.importRequiredFields.filter { original[$0] == nil }
                guard original["id"] != nil, !missing.isEmpty else {
                    throw StoreError(.invalidCard, "\(name): \(label): \(error.description)")
                }
                var completed = fields
                for key in missing { completed[key] = Deck.placeholder[key] }
                do { try Card(fields: completed).validate() } catch {
                    throw StoreError(.invalidCard, "\(name): \(label): \(error.description)")
                }
                unfinished = "\(name): \(label): \(error.description)"
            }
            guard seen.insert(card.id).inserted else {
                throw StoreError(.invalidInput, "\(name): \(label): id \(card.id) appears twice in the file")
            }
            body(card, Set(original.keys), unfinished)
        }
        let firstByte = bytes.first(where: { $0 != 0x20 && $0 != 0x0a && $0 != 0x0d && $0 != 0x09 })
        if firstByte == UInt8(ascii: "[") {
            let value: JSONValue
            do { value = try JSONValue.parse(bytes) } catch {
                throw StoreError(.invalidInput, "\(name) is not valid JSON: \(error)")
            }
            guard case .array(let items) = value else {
                throw StoreError(.invalidInput, "\(name): expected a JSON array")
            }
            var ranks = Rank.sequence(count: items.count, after: appendRank()).makeIterator()
            for (index, item) in items.enumerated() {
                guard case .object(let fields) = item else {
                    throw StoreError(
                        .invalidInput, "\(name): item \(index + 1) is \(item.kindDescription), not a card object")
                }
                // Counted from 1, as lines are.
                try accept(fields, "item \(index + 1)") { ranks.next() ?? appendRank() }
            }
            return
        }
        func isBlank(_ line: ArraySlice<UInt8>) -> Bool { line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0d } }
        let lines = bytes.split(separator: 0x0a, omittingEmptySubsequences: false)
        var ranks = Rank.sequence(count: lines.count { !isBlank($0) }, after: appendRank()).makeIterator()
        for (number, line) in lines.enumerated() where !isBlank(line) {
            let value: JSONValue
            do { value = try JSONValue.parse(line) } catch {
                // The parser counted within this line: its column is the line's own.
                throw StoreError(
                    .invalidInput, "\(name): line \(number + 1), column \(error.column): \(error.problem)")
            }
            guard case .object(let fields) = value else {
                throw StoreError(
                    .invalidInput, "\(name): line \(number + 1) is \(value.kindDescription), not a card object")
            }
            try accept(fields, "line \(number + 1)") { ranks.next() ?? appendRank() }
        }
    }

    /// Adds or replaces cards in one commit (op `import`); nothing when every card is already there as given.
    @discardableResult
    package func importCards(_ cards: [Card], source: String) throws(StoreError) -> ImportSummary {
        var batch = ImportBatch()
        for card in cards { batch.append(card) }
        return try importCards(batch, source: source)
    }

    /// Adds or replaces already encoded cards in one commit (op `import`); see `encodeImport`.
    @discardableResult
    package func importCards(_ batch: ImportBatch, source: String) throws(StoreError) -> ImportSummary {
        var summary = ImportSummary()
        try commitChange { (snapshot) throws(StoreError) in
            summary = ImportSummary()
            var files: [(path: String, content: [UInt8]?)] = []
            files.reserveCapacity(batch.count)
            for (position, (id, fileBytes)) in batch.cards.enumerated() {
                let path = CardID.path(for: id)
                var bytes = fileBytes
                let unfinished = batch.unfinishedErrors[position]
                if let existing = try snapshot.blobID(at: path) {
                    var blob = ObjectID.blobHash(of: bytes)
                    // The file's card as the deck has it (an export imported again): nothing to merge.
                    if existing != blob, let fields = batch.given(at: position) {
                        let merged = Deck.updated(id: id, existing: existing, with: bytes, given: fields, in: snapshot)
                        // A whole card replaces a deck's card that cannot be merged with (broken by hand).
                        guard let merged = merged ?? (unfinished == nil ? bytes : nil) else {
                            throw StoreError(
                                .invalidCard, "\(unfinished ?? id) (card \(id) in the deck is not valid either)")
                        }
                        bytes = merged
                        blob = ObjectID.blobHash(of: bytes)
                    }
                    if existing == blob {
                        summary.unchanged += 1
                        continue
                    }
                    summary.updated += 1
                } else {
                    if let unfinished {
                        throw StoreError(.invalidCard, "\(unfinished) (no card \(id) in the deck to update)")
                    }
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

    /// A card of the deck (`existing`, its blob) with the fields an import file `given` taken from
    /// `incoming`, the others kept: the card as the file means it. Nil when the deck's version is not a
    /// valid card (a file broken by hand) or the result would not be one.
    static func updated(
        id: String, existing: ObjectID, with incoming: [UInt8], given: Set<String>, in snapshot: DeckSnapshot
    ) -> [UInt8]? {
        guard let old = try? snapshot.decodeCard(blob: existing, path: CardID.path(for: id), id: id),
            case .object(let new)? = try? JSONValue.parse(incoming)
        else { return nil }
        var fields = old.fields
        for key in given { fields[key] = new[key] }
        let card = Card(fields: fields)
        guard (try? card.validate()) != nil else { return nil }
        return card.encoded()
    }

    /// Every card as a canonical JSON array, in deck order, and the files that are not valid cards.
    /// The bytes of `JSONValue.array(cards).canonicalBytes()`, each card encoded on the thread that
    /// decoded it.
    package func export() throws(StoreError) -> (json: [UInt8], problems: [CardProblem]) {
        let (elements, problems) = try snapshot().allCards(encoding: {
            JSONValue.object($0.fields).canonicalArrayElement()
        })
        return (JSONValue.canonicalArray(elements: elements), problems)
    }
}
