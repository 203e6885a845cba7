import CFastCRC
import CGit2
import Foundation
import TestSupport
import Testing

@Suite("CRC-32 folded with carry-less multiplication equals zlib's")
struct FastCRCTests {
    @Test("random lengths, unaligned starts and running CRCs (seed printed)")
    func matchesZlib() {
        let seed = TestSeeds.one("CARDS_TEST_SEED")
        print(
            "FastCRCTests.matchesZlib seed: \(seed) (CARDS_TEST_SEED=\(seed) replays it); "
                + "folded on this processor: \(cards_crc32_is_folded() != 0)")
        var generator = SplitMix64(seed: seed)
        let bytes = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for round in 0..<5_000 {
                // Every length up to a few 64-byte blocks often, now and then a long run.
                let length =
                    round % 100 == 0
                    ? Int.random(in: 0...250_000, using: &generator) : Int.random(in: 0...400, using: &generator)
                let offset = Int.random(in: 0...63, using: &generator)
                let running = round % 3 == 0 ? 0 : UInt32.random(in: 0...UInt32.max, using: &generator)
                let expected = UInt32(truncatingIfNeeded: crc32_z(uLong(running), base + offset, length))
                #expect(
                    cards_crc32(running, base + offset, length) == expected,
                    "length \(length), offset \(offset), running \(running) (seed \(seed))")
            }
        }
    }

    @Test("pieces fed one after another give the CRC of the whole")
    func inPieces() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let whole = cards_crc32(0, base, buffer.count)
            var running: UInt32 = 0
            var start = 0
            for size in [1, 63, 64, 65, 127, 1000, 4096] where start < buffer.count {
                let length = min(size, buffer.count - start)
                running = cards_crc32(running, base + start, length)
                start += length
            }
            running = cards_crc32(running, base + start, buffer.count - start)
            #expect(running == whole)
            #expect(whole == UInt32(truncatingIfNeeded: crc32_z(0, base, buffer.count)))
        }
    }
}
