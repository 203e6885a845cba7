import CardModel
import CardStore
import Foundation
import GitCore
import TestSupport
import Testing

/// Makes `count` valid cards with predictable titles.
func makeCards(_ count: Int, prefix: String = "Card", seed: UInt64 = 1) -> [Card] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { index in
        Card(
            id: CardID.random(using: &generator), title: "\(prefix) \(index)",
            indexURL: "https://example.org/\(prefix)/\(index)",
            platformName: "Web", platformIcon: "globe", color: "blue", rank: "a\(index % 10)")
    }
}
