@testable import CardsCLI
import DeckMerge
import SeededRandom
import Testing

/// A merge report lists its changed cards in the order of their summaries as `String`'s `<` orders
/// them; `SyncText.changedCards` compares ASCII summaries as bytes. Checked against that order on random
/// summaries rich in what could tell the two apart (case, accents precomposed and combining, emoji).
@Suite("Merge report order: changed cards by their summaries, as String orders them")
struct MergeReportOrderTests {
    @Test("random summaries, ASCII and not, in String's order; unchanged cards left out (seed printed)")
    func summariesInStringOrder() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let alphabet = ["a", "B", "b", "\"", " ", ":", "é", "e\u{301}", "😀", "Z", "~", "\u{7F}", "0"]
        let kinds: [CardDecision.Kind] = [.tookOurs, .tookTheirs, .merged, .unchanged, .conflict]
        for round in 0..<200 {
            let decisions = (0..<Int.random(in: 0...40, using: &random)).map { index in
                let summary = (0..<Int.random(in: 0...6, using: &random)).map { _ in
                    alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                }.joined()
                return CardDecision(
                    id: "\(index)", kind: kinds[Int.random(in: 0..<kinds.count, using: &random)], summary: summary,
                    trailers: [])
            }
            let expected = decisions.filter { $0.kind != .unchanged }.sorted { $0.summary < $1.summary }
            let listed = SyncText.changedCards(decisions)
            #expect(listed.map(\.summary) == expected.map(\.summary), "seed \(seed), round \(round)")
            // Equal summaries keep their order (both sorts are stable): the same cards, in the same order.
            #expect(listed.map(\.id) == expected.map(\.id), "seed \(seed), round \(round)")
            #expect(listed.count == expected.count, "seed \(seed), round \(round)")
        }
    }
}
