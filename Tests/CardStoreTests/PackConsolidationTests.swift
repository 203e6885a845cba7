import Testing

@testable import GitCore

/// Which packs get combined: the fewest small ones that leave a geometric progression.
@Suite("Pack consolidation choice")
struct PackConsolidationTests {
    @Test("within the limit and already geometric: nothing to combine")
    func nothingToDo() {
        #expect(PackConsolidation.combinedCount([5, 10, 40, 100_000], limit: 16) == 0)
    }

    @Test("seventeen one-commit packs beside an import: all the small ones, never the import")
    func smallOnesOnly() {
        let counts = Array(repeating: 5, count: 17) + [100_000]
        #expect(PackConsolidation.combinedCount(counts, limit: 16) == 17)
    }

    @Test("a pack that is not yet twice the ones below it is combined with them")
    func notYetDouble() {
        // 16 packs of 5 (80 objects) below a pack of 85: 85 < 160, so it is combined too.
        let counts = Array(repeating: 5, count: 16) + [85, 100_000]
        #expect(PackConsolidation.combinedCount(counts, limit: 16) == 17)
    }

    @Test("over the limit, enough are combined to come back to half of it, even in a geometric row")
    func overTheLimit() {
        let counts = (0..<20).map { 1 << ($0 * 2) }
        let combined = PackConsolidation.combinedCount(counts, limit: 16)
        #expect(counts.count - combined + 1 <= 8)
    }

    @Test("for random pack sizes the rest is geometric and within half the limit")
    func randomSizes() {
        var state: UInt64 = 0x5EED
        for round in 0..<500 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let size = Int(state >> 59) + 17
            var counts: [Int] = []
            for _ in 0..<size {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                counts.append(Int(state >> 44) + 1)
            }
            counts.sort()
            let combined = PackConsolidation.combinedCount(counts, limit: 16)
            #expect(combined >= 2 && counts.count - combined + 1 <= 9, "round \(round): \(counts)")
            var running = counts.prefix(combined).reduce(0, +)
            for next in counts.dropFirst(combined) {
                #expect(next >= 2 * running, "round \(round): \(counts) combining \(combined)")
                running += next
            }
        }
    }
}
