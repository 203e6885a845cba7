import Foundation
import TestSupport
import Testing

@testable import GitCore

/// The index checksum resumed from saved SHA-1 checkpoints (`IndexMidstates`) against the plain
/// SHA-1 of the new file's bytes, over random files and random changes (seed printed).
@Suite("Index checksum from saved SHA-1 checkpoints: the same digest as hashing the whole file")
struct IndexMidstatesTests {
    @Test(
        "a hasher resumed from a midstate gives the whole input's digest, native and portable",
        arguments: [false, true])
    func resumedHasher(portable: Bool) throws {
        #expect(SHA1.canResume)
        let seed = TestSeeds.one("CARDS_TEST_SEED")
        print(
            "IndexMidstatesTests.resumedHasher(portable: \(portable)) seed: \(seed) (CARDS_TEST_SEED=\(seed) replays it)"
        )
        var generator = SplitMix64(seed: seed)
        for round in 0..<100 {
            let length = Int.random(in: 0...5_000, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let cut = Int.random(in: 0...length / 64, using: &generator) * 64
            let resumed = try bytes.withUnsafeBytes { buffer in
                var first = SHA1.Hasher(portable: portable)
                // In two pieces, the first not a whole block: only the end of a whole block has a midstate.
                let split = min(cut, Int.random(in: 0...cut, using: &generator))
                first.update(UnsafeRawBufferPointer(rebasing: buffer[0..<split]))
                let early = first.midstate()
                if split % 64 != 0 { #expect(early == nil, "seed \(seed) round \(round)") }
                first.update(UnsafeRawBufferPointer(rebasing: buffer[split..<cut]))
                let taken = first.midstate()
                let midstate = try #require(taken, "seed \(seed) round \(round)")
                #expect(midstate.length == cut)
                // Native and portable states agree, so a checkpoint saved by one is good for the other.
                var other = SHA1.Hasher(portable: !portable)
                other.update(UnsafeRawBufferPointer(rebasing: buffer[0..<cut]))
                let otherState = other.midstate()
                #expect(otherState == midstate, "seed \(seed) round \(round)")
                var resumed = SHA1.Hasher(resuming: midstate, portable: portable)
                resumed.update(UnsafeRawBufferPointer(rebasing: buffer[cut...]))
                return resumed.finalize()
            }
            #expect(resumed == SHA1.digest(bytes), "seed \(seed) round \(round): length \(length), cut \(cut)")
        }
        #expect(SHA1.Midstate(words: [1, 2, 3, 4], length: 64) == nil)
        #expect(SHA1.Midstate(words: [1, 2, 3, 4, 5], length: 65) == nil)
    }

    /// A change to a file, as the index patch describes it: pieces of the old file and new bytes.
    static func randomImage(of body: [UInt8], using generator: inout SplitMix64) -> IndexImage {
        var image = IndexImage()
        let offset = Int.random(in: 0...body.count, using: &generator)
        let newBytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
            UInt8.random(in: 0...255, using: &generator)
        }
        switch Int.random(in: 0..<7, using: &generator) {
        case 0:  // Bytes overwritten in place (an edited entry).
            let end = min(body.count, offset + newBytes.count)
            image.copy(0..<offset)
            image.append(contentsOf: newBytes[0..<(end - offset)])
            image.copy(end..<body.count)
        case 1:  // Bytes inserted (an added entry).
            image.copy(0..<offset)
            image.append(contentsOf: newBytes)
            image.copy(offset..<body.count)
        case 2:  // Bytes removed (a deleted entry).
            image.copy(0..<offset)
            image.copy(min(body.count, offset + newBytes.count)..<body.count)
        case 3:  // The header rewritten (a new entry count), and an entry overwritten.
            guard body.count >= 12 else {
                image.copy(0..<body.count)
                break
            }
            image.append(contentsOf: body.prefix(8) + [0, 0, 1, 2])
            let start = min(body.count, max(12, offset))
            image.copy(12..<start)
            image.append(contentsOf: newBytes)
            image.copy(min(body.count, start + newBytes.count)..<body.count)
        case 4:  // New bytes that happen to be the old ones (a header rewritten with the same count).
            image.append(contentsOf: body[0..<offset])
            image.append(contentsOf: newBytes)
            image.copy(min(body.count, offset + newBytes.count)..<body.count)
        case 5:  // Cut short, or grown at the end (extensions rewritten).
            image.copy(0..<offset)
            image.append(contentsOf: newBytes)
        default:  // Nothing changed.
            image.copy(0..<body.count)
        }
        return image
    }

    /// The bytes an image describes.
    static func materialize(_ image: IndexImage, over original: [UInt8]) -> [UInt8] {
        original.withUnsafeBytes { buffer in
            image.withVectors(over: buffer) { vectors in
                vectors.flatMap { Array(UnsafeRawBufferPointer(start: $0.iov_base, count: $0.iov_len)) }
            }
        }
    }

    @Test("random files changed in random ways over generations: resumed digests and new checkpoints equal whole ones")
    func randomGenerations() throws {
        let seed = TestSeeds.one("CARDS_TEST_SEED")
        print("IndexMidstatesTests.randomGenerations seed: \(seed) (CARDS_TEST_SEED=\(seed) replays it)")
        var generator = SplitMix64(seed: seed)
        for file in 0..<12 {
            let interval = [64, 256, 4096][file % 3]
            var body = (0..<Int.random(in: 0...40_000, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            var checkpoints = try #require(
                body.withUnsafeBytes { buffer in
                    var whole = IndexImage()
                    whole.copy(0..<body.count)
                    return whole.digest(over: buffer, resuming: nil, interval: interval).midstates
                })
            var resumedSomewhere = false
            for generation in 0..<20 {
                let context = "seed \(seed) file \(file) generation \(generation)"
                let original = body + SHA1.digest(body)
                #expect(checkpoints.checksum == Array(original.suffix(20)) && checkpoints.hashedLength == body.count)
                let image = Self.randomImage(of: body, using: &generator)
                let expected = Self.materialize(image, over: original)
                let difference = zip(expected, original).prefix { $0 == $1 }.count
                let (digest, midstates, resumedAt) = original.withUnsafeBytes { buffer in
                    #expect(image.firstDifference(from: buffer) == difference, "\(context)")
                    return image.digest(over: buffer, resuming: checkpoints, interval: interval)
                }
                #expect(digest == SHA1.digest(expected), "\(context)")
                let usable = min(min(difference, body.count) / interval, checkpoints.states.count)
                #expect(resumedAt == usable * interval, "\(context)")
                resumedSomewhere = resumedSomewhere || resumedAt > 0
                let fresh = try #require(
                    expected.withUnsafeBytes { buffer in
                        var whole = IndexImage()
                        whole.copy(0..<expected.count)
                        return whole.digest(over: buffer, resuming: nil, interval: interval).midstates
                    })
                #expect(midstates == fresh, "\(context)")
                body = expected
                checkpoints = fresh
            }
            if body.count > 4 * interval { #expect(resumedSomewhere, "seed \(seed) file \(file)") }
        }
    }

    @Test("saved checkpoints are used only for the index they are of; torn, stale, linked or odd files are ignored")
    func savedAndLoaded() throws {
        let scratch = try ScratchFolder()
        let indexPath = scratch.path("index")
        let body = (0..<(300 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let index = body + SHA1.digest(body)
        try Data(index).write(to: URL(fileURLWithPath: indexPath))
        var whole = IndexImage()
        whole.copy(0..<body.count)
        let first = index.withUnsafeBytes { whole.checksum(over: $0, indexPath: indexPath) }
        #expect(first.digest == SHA1.digest(body))
        let savedPath = IndexMidstates.path(for: indexPath)
        // Nothing saved until the caller says the new file is the index.
        #expect(!FileManager.default.fileExists(atPath: savedPath))
        first.midstates?.save(for: indexPath)
        let saved = try #require(index.withUnsafeBytes { IndexMidstates.load(for: indexPath, describing: $0) })
        #expect(saved == first.midstates)
        #expect(saved.interval == 8192 && saved.states.count == body.count / 8192)
        #expect(IndexMidstates.decode(saved.encoded()) == saved)

        // An edit near the end, checksummed over the saved file: resumed from its last checkpoint
        // before the edit, and the new checkpoints start with the old ones.
        let at = body.count - 20_000
        var edit = IndexImage()
        edit.copy(0..<at)
        edit.append(contentsOf: [1, 2, 3])
        edit.copy((at + 3)..<body.count)
        let edited = Self.materialize(edit, over: index)
        let resumed = index.withUnsafeBytes { edit.digest(over: $0, resuming: saved, interval: saved.interval) }
        #expect(resumed.resumedAt == at / 8192 * 8192)
        let viaFile = index.withUnsafeBytes { edit.checksum(over: $0, indexPath: indexPath) }
        #expect(viaFile.digest == SHA1.digest(edited) && resumed.digest == viaFile.digest)
        let newStates = try #require(viaFile.midstates).states
        let kept = resumed.resumedAt / 8192
        #expect(Array(newStates.prefix(kept)) == Array(saved.states.prefix(kept)))
        #expect(newStates.count == saved.states.count && newStates.last != saved.states.last)
        // Checkpoints of another interval (an index that grew or shrank past a power of two) are not used.
        let coarse = try #require(
            index.withUnsafeBytes { whole.digest(over: $0, resuming: nil, interval: 16384).midstates })
        coarse.save(for: indexPath)
        let notResumed = index.withUnsafeBytes { edit.checksum(over: $0, indexPath: indexPath) }
        #expect(notResumed.digest == SHA1.digest(edited) && notResumed.midstates?.interval == 8192)

        // Another index of the same size: its checksum differs, the checkpoints are not its.
        var other = body
        other[10] ^= 1
        let otherIndex = other + SHA1.digest(other)
        #expect(otherIndex.withUnsafeBytes { IndexMidstates.load(for: indexPath, describing: $0) } == nil)
        // Torn (every shorter prefix), one bit flipped, a link, a FIFO: ignored.
        let encoded = saved.encoded()
        for length in stride(from: 0, to: encoded.count, by: 97) {
            try Data(encoded.prefix(length)).write(to: URL(fileURLWithPath: savedPath))
            #expect(index.withUnsafeBytes { IndexMidstates.load(for: indexPath, describing: $0) } == nil, "\(length)")
        }
        var flipped = encoded
        flipped[50] ^= 0x10
        try Data(flipped).write(to: URL(fileURLWithPath: savedPath))
        #expect(index.withUnsafeBytes { IndexMidstates.load(for: indexPath, describing: $0) } == nil)
        try Data(encoded).write(to: URL(fileURLWithPath: scratch.path("elsewhere")))
        try FileManager.default.removeItem(atPath: savedPath)
        try FileManager.default.createSymbolicLink(atPath: savedPath, withDestinationPath: scratch.path("elsewhere"))
        #expect(index.withUnsafeBytes { IndexMidstates.load(for: indexPath, describing: $0) } == nil)
        try FileManager.default.removeItem(atPath: savedPath)
        #expect(mkfifo(savedPath, 0o644) == 0)
        #expect(index.withUnsafeBytes { IndexMidstates.load(for: indexPath, describing: $0) } == nil)
        try FileManager.default.removeItem(atPath: savedPath)
        // Saved over a FIFO or a second name of another file: replaced, never opened or truncated.
        #expect(mkfifo(savedPath, 0o644) == 0)
        saved.save(for: indexPath)
        #expect(index.withUnsafeBytes { IndexMidstates.load(for: indexPath, describing: $0) } == saved)
        try FileManager.default.removeItem(atPath: savedPath)
        try FileManager.default.linkItem(atPath: scratch.path("elsewhere"), toPath: savedPath)
        let linked = try Data(contentsOf: URL(fileURLWithPath: scratch.path("elsewhere")))
        let newer = try #require(viaFile.midstates)
        newer.save(for: indexPath)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("elsewhere"))) == linked)
        #expect(IndexMidstates.decode(Array(try Data(contentsOf: URL(fileURLWithPath: savedPath)))) == newer)
        #expect(FileManager.default.subpaths(atPath: scratch.root)?.filter { $0.hasSuffix(".tmp") } == [])
    }
}
