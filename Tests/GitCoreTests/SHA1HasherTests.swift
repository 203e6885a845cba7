import Foundation
import TestSupport
import Testing

@testable import GitCore

@Suite("SHA-1 fed in pieces: native and portable, against the one-shot digest")
struct SHA1HasherTests {
    @Test("incremental digests equal one-shot ones over random splits (seed printed)", arguments: [false, true])
    func randomSplits(portable: Bool) {
        let seed = TestSeeds.one("CARDS_TEST_SEED")
        print("SHA1HasherTests.randomSplits(portable: \(portable)) seed: \(seed) (CARDS_TEST_SEED=\(seed) replays it)")
        var generator = SplitMix64(seed: seed)
        for round in 0..<300 {
            // Mostly short inputs (every padding case), now and then one over many blocks.
            let length =
                round % 50 == 0
                ? Int.random(in: 0...300_000, using: &generator) : Int.random(in: 0...300, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var cuts = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                Int.random(in: 0...length, using: &generator)
            }
            cuts = ([0] + cuts + [length]).sorted()
            var hasher = SHA1.Hasher(portable: portable)
            bytes.withUnsafeBytes { buffer in
                // Empty pieces included: repeated cut points.
                for (start, end) in zip(cuts, cuts.dropFirst()) {
                    hasher.update(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
                }
            }
            let incremental = hasher.finalize()
            let oneShot = bytes.withUnsafeBytes { portable ? SHA1.portableDigest($0) : SHA1.digest($0) }
            #expect(incremental == oneShot, "seed \(seed) round \(round): length \(length), cuts \(cuts)")
        }
    }

    @Test("known vectors through the incremental hasher, native and portable", arguments: [false, true])
    func knownVectors(portable: Bool) {
        let vectors = [
            ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ]
        for (text, hex) in vectors {
            var hasher = SHA1.Hasher(portable: portable)
            for byte in text.utf8 { [byte].withUnsafeBytes { hasher.update($0) } }
            #expect(ObjectID(bytes: hasher.finalize()).hex == hex, "\(text)")
        }
        // A million times "a", in pieces of 1000.
        var hasher = SHA1.Hasher(portable: portable)
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { piece.withUnsafeBytes { hasher.update($0) } }
        #expect(ObjectID(bytes: hasher.finalize()).hex == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }
}
