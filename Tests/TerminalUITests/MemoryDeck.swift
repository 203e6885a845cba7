import TerminalUI

/// An in-memory deck that records every call.
struct MemoryDeck: SwipeDeck {
    var cards: [SwipeCardInfo]
    var deleted: [String] = []
    /// The engine's reason for each delete ("distance", "fling").
    var reasons: [String] = []
    var restored: [(String, Int)] = []
    var failDeletes = false
    /// What a failed delete says.
    var failure = "disk on fire"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(count: Int) {
        cards = (1...count).map { i in
            SwipeCardInfo(
                id: "id-\(i)", title: "Card \(i)", platformName: "Platform \(i)", platformIcon: "icon\(i)",
                indexURL: "https://example.com/\(i)", color: i % 2 == 0 ? "#3366ff" : "orange")
        }
    }

    mutating func delete(id: String, reason: String) throws {
        if failDeletes { throw Failure(description: failure) }
        deleted.append(id)
        reasons.append(reason)
        cards.removeAll { $0.id == id }
    }

    /// What another process made of the deck, seen at the next `refresh`.
    var changedElsewhere: [SwipeCardInfo]?

    mutating func refresh() throws -> Bool {
        guard let changed = changedElsewhere else { return false }
        changedElsewhere = nil
        cards = changed
        return true
    }

    mutating func restore(_ card: SwipeCardInfo, at index: Int) throws {
        restored.append((card.id, index))
        cards.insert(card, at: min(max(index, 0), cards.count))
    }
}
