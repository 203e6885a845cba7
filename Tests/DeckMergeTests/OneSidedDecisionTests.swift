import CardModel
import Testing

@testable import DeckMerge

/// `DeckMerger.oneSidedDecision` (what the store says of a card one side changed without decoding it)
/// against `mergeCard`'s decision for the same versions, marked as the store marks them: every change,
/// either side, titles empty, plain and in need of quoting or cutting.
@Suite struct OneSidedDecisionTests {
    static let id = "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f"
    static let titles = ["", "Octocat", "Say \"hi\"", String(repeating: "long title ", count: 8)]

    struct Row: CustomTestStringConvertible, Sendable {
        var change: DeckMerger.OneSidedChange
        var byOurs: Bool
        var baseTitle: String
        var changedTitle: String
        var testDescription: String { "\(change) by \(byOurs ? "ours" : "theirs") \(baseTitle)/\(changedTitle)" }
    }

    static let rows: [Row] = [DeckMerger.OneSidedChange.added, .edited, .deleted].flatMap { change in
        [true, false].flatMap { byOurs in
            titles.flatMap { baseTitle in
                titles.map { Row(change: change, byOurs: byOurs, baseTitle: baseTitle, changedTitle: $0) }
            }
        }
    }

    static func card(title: String, color: String) -> Card {
        Card(
            id: id, title: title, indexURL: "https://github.com/octocat", platformName: "GitHub", color: color,
            rank: "a0")
    }

    @Test(arguments: rows)
    func sameAsMergeCard(_ row: Row) {
        let base = row.change == .added ? nil : Self.card(title: row.baseTitle, color: "blue")
        // An edit always changes the card (another colour), whatever its title.
        let changed = row.change == .deleted ? nil : Self.card(title: row.changedTitle, color: "red")
        var versions = CardVersions(
            base: base, ours: row.byOurs ? changed : base, theirs: row.byOurs ? base : changed)
        versions.oursIsBase = base != nil && !row.byOurs
        versions.theirsIsBase = base != nil && row.byOurs
        let ours = MergeSide(commit: "aaaa000000000000000000000000000000000000", time: 1)
        let theirs = MergeSide(commit: "bbbb000000000000000000000000000000000000", time: 2)
        let merged = DeckMerger.mergeCard(id: Self.id, versions, ours: ours, theirs: theirs)
        let decided = DeckMerger.oneSidedDecision(
            id: Self.id, row.change, byOurs: row.byOurs, changedTitle: row.changedTitle, baseTitle: row.baseTitle)
        #expect(decided == merged.decision)
        #expect(decided.kind == (row.byOurs ? .tookOurs : .tookTheirs))
    }
}
