import TestSupport
import CardModel

@testable import DeckMerge

typealias Deck = [String: Card]

/// Random valid cards and edits, drawn from small pools so that sides often collide.
struct DeckGenerator {
    var rng: SplitMix64
    let ids: [String]

    init(seed: UInt64, idPool: Int = 12) {
        rng = SplitMix64(seed: seed)
        var idRNG = SplitMix64(seed: seed ^ 0x5EED)
        ids = (0..<idPool).map { _ in CardID.random(using: &idRNG) }
    }

    static let titles = ["Work", "Job", "Home", "Play", "Octocat on GitHub"]
    static let colors = ["red", "blue", "#00ff00", "teal"]
    static let platformNames: [String?] = [nil, "GitHub", "GitLab"]
    static let notes: [JSONValue?] = [nil, .string("a"), .number("1.50"), .object(["k": .array([.bool(true)])])]
    static let ranks = ["a0", "a1", "a2", "b00", "a0V"]
    static let editableFields = ["title", "color", "platformName", "x-note", "rank"]

    mutating func pick<T>(_ pool: [T]) -> T {
        pool[Int.random(in: 0..<pool.count, using: &rng)]
    }

    mutating func chance(_ p: Double) -> Bool {
        Double.random(in: 0..<1, using: &rng) < p
    }

    mutating func card(id: String) -> Card {
        var card = Card(
            id: id, title: pick(Self.titles), indexURL: "https://example.com/\(id.prefix(4))", color: pick(Self.colors),
            rank: pick(Self.ranks))
        for field in Self.editableFields where chance(0.5) { set(field, on: &card) }
        return card
    }

    mutating func set(_ field: String, on card: inout Card) {
        switch field {
        case "title": card.title = pick(Self.titles)
        case "color": card.color = pick(Self.colors)
        case "platformName": card.platformName = pick(Self.platformNames) ?? ""
        case "x-note": card.fields["x-note"] = pick(Self.notes)
        default: card.rank = pick(Self.ranks)
        }
    }

    mutating func deck(size: Int) -> Deck {
        var deck: Deck = [:]
        for id in ids.prefix(size) { deck[id] = card(id: id) }
        return deck
    }

    /// A few random edits: change fields, delete cards, add cards (ids from the shared pool).
    /// `written` receives every field value written (card id, field, value or nil for removed).
    mutating func edit(_ deck: Deck, count: Int, written: inout [(id: String, field: String, value: JSONValue?)])
        -> (deck: Deck, deleted: Set<String>)
    {
        var deck = deck
        var deleted = Set<String>()
        for _ in 0..<count {
            let roll = Int.random(in: 0..<10, using: &rng)
            let id = pick(ids)
            if var card = deck[id] {
                if roll == 0 {
                    deck[id] = nil
                    deleted.insert(id)
                } else {
                    let field = pick(Self.editableFields)
                    let before = card.fields[field]
                    set(field, on: &card)
                    deck[id] = card
                    // A write of the value already there is no change for any merge to see.
                    if card.fields[field] != before { written.append((id, field, card.fields[field])) }
                }
            } else if roll < 4 {
                let card = card(id: id)
                deck[id] = card
                // Fields the new card leaves out are not written: a card added on two
                // devices merges against an empty base, where a missing field is no change.
                for (field, value) in card.fields where field != "conflicts" { written.append((id, field, value)) }
            }
        }
        return (deck, deleted)
    }

    mutating func commitID() -> String {
        let hex = Array("0123456789abcdef")
        return String((0..<40).map { _ in hex[Int.random(in: 0..<16, using: &rng)] })
    }
}

/// Merges two decks against a base with the real merger.
func mergeDecks(base: Deck, ours: Deck, theirs: Deck, oursSide: MergeSide, theirsSide: MergeSide, policy: MergePolicy)
    -> (deck: Deck, result: DeckMergeResult)
{
    var versions: [String: CardVersions] = [:]
    for id in Set(base.keys).union(ours.keys).union(theirs.keys) {
        versions[id] = CardVersions(base: base[id], ours: ours[id], theirs: theirs[id])
    }
    let result = DeckMerger.merge(versions, ours: oursSide, theirs: theirsSide, policy: policy)
    var deck: Deck = [:]
    for (id, card) in result.cards {
        if let card { deck[id] = card }
    }
    return (deck, result)
}

/// The decks' files as bytes, for byte-identical comparison.
func files(_ deck: Deck) -> [String: [UInt8]] {
    deck.mapValues { $0.encoded() }
}
