import CardModel
import CardStore
import DeckMerge
import Foundation
import GitCore
import Testing
import TestSupport

@Suite("Store-level merge", .scratchFolder)
struct MergeStoreTests {
    /// Two bare decks that share a history: `a` made by init, `b` a clone by path (git CLI).
    func twoDevices(_ scratch: ScratchFolder, cards: [Card]) throws -> (Deck, Deck) {
        let a = try Deck.create(at: scratch.path("a.git"), name: "Test", bare: true)
        if !cards.isEmpty { try a.importCards(cards, source: "test") }
        try scratch.git(["clone", "-q", "--bare", scratch.path("a.git"), scratch.path("b.git")], in: scratch.root)
        let b = try Deck.open(at: scratch.path("b.git"), searchUpward: false)
        return (a, b)
    }

    /// Fetches `from`'s main into `into` as refs/remotes/peer/main with the git CLI, returning its id.
    func fetch(_ scratch: ScratchFolder, into: String, from: String) throws -> ObjectID {
        try scratch.git(["fetch", "-q", from, "+main:refs/remotes/peer/main"], in: into)
        let hex = try scratch.git(["rev-parse", "refs/remotes/peer/main"], in: into).trimmingCharacters(
            in: .whitespacesAndNewlines)
        return try #require(ObjectID(hex: hex))
    }

    @Test("merging A into B and B into A gives the same tree, with both edits and a conflict record")
    func symmetricMerge() throws {
        let scratch = try ScratchFolder.current
        let cards = makeCards(20)
        let (a, b) = try twoDevices(scratch, cards: cards)
        try a.edit(cards[0].id, CardEdit(title: "A title"))
        try b.edit(cards[0].id, CardEdit(color: "red"))
        try a.edit(cards[1].id, CardEdit(title: "Work"))
        try b.edit(cards[1].id, CardEdit(title: "Job"))
        try a.delete([cards[2].id])
        try b.edit(cards[2].id, CardEdit(platformName: "Edited on B"))
        _ = try b.add(title: "New on B", indexURL: "https://b.example")

        // Copy both decks so each can merge the other from the same starting point.
        try scratch.git(["clone", "-q", "--bare", scratch.path("a.git"), scratch.path("a2.git")], in: scratch.root)

        let theirsForA = try fetch(scratch, into: scratch.path("a.git"), from: scratch.path("b.git"))
        let oursForB = try fetch(scratch, into: scratch.path("b.git"), from: scratch.path("a2.git"))
        let reportA = try a.merge(theirs: theirsForA, theirsName: "b", policy: .keep, dryRun: false)
        let reportB = try b.merge(theirs: oursForB, theirsName: "a", policy: .keep, dryRun: false)
        #expect(reportA.kind == .merged && reportB.kind == .merged)
        let treeA = try a.repository.commit(try #require(try a.headCommit())).tree
        let treeB = try b.repository.commit(try #require(try b.headCommit())).tree
        #expect(treeA == treeB, "the two merges must give identical root trees")

        let merged = try a.snapshot()
        let first = try #require(try merged.card(id: cards[0].id))
        #expect(first.title == "A title" && first.color == "red")
        let second = try #require(try merged.card(id: cards[1].id))
        #expect(["Work", "Job"].contains(second.title))
        let record = try #require(ConflictRecord.records(in: second).first)
        #expect(record.field == "title")
        #expect(Set(record.values.compactMap { $0.value?.stringValue }) == ["Work", "Job"])
        let third = try #require(
            try merged.card(id: cards[2].id), "delete versus edit keeps the edited card under policy keep")
        #expect(third.platformName == "Edited on B")
        #expect(ConflictRecord.records(in: third).contains { $0.isDeletion })
        #expect(try merged.allCards().cards.count == 21, "20 shared cards and the one added on B")
        let commit = try a.repository.commit(try #require(try a.headCommit()))
        #expect(commit.parents.count == 2)
        #expect(commit.trailerValues("Op") == ["merge"])
        #expect(!commit.trailerValues("Card-Conflict").isEmpty)
    }

    @Test("policy delete deletes a card edited on the other side; its edit stays in history")
    func policyDelete() throws {
        let scratch = try ScratchFolder.current
        let cards = makeCards(5)
        let (a, b) = try twoDevices(scratch, cards: cards)
        try a.delete([cards[0].id])
        try b.edit(cards[0].id, CardEdit(title: "Edited before the delete arrived"))
        let theirs = try fetch(scratch, into: scratch.path("a.git"), from: scratch.path("b.git"))
        let report = try a.merge(theirs: theirs, theirsName: "b", policy: .delete, dryRun: false)
        #expect(report.decisions.contains { $0.kind == .deletedOverEdit })
        #expect(try a.snapshot().card(id: cards[0].id) == nil)
        let restored = try a.restore(cards[0].id)
        #expect(restored.card.title == "Edited before the delete arrived")
    }

    @Test("dry run decides the same and writes nothing; up to date and fast-forward")
    func dryRunAndFastForward() throws {
        let scratch = try ScratchFolder.current
        let cards = makeCards(5)
        let (a, b) = try twoDevices(scratch, cards: cards)
        try b.edit(cards[1].id, CardEdit(title: "From B"))
        let theirs = try fetch(scratch, into: scratch.path("a.git"), from: scratch.path("b.git"))
        let before = try a.headCommit()
        let dry = try a.merge(theirs: theirs, theirsName: "b", policy: .keep, dryRun: true)
        #expect(dry.kind == .fastForward && dry.commit == nil)
        #expect(try a.headCommit() == before)
        let real = try a.merge(theirs: theirs, theirsName: "b", policy: .keep, dryRun: false)
        #expect(real.kind == .fastForward && real.commit == theirs)
        #expect(try a.headCommit() == theirs)
        let again = try a.merge(theirs: theirs, theirsName: "b", policy: .keep, dryRun: false)
        #expect(again.kind == .upToDate)

        try a.edit(cards[2].id, CardEdit(title: "From A"))
        try b.edit(cards[3].id, CardEdit(title: "From B again"))
        let theirs2 = try fetch(scratch, into: scratch.path("a.git"), from: scratch.path("b.git"))
        let head = try a.headCommit()
        let plan = try a.merge(theirs: theirs2, theirsName: "b", policy: .keep, dryRun: true)
        #expect(try a.headCommit() == head)
        let done = try a.merge(theirs: theirs2, theirsName: "b", policy: .keep, dryRun: false)
        #expect(plan.decisions == done.decisions)
    }

    @Test("a merge of two 10,000-card decks that each changed 100 cards reads about 200 cards, not 10,000")
    func mergeCostGrowsWithChanges() throws {
        let scratch = try ScratchFolder.current
        let cards = makeCards(10_000)
        let (a, b) = try twoDevices(scratch, cards: cards)
        for index in 0..<100 {
            try a.edit(cards[index * 2].id, CardEdit(title: "A \(index)"))
            try b.edit(cards[index * 2 + 5_001].id, CardEdit(title: "B \(index)"))
        }
        let theirs = try fetch(scratch, into: scratch.path("a.git"), from: scratch.path("b.git"))
        let fresh = try Deck.open(at: scratch.path("a.git"), searchUpward: false)
        let report = try fresh.merge(theirs: theirs, theirsName: "b", policy: .keep, dryRun: false)
        #expect(report.kind == .merged)
        #expect(report.decisions.count == 200)
        let reads = fresh.repository.blobsRead
        print("merge of two 10,000-card decks with 100 changes each read \(reads) blobs")
        // The edited version of each of the 200 cards one side edited (their bases are not read), and deck.json
        // twice at most (this deck's, read when it is opened, and theirs, whose format the merge checks).
        #expect(reads >= 200 && reads <= 202, "read \(reads) blobs: the edited version of each of the 200 cards")
        #expect(try fresh.snapshot().card(id: cards[5_001].id)?.title == "B 0")
        #expect(try fresh.snapshot().card(id: cards[0].id)?.title == "A 0")
    }

    @Test("criss-cross histories merge correctly")
    func crissCross() throws {
        let scratch = try ScratchFolder.current
        let cards = makeCards(6)
        let (a, b) = try twoDevices(scratch, cards: cards)
        try a.edit(cards[0].id, CardEdit(title: "A1"))
        try b.edit(cards[1].id, CardEdit(title: "B1"))
        // Each merges the other's first change: a criss-cross.
        try scratch.git(["clone", "-q", "--bare", scratch.path("a.git"), scratch.path("a-copy.git")], in: scratch.root)
        let bTip = try fetch(scratch, into: scratch.path("a.git"), from: scratch.path("b.git"))
        let aTip = try fetch(scratch, into: scratch.path("b.git"), from: scratch.path("a-copy.git"))
        _ = try a.merge(theirs: bTip, theirsName: "b", policy: .keep, dryRun: false)
        _ = try b.merge(theirs: aTip, theirsName: "a", policy: .keep, dryRun: false)
        try a.edit(cards[2].id, CardEdit(title: "A2"))
        try b.edit(cards[3].id, CardEdit(title: "B2"))
        try b.edit(cards[0].id, CardEdit(color: "red"))
        let theirs = try fetch(scratch, into: scratch.path("a.git"), from: scratch.path("b.git"))
        let report = try a.merge(theirs: theirs, theirsName: "b", policy: .keep, dryRun: false)
        #expect(report.kind == .merged)
        let snapshot = try a.snapshot()
        #expect(try snapshot.card(id: cards[0].id)?.title == "A1")
        #expect(try snapshot.card(id: cards[0].id)?.color == "red")
        #expect(try snapshot.card(id: cards[1].id)?.title == "B1")
        #expect(try snapshot.card(id: cards[2].id)?.title == "A2")
        #expect(try snapshot.card(id: cards[3].id)?.title == "B2")
        #expect(try snapshot.allCards().cards.allSatisfy { $0.conflicts.isEmpty })
    }

    @Test("unrelated histories: refused as git refuses them; asked for, merged against an empty base, every card kept")
    func unrelated() throws {
        let scratch = try ScratchFolder.current
        let a = try Deck.create(at: scratch.path("a.git"), name: "A", bare: true)
        try a.importCards(makeCards(3, prefix: "A", seed: 1), source: "a")
        let b = try Deck.create(at: scratch.path("b.git"), name: "B", bare: true)
        try b.importCards(makeCards(4, prefix: "B", seed: 2), source: "b")
        let theirs = try fetch(scratch, into: scratch.path("a.git"), from: scratch.path("b.git"))
        let before = try a.headCommit()
        #expect {
            try a.merge(theirs: theirs, theirsName: "b", policy: .keep, dryRun: false)
        } throws: { error in
            "\(error)".contains("shares no history") && "\(error)".contains("--allow-unrelated-histories")
        }
        #expect(try a.headCommit() == before)
        let report = try a.merge(
            theirs: theirs, theirsName: "b", policy: .keep, dryRun: false, allowUnrelatedHistories: true)
        #expect(report.kind == .merged)
        #expect(try a.snapshot().allCards().cards.count == 7)
    }
}
