import CardModel
import GitCore
import Glibc

/// Where `move` puts a card.
public enum CardPosition: Sendable, Hashable {
    /// First in the deck.
    case top
    /// Last in the deck.
    case bottom
    /// Just before the card with this id.
    case before(String)
    /// Just after the card with this id.
    case after(String)
}

/// New values for some fields of a card; nil leaves a field as it is.
public struct CardEdit: Sendable {
    /// New title.
    public var title: String?
    /// New URL.
    public var indexURL: String?
    /// New platform name.
    public var platformName: String?
    /// New icon name.
    public var platformIcon: String?
    /// New colour.
    public var color: String?
    /// Any other fields, set to these JSON values (unknown fields included).
    public var extra: [(String, JSONValue)] = []
    /// Fields to take out of the card (optional and unknown ones; a card needs the others).
    public var removed: [String] = []

    /// An edit that changes nothing yet.
    public init(
        title: String? = nil, indexURL: String? = nil, platformName: String? = nil, platformIcon: String? = nil,
        color: String? = nil, extra: [(String, JSONValue)] = [], removed: [String] = []
    ) {
        self.title = title
        self.indexURL = indexURL
        self.platformName = platformName
        self.platformIcon = platformIcon
        self.color = color
        self.extra = extra
        self.removed = removed
    }

    /// The edit applied to a card (not yet validated).
    func applied(to card: Card) -> Card {
        var result = card
        if let title { result.title = title }
        if let indexURL { result.indexURL = indexURL }
        if let platformName { result.platformName = platformName }
        if let platformIcon { result.platformIcon = platformIcon }
        if let color { result.color = color }
        for (key, value) in extra { result.fields[key] = value }
        for key in removed { result.fields[key] = nil }
        return result
    }
}

extension Deck {
    /// Adds a card at the end of the deck (or just after `after`) in one commit; returns the card as stored.
    @discardableResult
    public func add(
        title: String, indexURL: String, platformName: String = "", platformIcon: String = "", color: String = "blue",
        id: String? = nil, after: String? = nil
    ) throws(StoreError) -> Card {
        let cardID: String
        if let id {
            guard let normalized = CardID.normalize(id) else {
                throw StoreError(
                    .invalidInput, "--id '\(id)' is not a UUID (like 3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f)")
            }
            cardID = normalized
        } else {
            cardID = CardID.random()
        }
        var stored: Card?
        try commitChange { (snapshot) throws(StoreError) in
            if try snapshot.blobID(at: CardID.path(for: cardID)) != nil {
                throw StoreError(
                    .invalidInput, "a card with id \(cardID) already exists; edit it with `cards edit \(cardID)`")
            }
            var rank = Deck.appendRank()
            var alongside: [Card] = []
            if let after {
                let afterID = try snapshot.resolve(after)
                if let placed = try Deck.rank(for: .after(afterID), moving: cardID, in: snapshot) {
                    (rank, alongside) = placed
                }
            }
            let card = Card(
                id: cardID, title: title, indexURL: indexURL, platformName: platformName, platformIcon: platformIcon,
                color: color, rank: rank)
            try Deck.validate(card, as: "the new card")
            stored = card
            return DeckChange(
                files: [(CardID.path(for: cardID), card.encoded())] + Deck.files(of: alongside),
                message: CommitMessage(
                    subject: "Add card \(CommitMessage.quoted(card.title))",
                    trailers: [("Card-Id", cardID)] + alongside.map { ("Card-Id", $0.id) } + [("Op", "add")]))
        }
        guard let stored else { throw StoreError(.io, "the card was not added") }
        return stored
    }

    /// Changes fields of one card; returns nil (and makes no commit) when nothing changes.
    @discardableResult
    public func edit(_ reference: String, _ edit: CardEdit) throws(StoreError) -> CommitOutcome? {
        if edit.extra.contains(where: { $0.0 == "id" }) {
            throw StoreError(.invalidInput, "--set id=…: a card's id never changes; add a new card instead")
        }
        if edit.removed.contains("id") {
            throw StoreError(.invalidInput, "--unset id: a card's id never changes; delete the card instead")
        }
        if let required = edit.removed.first(where: Card.requiredFields.contains) {
            let instead = required == "rank" ? "`cards move` changes it" : "change it with --set or its own option"
            throw StoreError(.invalidInput, "--unset \(required): a card needs its \(required); \(instead)")
        }
        // The typed options set known fields too: --platform with --unset platformName is both at once.
        let typed: [(String, String?)] = [
            ("title", edit.title), ("indexURL", edit.indexURL), ("platformName", edit.platformName),
            ("platformIcon", edit.platformIcon), ("color", edit.color),
        ]
        if let both = typed.first(where: { $0.1 != nil && edit.removed.contains($0.0) }) {
            throw StoreError(.invalidInput, "\(both.0) is both set and taken out (--unset): give one of them")
        }
        if edit.removed.contains("conflicts") {
            throw StoreError(
                .invalidInput,
                "--unset conflicts: conflict records are settled one by one with `cards resolve` (`cards conflicts` "
                    + "lists them)")
        }
        if let both = edit.removed.first(where: { key in edit.extra.contains { $0.0 == key } }) {
            throw StoreError(.invalidInput, "\(both) is both set (--set) and taken out (--unset): give one of them")
        }
        return try commitChange { (snapshot) throws(StoreError) in
            let card = try snapshot.card(matching: reference)
            let edited = edit.applied(to: card)
            try Deck.validate(edited, as: "card \(card.id)")
            let bytes = edited.encoded()
            if bytes == card.encoded() { return nil }
            let changed = Set(edited.fields.keys).union(card.fields.keys)
                .filter { edited.fields[$0] != card.fields[$0] }.sorted()
            return DeckChange(
                files: [(CardID.path(for: card.id), bytes)],
                message: CommitMessage(
                    subject: "Edit card \(CommitMessage.quoted(edited.title)): \(changed.joined(separator: ", "))",
                    trailers: [("Card-Id", card.id), ("Op", "edit")]))
        }
    }

    /// Moves one card, rewriting only its rank; nil when it is already there.
    @discardableResult
    public func move(_ reference: String, to position: CardPosition) throws(StoreError) -> CommitOutcome? {
        try commitChange { (snapshot) throws(StoreError) in
            let card = try snapshot.card(matching: reference)
            var resolved = position
            switch position {
            case .before(let other): resolved = .before(try snapshot.resolve(other))
            case .after(let other): resolved = .after(try snapshot.resolve(other))
            case .top, .bottom: break
            }
            if case .before(let other) = resolved, other == card.id { return nil }
            if case .after(let other) = resolved, other == card.id { return nil }
            guard let (rank, alongside) = try Deck.rank(for: resolved, moving: card.id, in: snapshot) else {
                return nil
            }
            var moved = card
            moved.rank = rank
            let describe: String
            switch resolved {
            case .top: describe = "to the top"
            case .bottom: describe = "to the bottom"
            case .before(let other): describe = "before \(other.prefix(8))"
            case .after(let other): describe = "after \(other.prefix(8))"
            }
            return DeckChange(
                files: [(CardID.path(for: card.id), moved.encoded())] + Deck.files(of: alongside),
                message: CommitMessage(
                    subject: "Move card \(CommitMessage.quoted(card.title)) \(describe)",
                    trailers: [("Card-Id", card.id)] + alongside.map { ("Card-Id", $0.id) } + [("Op", "move")]))
        }
    }

    /// Deletes cards in one commit. `gesture` (e.g. "swipe left, distance, preset row": a swipe's
    /// `SwipeOutcome.deletionNote`) becomes a `Gesture` trailer. Ids that are already gone are
    /// skipped; nil when none was left to delete.
    @discardableResult
    public func delete(_ references: [String], gesture: String? = nil) throws(StoreError) -> CommitOutcome? {
        let ids = try snapshot().resolveAll(references)
        return try commitChange { (snapshot) throws(StoreError) in
            var titles: [String] = []
            var present: [String] = []
            for id in ids {
                guard let card = try? snapshot.card(id: id) else {
                    if try snapshot.blobID(at: CardID.path(for: id)) != nil {
                        present.append(id)
                        titles.append(id)
                    }
                    continue
                }
                present.append(id)
                titles.append(card.title)
            }
            if present.isEmpty { return nil }
            let subject =
                present.count == 1
                ? "Delete card \(CommitMessage.quoted(titles[0]))" : "Delete \(present.count) cards"
            var trailers = present.map { ("Card-Id", $0) }
            trailers.append(("Op", "delete"))
            if let gesture { trailers.append(("Gesture", gesture)) }
            return DeckChange(
                files: present.map { (CardID.path(for: $0), nil) },
                message: CommitMessage(subject: subject, trailers: trailers))
        }
    }

    static func validate(_ card: Card, as name: String) throws(StoreError) {
        do {
            try card.validate()
        } catch {
            throw StoreError(.invalidCard, "\(name): \(error.description)", field: error.field)
        }
    }

    /// A rank after every card appended so far, without reading the deck: the time in microseconds
    /// as nine base-62 digits after "i" (the fractional-index head for nine integer digits), which
    /// sorts after every rank `Rank` hands out from "a0" for imports and inserts.
    static func appendRank() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var value = UInt64(max(0, spec.tv_sec)) * 1_000_000 + UInt64(max(0, spec.tv_nsec / 1000))
        var out: [UInt8] = []
        for _ in 0..<9 {
            out.append(Rank.digits[Int(value % 62)])
            value /= 62
        }
        return "i" + String(decoding: out.reversed(), as: UTF8.self)
    }

    /// The rank that puts `id` at `position`, reading the ranks of the deck, and the cards whose ranks
    /// must change with it; nil when it is already there. Two cards can share a rank (two devices moved
    /// cards to the same place); none fits between them, so to go between, the later ones of the tie move
    /// along after it.
    static func rank(for position: CardPosition, moving id: String, in snapshot: DeckSnapshot) throws(StoreError)
        -> (rank: String, alongside: [Card])?
    {
        let all = try snapshot.allCards().cards
        let others = all.filter { $0.id != id }
        let place = all.firstIndex { $0.id == id }
        let current = place.map { all[$0] }
        // Already right before or after the card named: nothing to move (a new rank between the same
        // two neighbours would be a commit that changes nothing).
        if let place {
            switch position {
            case .before(let target) where place + 1 < all.count && all[place + 1].id == target: return nil
            case .after(let target) where place > 0 && all[place - 1].id == target: return nil
            default: break
            }
        }
        // The card it goes after (nil: the top).
        let lower: Int?
        switch position {
        case .top:
            if let current, let first = others.first, Deck.deckOrder(current, first) { return nil }
            lower = nil
        case .bottom:
            if let current, let last = others.last, Deck.deckOrder(last, current) { return nil }
            let rank = Rank.between(others.last?.rank, nil)
            return (max(rank, appendRank()), [])
        case .before(let target):
            guard let index = others.firstIndex(where: { $0.id == target }) else {
                throw StoreError(.cardNotFound, "no card with id \(target)")
            }
            lower = index > 0 ? index - 1 : nil
        case .after(let target):
            guard let index = others.firstIndex(where: { $0.id == target }) else {
                throw StoreError(.cardNotFound, "no card with id \(target)")
            }
            lower = index
        }
        let floor = lower.map { others[$0].rank }
        let start = lower.map { $0 + 1 } ?? 0
        var moving = floor.map { floor in Array(others[start...].prefix { $0.rank == floor }) } ?? []
        var next = start + moving.count
        var ceiling = others.dropFirst(next).first?.rank
        // Where no rank fits below the next card ("0", or "a" then "a0"), the cards at its rank move along too.
        func takeInTheWay(_ taken: String) {
            let atCeiling = others[next...].prefix { $0.rank == taken }
            moving += atCeiling
            next += atCeiling.count
            ceiling = others.dropFirst(next).first?.rank
        }
        func fits(_ rank: String) -> Bool { ceiling.map { rank.utf8.lexicographicallyPrecedes($0.utf8) } ?? true }
        var placed = Rank.between(floor, ceiling)
        // No rank between the two: the card takes the rank of the one after.
        if let taken = ceiling, !fits(placed) {
            placed = taken
            takeInTheWay(taken)
        }
        var alongside: [Card] = []
        var index = 0
        while index < moving.count {
            let previous = alongside.last?.rank ?? placed
            var rank = Rank.between(previous, ceiling)
            if let taken = ceiling, !fits(rank) {
                takeInTheWay(taken)
                rank = Rank.between(previous, ceiling)
            }
            var moved = moving[index]
            moved.rank = rank
            alongside.append(moved)
            index += 1
        }
        return (placed, alongside)
    }
}

extension Deck {
    /// The files of `cards`, each at its path.
    static func files(of cards: [Card]) -> [(path: String, content: [UInt8]?)] {
        cards.map { (CardID.path(for: $0.id), $0.encoded()) }
    }
}

extension DeckSnapshot {
    /// Resolves several references at once, failing on the first that names no card.
    package func resolveAll(_ references: [String]) throws(StoreError) -> [String] {
        var ids: [String] = []
        for reference in references {
            let id = try resolve(reference)
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }
}
