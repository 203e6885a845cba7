import CardModel
import CardStore
import DeckMerge
import Foundation
import GitCore
import Testing
import TestSupport

/// A merge decides a card one side changed from its versions' titles when both read as listings
/// (`MergePlanner.decideFromTitles`): the report's decisions and the commit's trailers must be the very
/// ones `DeckMerger` gives for the decoded versions, in the same order, beside cards it still merges.
@Suite("Merge: cards one side changed, decided from titles")
struct MergeFromTitlesTests {
    @Test("the decisions and trailers are DeckMerger's, in id order, for listed and decoded cards alike")
    func sameAsDeckMerger() throws {
        let scratch = try ScratchFolder()
        let cards = makeCards(12)
        let a = try Deck.create(at: scratch.path("a.git"), name: "Test", bare: true)
        try a.importCards(cards, source: "test")
        try scratch.git(["clone", "-q", "--bare", scratch.path("a.git"), scratch.path("b.git")], in: scratch.root)
        let b = try Deck.open(at: scratch.path("b.git"), searchUpward: false)
        let base = try Dictionary(uniqueKeysWithValues: a.snapshot().allCards().cards.map { ($0.id, $0) })
        // Ours: an edit, an edit that leaves the common form (not ASCII: decoded), a delete, an addition.
        try a.edit(cards[0].id, CardEdit(title: "Edited on A"))
        try a.edit(cards[1].id, CardEdit(title: "Café on A"))
        try a.delete([cards[2].id])
        _ = try a.add(title: "New on A", indexURL: "https://a.example")
        // Theirs: the same kinds, and a card both sides change (merged field by field).
        try b.edit(cards[3].id, CardEdit(title: "Edited on B"))
        try b.edit(cards[4].id, CardEdit(platformName: "Plateforme é"))
        try b.delete([cards[5].id])
        _ = try b.add(title: "New on B", indexURL: "https://b.example")
        try a.edit(cards[6].id, CardEdit(color: "red"))
        try b.edit(cards[6].id, CardEdit(title: "Both"))
        let ours = try a.snapshot().allCards().cards
        let theirs = try b.snapshot().allCards().cards

        try scratch.git(
            ["fetch", "-q", scratch.path("b.git"), "+main:refs/remotes/peer/main"], in: scratch.path("a.git"))
        let theirsTip = try #require(try a.resolveCommit("refs/remotes/peer/main"))
        let oursTip = try #require(try a.headCommit())
        let report = try a.merge(theirs: theirsTip, theirsName: "b", policy: .keep, dryRun: false)
        #expect(report.kind == .merged)

        // The oracle: every changed card's decoded versions through DeckMerger, as the planner did before.
        let oursByID = Dictionary(uniqueKeysWithValues: ours.map { ($0.id, $0) })
        let theirsByID = Dictionary(uniqueKeysWithValues: theirs.map { ($0.id, $0) })
        var versions: [String: CardVersions] = [:]
        for id in Set(base.keys).union(oursByID.keys).union(theirsByID.keys) {
            let (o, t, original) = (oursByID[id], theirsByID[id], base[id])
            if o == original && t == original { continue }
            versions[id] = CardVersions(base: original, ours: o, theirs: t)
        }
        let sides = (
            MergeSide(commit: oursTip.hex, time: try a.repository.commit(oursTip).committer.time),
            MergeSide(commit: theirsTip.hex, time: try a.repository.commit(theirsTip).committer.time)
        )
        let expected = DeckMerger.merge(versions, ours: sides.0, theirs: sides.1, policy: .keep)
        #expect(report.decisions.count == 9)
        #expect(report.decisions == expected.decisions)
        let commit = try a.repository.commit(try #require(try a.headCommit()))
        let trailers = expected.trailers.map { String($0.dropFirst("Card-Merged: ".count)) }
        #expect(commit.trailerValues("Card-Merged") == trailers)
        let merged = try Dictionary(uniqueKeysWithValues: a.snapshot().allCards().cards.map { ($0.id, $0) })
        for (id, card) in expected.cards {
            #expect(merged[id]?.encoded() == card?.encoded(), "card \(id)")
        }
    }
}
