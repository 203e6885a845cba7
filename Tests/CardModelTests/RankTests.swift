import TestSupport
import Testing

@testable import CardModel

@Suite struct RankTests {
    func less(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    @Test func appendsStayShort() {
        #expect(Rank.initial == "a0")
        #expect(Rank.between(nil, nil) == "a0")
        #expect(Rank.between("a0", nil) == "a1")
        #expect(Rank.between("az", nil) == "b00")
        let ranks = Rank.sequence(count: 100_000, after: nil)
        #expect(ranks.first == "a0")
        #expect(zip(ranks, ranks.dropFirst()).allSatisfy { less($0, $1) })
        #expect(ranks.allSatisfy { $0.utf8.count <= 4 })
        #expect(Rank.sequence(count: 0, after: "a0").isEmpty)
        #expect(Rank.sequence(count: -3, after: nil).isEmpty)
        #expect(Rank.sequence(count: 2, after: "a0") == ["a1", "a2"])
    }

    @Test func prependsAndInsertsStayShort() {
        var first = "a0"
        for _ in 0..<1000 {
            let next = Rank.between(nil, first)
            #expect(less(next, first))
            first = next
        }
        #expect(first.utf8.count <= 4)
        // Repeated insertion just after a fixed card grows about one digit per ~6 inserts.
        var upper = "a1"
        for _ in 0..<60 {
            let mid = Rank.between("a0", upper)
            #expect(less("a0", mid) && less(mid, upper))
            upper = mid
        }
        #expect(upper.utf8.count <= 14)
    }

    @Test func randomPairsAreStrictlyBetween() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        var pool =
            Rank.sequence(count: 5, after: nil) + [
                "0", "1", "z", "zz", "a00", "Zz", "A" + String(repeating: "0", count: 26) + "V", "5x",
            ]
        for _ in 0..<20_000 {
            let a = pool.randomElement(using: &rng)
            let b = pool.randomElement(using: &rng)
            let lower = Bool.random(using: &rng) ? a : nil
            let upper = Bool.random(using: &rng) ? b : nil
            let r = Rank.between(lower, upper)
            #expect(
                Rank.isValid(r), "seed \(seed): between(\(String(describing: lower)), \(String(describing: upper)))")
            if let lower, let upper, !less(lower, upper) {
                #expect(
                    less(lower, r), "corrupt bounds must still give > lower; seed \(seed): \(lower) \(upper) -> \(r)")
            } else if let upper, upper == (lower ?? "") + "0" {
                #expect(r == upper, "seed \(seed)")
            } else {
                if let lower { #expect(less(lower, r), "seed \(seed): \(lower) < \(r)?") }
                if let upper { #expect(less(r, upper), "seed \(seed): \(r) < \(upper)?") }
                if pool.count < 4000 { pool.append(r) }
            }
            #expect(Rank.between(lower, upper) == r, "deterministic; seed \(seed)")
        }
    }

    @Test func handWrittenRanksAndInvalidBounds() {
        #expect(less("5", Rank.between("5", "6")) && less(Rank.between("5", "6"), "6"))
        #expect(Rank.between("a", "a00") == "a0")
        #expect(Rank.between("a", "a0") == "a0")  // nothing strictly between exists
        #expect(Rank.between("not valid!", nil) == "a0")
        #expect(less("b", Rank.between("b", "a")))
        #expect(less("zzz", Rank.between("zzz", nil)))
        let top = "z" + String(repeating: "z", count: 26)
        #expect(less(top, Rank.between(top, nil)))
        let bottom = "A" + String(repeating: "0", count: 26)
        let below = Rank.between(nil, bottom)
        #expect(less(below, bottom) && Rank.isValid(below))
    }
}
