import CardModel
import CardStore
import Foundation
@testable import GitCore
import TestSupport
import Testing

/// A deck merge's tree (its walk of the three trees and its splice, `Deck.merge`) against `git
/// merge-tree`'s on random decks whose sides changed different cards. Seeded; the seed is in every
/// failure message (`RAW_TREE_SEEDS=N` for more).
@Suite("Merge trees: a deck merge's tree is git merge-tree's", .scratchFolder)
struct MergeTreeTests {
    static let seeds = TestSeeds.list("RAW_TREE_SEEDS", count: 12, from: 7_000)

    @Test("a deck merge gives the tree git merge-tree gives when the sides changed different cards", arguments: seeds)
    func mergeMatchesGit(seed: UInt64) throws {
        try Self.checkMergeMatchesGit(seed: seed, cardCount: 60)
    }

    @Test(
        "the same with many card folders changed (rebuilt side by side on two threads)",
        arguments: seeds.prefix(4))
    func manyFoldersMergeMatchesGit(seed: UInt64) throws {
        try Self.checkMergeMatchesGit(seed: seed, cardCount: 1_200)
    }

    /// A deck of `cardCount` cards; two sides each edit, delete and add cards of their own (up to a
    /// fifth of the deck's edits); the merge's tree against `git merge-tree`'s, and `git fsck`.
    static func checkMergeMatchesGit(seed: UInt64, cardCount: Int) throws {
        var random = SplitMix64(seed: seed)
        let scratch = try ScratchFolder.current
        let path = scratch.path("deck.git")
        let deck = try Deck.create(at: path, name: "R", bare: true)
        var cards = makeCards(cardCount, seed: seed)
        try deck.importCards(cards, source: "seed")
        guard let base = try deck.headCommit() else { throw CocoaError(.fileReadCorruptFile) }
        cards.shuffle(using: &random)
        var tips: [ObjectID] = []
        for side in 0..<2 {
            try deck.repository.updateReference(
                Deck.defaultBranch, to: base, expected: try deck.headCommit(), logMessage: "test: back to the base")
            // Each side edits, adds and deletes cards of its own: nothing for the merge to decide.
            let half = cardCount / 2
            let mine = cards[(side * half)..<(side * half + half)]
            let edited = Array(mine.prefix(Int.random(in: 1...max(12, cardCount / 5), using: &random)))
            // One commit for many edits (an import of the edited cards), one per card for a few.
            if edited.count > 12 {
                try deck.importCards(
                    edited.map { card in
                        var changed = card
                        changed.title = "Side \(side) \(card.id.prefix(4))"
                        return changed
                    }, source: "side \(side)")
            } else {
                for card in edited { try deck.edit(card.id, CardEdit(title: "Side \(side) \(card.id.prefix(4))")) }
            }
            for card in mine.suffix(Int.random(in: 0...3, using: &random)) { try deck.delete([card.id]) }
            for index in 0..<Int.random(in: 0...3, using: &random) {
                try deck.add(title: "New \(side) \(index)", indexURL: "https://new.example/\(side)/\(index)")
            }
            guard let tip = try deck.headCommit() else { throw CocoaError(.fileReadCorruptFile) }
            tips.append(tip)
        }
        try deck.repository.updateReference(
            Deck.defaultBranch, to: tips[0], expected: try deck.headCommit(), logMessage: "test: side 0")
        let report = try deck.merge(theirs: tips[1], theirsName: "side 1", policy: .keep, dryRun: false)
        guard let merged = report.commit else {
            Issue.record("seed \(seed): no merge commit (\(report.kind))")
            return
        }
        let ours = try deck.repository.commit(merged).tree
        let git = try scratch.git(["merge-tree", "--write-tree", tips[0].hex, tips[1].hex], in: path)
        // Every object the merge wrote (trees as stored zlib blocks among them) reads back with its id.
        #expect(try GitRunner.fsckStatus(path) == 0, "seed \(seed): git fsck refuses the merged repository")
        #expect(
            ours.hex == git.split(separator: "\n").first.map(String.init),
            "seed \(seed): the merge's tree \(ours.short) is not git merge-tree's \(git)")
    }
}
