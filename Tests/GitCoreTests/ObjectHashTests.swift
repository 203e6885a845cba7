import CGit2
import Foundation
import GitCore
import TestSupport
import Testing

/// SHA-1 as GitCore hashes objects (the native digest and the portable one) and object ids spelled in
/// hex: the fast write path's hashing, on its own.
@Suite("Object hashes: native and portable SHA-1 agree, ids read back from their hex")
struct ObjectHashTests {
    @Test("the native and portable SHA-1 agree, on empty, odd and multi-block inputs")
    func sha1Agrees() {
        var generator = SplitMix64(seed: 7)
        for length in [0, 1, 55, 56, 63, 64, 65, 1000, 100_003] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let fast = bytes.withUnsafeBytes { SHA1.digest($0) }
            let portable = bytes.withUnsafeBytes { SHA1.portableDigest($0) }
            #expect(fast == portable, "length \(length)")
        }
        let abc = Array("abc".utf8).withUnsafeBytes { SHA1.portableDigest($0) }
        #expect(ObjectID(bytes: abc).hex == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test("the hardware object hash is SHA-1 of \"<type> <size>\\0\" and the bytes, at every count of size digits")
    func hardwareObjectHash() {
        var generator = SplitMix64(seed: 13)
        let types: [(git_object_t, String)] = [
            (GIT_OBJECT_BLOB, "blob"), (GIT_OBJECT_TREE, "tree"), (GIT_OBJECT_COMMIT, "commit"),
        ]
        for length in [0, 1, 9, 10, 11, 99, 100, 999, 1000, 12_345, 100_000, 1_000_003] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for (type, name) in types {
                let fast = bytes.withUnsafeBytes { ObjectID.hardwareHash(of: $0, type: type) }
                let expected = (Array("\(name) \(length)".utf8) + [0] + bytes).withUnsafeBytes {
                    SHA1.portableDigest($0)
                }
                #expect(fast == ObjectID(bytes: expected), "\(name) of \(length) bytes")
            }
            #expect(
                bytes.withUnsafeBytes { ObjectID.hardwareHash(of: $0, type: GIT_OBJECT_BLOB) }
                    == ObjectID.blobHash(of: bytes))
        }
    }

    @Test("an object id's hex: two lowercase digits a byte, in order, and read back to the same id")
    func hexDigits() {
        var generator = SplitMix64(seed: 11)
        for round in 0..<500 {
            let bytes = (0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let id = ObjectID(bytes: round == 0 ? [UInt8](repeating: 0xFF, count: 20) : bytes)
            let expected = id.bytes.map { String(format: "%02x", $0) }.joined()
            #expect(id.hex == expected, "round \(round)")
            #expect(ObjectID(hex: id.hex) == id, "round \(round)")
        }
    }
}
