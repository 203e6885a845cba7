import CardModel
import Testing

@testable import DeckMerge

/// The merge never crashes and stays symmetric, whatever it is given.
@Suite struct MergeTotalityTests {
    static let a = MergeSide(commit: "a", time: 5)
    static let b = MergeSide(commit: "b", time: 5)

    func symmetric(_ versions: CardVersions, policy: MergePolicy = .keep) -> Bool {
        let one = DeckMerger.mergeCard(id: "x", versions, ours: Self.a, theirs: Self.b, policy: policy).card
        let two = DeckMerger.mergeCard(id: "x", versions.swapped, ours: Self.b, theirs: Self.a, policy: policy).card
        return one?.encoded() == two?.encoded()
    }

    @Test func invalidAndOddCards() {
        let odd: [Card?] = [
            nil,
            Card(fields: [:]),
            Card(fields: ["conflicts": .string("not an array"), "title": .number("3")]),
            Card(fields: ["conflicts": .array([.null, .object(["field": .number("1")])]), "é": .null]),
            Card(fields: ["e\u{301}": .bool(true), "title": .string("x")]),
            Card(fields: ["\u{E9}": .bool(false)]),
        ]
        for base in odd {
            for ours in odd {
                for theirs in odd {
                    for policy in MergePolicy.allCases {
                        let versions = CardVersions(base: base, ours: ours, theirs: theirs)
                        #expect(symmetric(versions, policy: policy), "\(versions)")
                    }
                }
            }
        }
    }

    @Test func canonicallyEquivalentValuesAreDifferentChanges() throws {
        // "é" precomposed and decomposed: equal for Swift's String ==, different bytes on disk.
        let base = Card(fields: ["title": .string("x")])
        let ours = Card(fields: ["title": .string("\u{E9}")])
        let theirs = Card(fields: ["title": .string("e\u{301}")])
        let outcome = DeckMerger.mergeCard(
            id: "x", CardVersions(base: base, ours: ours, theirs: theirs), ours: Self.a, theirs: Self.b)
        #expect(outcome.decision.kind == .conflict)
        #expect(symmetric(CardVersions(base: base, ours: ours, theirs: theirs)))
    }

    @Test func emptyInputAndUnchangedCards() {
        let result = DeckMerger.merge([:], ours: Self.a, theirs: Self.b)
        #expect(result.cards.isEmpty && result.decisions.isEmpty && !result.hasConflicts)
        let card = Card(fields: ["title": .string("x")])
        let same = DeckMerger.merge(
            [
                "x": CardVersions(base: card, ours: card, theirs: card),
                "y": CardVersions(base: nil, ours: nil, theirs: nil),
            ],
            ours: Self.a, theirs: Self.b)
        #expect(same.decisions.map(\.kind) == [.unchanged, .unchanged])
        #expect(same.trailers.isEmpty)
        #expect(same.cards["x"] == .some(card) && same.cards["y"] == .some(nil))
    }

    @Test func oddFieldNamesStayOnOneLineInTrailers() throws {
        let base = Card(fields: ["we\nird": .string("0")])
        let ours = Card(fields: ["we\nird": .string("1")])
        let theirs = Card(fields: ["we\nird": .string(String(repeating: "z", count: 500) + "\n")])
        let decision = DeckMerger.mergeCard(
            id: "x", CardVersions(base: base, ours: ours, theirs: theirs), ours: Self.a, theirs: Self.b
        ).decision
        for trailer in decision.trailers {
            #expect(!trailer.contains("\n"))
            #expect(trailer.count < 200)
        }
        #expect(!decision.summary.contains("\n"))
    }
}
