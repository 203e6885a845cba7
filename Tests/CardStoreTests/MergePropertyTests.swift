import CardModel
import CardStore
import DeckMerge
import Foundation
import GitCore
import TestSupport
import Testing

/// Random histories on real repositories: three devices edit a shared deck and merge each other in
/// random orders. Seeded; the seed is in every failure message (`MERGE_STORE_SEEDS=N` for more).
@Suite("Store merge properties", .scratchFolder)
struct MergePropertyTests {
    static let seeds = TestSeeds.list("MERGE_STORE_SEEDS", count: 24, from: 1_000)

    @Test(
        "symmetric merges give identical trees; no card lost; every file valid; syncing until quiet converges",
        arguments: seeds)
    func randomHistories(seed: UInt64) throws {
        let scratch = try ScratchFolder.current
        var random = SplitMix64(seed: seed)
        let names = ["a.git", "b.git", "c.git"]
        let first = try Deck.create(at: scratch.path(names[0]), name: "P", bare: true)
        try first.importCards(makeCards(8, seed: seed), source: "seed")
        for name in names.dropFirst() {
            try scratch.git(["clone", "-q", "--bare", scratch.path(names[0]), scratch.path(name)], in: scratch.root)
        }
        func deck(_ index: Int) throws -> Deck { try Deck.open(at: scratch.path(names[index]), searchUpward: false) }

        for _ in 0..<6 {
            // Some local changes on a random device.
            let device = Int.random(in: 0..<3, using: &random)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                try randomOperation(on: try deck(device), using: &random)
            }
            // A random pair merges each other: both directions must give the same tree.
            let x = Int.random(in: 0..<3, using: &random)
            let y = (x + Int.random(in: 1...2, using: &random)) % 3
            let xTip = try fetchTip(scratch, into: names[x], from: names[y])
            let yTip = try fetchTip(scratch, into: names[y], from: names[x])
            let before = (try deck(x).headCommit(), xTip)
            let xReport = try deck(x).merge(theirs: xTip, theirsName: names[y], policy: .keep, dryRun: false)
            let yReport = try deck(y).merge(theirs: yTip, theirsName: names[x], policy: .keep, dryRun: false)
            let xTree = try tree(of: deck(x))
            let yTree = try tree(of: deck(y))
            #expect(
                xTree == yTree,
                "seed \(seed): merging \(names[y]) into \(names[x]) and back gave different trees (\(xReport.kind), \(yReport.kind))"
            )
            try checkNothingLost(try deck(x), ours: before.0, theirs: before.1, seed: seed)
            let problems = try deck(x).snapshot().allCards().problems
            #expect(problems.isEmpty, "seed \(seed): invalid files after a merge: \(problems)")
        }
        // Stop changing and sync until quiet: everyone merges everyone, then fast-forwards.
        for _ in 0..<2 {
            for x in 0..<3 {
                for y in 0..<3 where x != y {
                    let tip = try fetchTip(scratch, into: names[x], from: names[y])
                    _ = try deck(x).merge(theirs: tip, theirsName: names[y], policy: .keep, dryRun: false)
                }
            }
        }
        let heads = try (0..<3).map { try deck($0).headCommit() }
        #expect(Set(heads).count == 1, "seed \(seed): devices did not converge: \(heads)")
        for index in 0..<3 {
            let bytes = try deck(index).export().json
            #expect(bytes == (try deck(0).export().json), "seed \(seed): decks differ")
        }
    }

    func tree(of deck: Deck) throws -> ObjectID {
        try deck.repository.commit(try #require(try deck.headCommit())).tree
    }

    func fetchTip(_ scratch: ScratchFolder, into: String, from: String) throws -> ObjectID {
        try scratch.git(["fetch", "-q", scratch.path(from), "+main:refs/remotes/peer/main"], in: scratch.path(into))
        let hex = try scratch.git(["rev-parse", "refs/remotes/peer/main"], in: scratch.path(into))
        return try #require(ObjectID(hex: hex.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// A card on both sides, or added on one side since the base, must be in the result.
    func checkNothingLost(_ deck: Deck, ours: ObjectID?, theirs: ObjectID, seed: UInt64) throws {
        guard let ours else { return }
        let repository = deck.repository
        let base = try repository.mergeBase(ours, theirs)
        func ids(_ commit: ObjectID?) throws -> Set<String> {
            guard let commit else { return [] }
            return Set(try deck.snapshot(at: commit).allCards().cards.map(\.id))
        }
        let baseIDs = try ids(base)
        let ourIDs = try ids(ours)
        let theirIDs = try ids(theirs)
        let result = try ids(try deck.headCommit())
        for id in ourIDs.union(theirIDs) {
            let mustSurvive = (ourIDs.contains(id) && theirIDs.contains(id)) || !baseIDs.contains(id)
            if mustSurvive { #expect(result.contains(id), "seed \(seed): card \(id) was lost") }
        }
    }

    func randomOperation(on deck: Deck, using random: inout SplitMix64) throws {
        let cards = try deck.snapshot().allCards().cards
        let choice = Int.random(in: 0..<10, using: &random)
        if cards.isEmpty || choice < 2 {
            _ = try deck.add(
                title: "Added \(random.next() % 1000)", indexURL: "https://added.example/\(random.next() % 1000)")
            return
        }
        let card = cards[Int.random(in: 0..<cards.count, using: &random)]
        switch choice {
        case 2: try deck.delete([card.id])
        case 3: try deck.move(card.id, to: Bool.random(using: &random) ? .top : .bottom)
        case 4: try deck.edit(card.id, CardEdit(extra: [("note", .string("n\(random.next() % 3)"))]))
        case 5, 6: try deck.edit(card.id, CardEdit(color: ["red", "green", "blue", "teal"][Int(random.next() % 4)]))
        default: try deck.edit(card.id, CardEdit(title: "T\(random.next() % 4)"))
        }
    }
}
