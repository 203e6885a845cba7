import CardModel
import Foundation
import TestSupport
import Testing

@testable import DeckMerge

@Suite struct MergePropertyTests {
    /// Checks what must hold for every two-way merge; returns problems as text.
    static func check(
        base: Deck, ours: Deck, theirs: Deck, oursSide: MergeSide, theirsSide: MergeSide, policy: MergePolicy
    ) -> (deck: Deck, result: DeckMergeResult, problems: [String]) {
        var problems: [String] = []
        let (merged, result) = mergeDecks(
            base: base, ours: ours, theirs: theirs, oursSide: oursSide, theirsSide: theirsSide, policy: policy)
        let (mirror, _) = mergeDecks(
            base: base, ours: theirs, theirs: ours, oursSide: theirsSide, theirsSide: oursSide, policy: policy)
        if files(merged) != files(mirror) { problems.append("swapping sides changes the result") }

        for id in Set(base.keys).union(ours.keys).union(theirs.keys) {
            let card = merged[id]
            let deletedSomewhere = (base[id] != nil && (ours[id] == nil || theirs[id] == nil))
            if card == nil, ours[id] != nil || theirs[id] != nil, !deletedSomewhere {
                problems.append("card \(id) lost though no side deleted it")
            }
            if card == nil, policy == .keep, let o = ours[id], let t = theirs[id] {
                problems.append("card \(id) lost though both sides have it (\(o.title), \(t.title))")
            }
            guard let card else { continue }
            let bytes = card.encoded()
            do {
                let again = try Card.decode(bytes, expectedID: id)
                if again.encoded() != bytes { problems.append("card \(id) does not re-encode identically") }
            } catch {
                problems.append("card \(id) does not decode: \(error)")
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if ["<<<<<<<", ">>>>>>>", "\n=======\n"].contains(where: text.contains) {
                problems.append("card \(id) holds conflict markers")
            }
            // Every edited field value is the merged value or kept in a conflict record.
            let records = ConflictRecord.records(in: card)
            for side in [ours[id], theirs[id]] {
                guard let side else { continue }
                for field in Set(side.fields.keys).union(base[id]?.fields.keys ?? [:].keys) where field != "conflicts" {
                    let value = side.fields[field]
                    guard value != base[id]?.fields[field] else { continue }
                    let recorded = records.contains { r in r.field == field && r.values.contains { $0.value == value } }
                    if card.fields[field] != value && !recorded {
                        problems.append("card \(id) lost the edit \(field) = \(String(describing: value))")
                    }
                }
            }
        }
        if result.decisions.count != Set(base.keys).union(ours.keys).union(theirs.keys).count {
            problems.append("not one decision per card")
        }
        return (merged, result, problems)
    }

    @Test func randomTwoWayMerges() {
        let seed = Self.seed()
        var gen = DeckGenerator(seed: seed)
        for round in 0..<3000 {
            var written: [(id: String, field: String, value: JSONValue?)] = []
            let base = gen.chance(0.1) ? [:] : gen.deck(size: Int.random(in: 0...8, using: &gen.rng))
            let ours = gen.edit(base, count: Int.random(in: 0...6, using: &gen.rng), written: &written).deck
            let theirs = gen.edit(base, count: Int.random(in: 0...6, using: &gen.rng), written: &written).deck
            let oursSide = MergeSide(commit: gen.commitID(), time: Int64.random(in: 0...3, using: &gen.rng))
            let theirsSide = MergeSide(commit: gen.commitID(), time: Int64.random(in: 0...3, using: &gen.rng))
            let policy = gen.pick(MergePolicy.allCases)
            let (_, _, problems) = Self.check(
                base: base, ours: ours, theirs: theirs, oursSide: oursSide, theirsSide: theirsSide, policy: policy)
            #expect(problems.isEmpty, "seed \(seed), round \(round): \(problems)")
            if !problems.isEmpty { return }
        }
    }

    /// A small model of git: commits with parents, three devices, edits and
    /// pairwise syncs in random order (fast-forward when one contains the other,
    /// else a merge against the nearest common ancestor, adopted by both).
    struct History {
        struct Commit {
            var id: String
            var parents: [Int]
            var deck: Deck
            var time: Int64
        }

        var commits: [Commit]
        var ancestors: [Set<Int>]

        init(root: Deck, id: String) {
            commits = [Commit(id: id, parents: [], deck: root, time: 0)]
            ancestors = [[0]]
        }

        mutating func add(_ commit: Commit) -> Int {
            commits.append(commit)
            let index = commits.count - 1
            ancestors.append(commit.parents.reduce(into: [index]) { $0.formUnion(ancestors[$1]) })
            return index
        }

        /// The best common ancestor; ties (criss-cross) go to the newest, as one deterministic choice.
        func mergeBase(_ a: Int, _ b: Int) -> Int? {
            let common = ancestors[a].intersection(ancestors[b])
            let best = common.filter { c in !common.contains { d in d != c && ancestors[d].contains(c) } }
            return best.max()
        }
    }

    /// `MERGE_SEED=<n>` replays a printed seed.
    static func seed() -> UInt64 {
        TestSeeds.one("MERGE_SEED")
    }

    @Test func threeDevicesConverge() {
        let seed = Self.seed()
        var gen = DeckGenerator(seed: seed, idPool: 10)
        for run in 0..<150 {
            let policy = gen.pick(MergePolicy.allCases)
            var history = History(root: gen.deck(size: 6), id: gen.commitID())
            var heads = [0, 0, 0]
            let skew = (0..<3).map { _ in Int64.random(in: -40...40, using: &gen.rng) }  // wrong clocks
            var lastWrite: [String: (op: Int, value: JSONValue?)] = [:]  // "id field" -> last write
            // Values each field has held. A write back to an earlier value (A→B→A) is
            // invisible to any three-way merge (the side looks unchanged against a base
            // holding A), so only writes of new values are checked for survival.
            var seenValues: [String: Set<JSONValue?>] = [:]
            var reverts = Set<String>()
            for (id, card) in history.commits[0].deck {
                for field in Set(card.fields.keys).union(DeckGenerator.editableFields) {
                    seenValues["\(id) \(field)", default: []].insert(card.fields[field])
                }
            }
            var lastDelete: [String: Int] = [:]
            var everAdded = Set(history.commits[0].deck.keys)
            var problems: [String] = []

            func sync(_ x: Int, _ y: Int, op: Int) {
                let hx = heads[x]
                let hy = heads[y]
                if hx == hy { return }
                if history.ancestors[hy].contains(hx) {
                    heads[x] = hy
                    return
                }
                if history.ancestors[hx].contains(hy) {
                    heads[y] = hx
                    return
                }
                let base = history.mergeBase(hx, hy).map { history.commits[$0].deck } ?? [:]
                let ours = history.commits[hx]
                let theirs = history.commits[hy]
                let (deck, result, found) = Self.check(
                    base: base, ours: ours.deck, theirs: theirs.deck,
                    oursSide: MergeSide(commit: ours.id, time: ours.time),
                    theirsSide: MergeSide(commit: theirs.id, time: theirs.time), policy: policy)
                problems += found
                // Policy delete drops an edit on purpose (it stays restorable from history).
                for decision in result.decisions where decision.kind == .deletedOverEdit {
                    lastDelete[decision.id] = op
                }
                let merge = history.add(
                    .init(id: gen.commitID(), parents: [hx, hy], deck: deck, time: Int64(op * 10) + skew[x]))
                heads[x] = merge
                heads[y] = merge
            }

            for op in 1...40 {
                let device = Int.random(in: 0..<3, using: &gen.rng)
                if gen.chance(0.55) {
                    var written: [(id: String, field: String, value: JSONValue?)] = []
                    let before = history.commits[heads[device]].deck
                    let (deck, deleted) = gen.edit(
                        before, count: Int.random(in: 1...3, using: &gen.rng), written: &written)
                    // An added card starts from "no field" (an empty base), so
                    // removing a field later is a revert to that state.
                    for id in Set(deck.keys).subtracting(before.keys) {
                        for field in DeckGenerator.editableFields {
                            seenValues["\(id) \(field)", default: []].insert(nil)
                        }
                    }
                    for w in written {
                        let key = "\(w.id) \(w.field)"
                        lastWrite[key] = (op, w.value)
                        if seenValues[key, default: []].insert(w.value).inserted {
                            reverts.remove(key)
                        } else {
                            reverts.insert(key)
                        }
                    }
                    for id in deleted { lastDelete[id] = op }
                    everAdded.formUnion(deck.keys)
                    heads[device] = history.add(
                        .init(
                            id: gen.commitID(), parents: [heads[device]], deck: deck,
                            time: Int64(op * 10) + skew[device]))
                } else {
                    let other = (device + Int.random(in: 1...2, using: &gen.rng)) % 3
                    sync(device, other, op: op)
                }
            }
            // Quiet: sync until every device has the same deck.
            var rounds = 0
            while Set(heads.map { files(history.commits[$0].deck) }).count > 1, rounds < 10 {
                for (x, y) in [(0, 1), (1, 2), (0, 2)].shuffled(using: &gen.rng) { sync(x, y, op: 100 + rounds) }
                rounds += 1
            }
            let finals = heads.map { files(history.commits[$0].deck) }
            if Set(finals).count != 1 { problems.append("devices did not converge") }

            let final = history.commits[heads[0]].deck
            for id in everAdded where lastDelete[id] == nil && final[id] == nil {
                problems.append("card \(id) never deleted but missing at the end")
            }
            // The latest write of each field survives as the value or in a conflict record.
            for (key, write) in lastWrite where !reverts.contains(key) {
                let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2, let card = final[parts[0]], write.op > lastDelete[parts[0]] ?? 0 else {
                    continue
                }
                let field = parts[1]
                let recorded = ConflictRecord.records(in: card).contains { r in
                    r.field == field && r.values.contains { $0.value == write.value }
                }
                if card.fields[field] != write.value && !recorded {
                    problems.append("latest write \(key) = \(String(describing: write.value)) lost")
                }
            }
            #expect(problems.isEmpty, "seed \(seed), run \(run), policy \(policy): \(problems.prefix(5))")
            if !problems.isEmpty { return }
        }
    }
}
