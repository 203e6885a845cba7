import CGit2
import Foundation
@testable import GitCore
import TestSupport
import Testing

/// `PackReader` against libgit2 on packs written by git (whole objects, and with deltas) and as a
/// deck's writes write them (`PackedCardRepository`), and on damaged packs: the same bytes or nil,
/// never other bytes for a blob, never a trap. Seeded; the seed is in every failure message.
@Suite("Pack reader: whole objects as libgit2 reads them, nil for the rest", .scratchFolder)
struct PackReaderTests {
    /// Every object in `directory`'s packs with its type, from `git cat-file`.
    static func objects(in directory: String, scratch: ScratchFolder) throws -> [(id: ObjectID, type: git_object_t)] {
        let listing = try scratch.git(
            ["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"], in: directory)
        return listing.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let id = ObjectID(hex: String(parts[0])) else { return nil }
            let types: [Substring: git_object_t] = [
                "blob": GIT_OBJECT_BLOB, "tree": GIT_OBJECT_TREE, "commit": GIT_OBJECT_COMMIT, "tag": GIT_OBJECT_TAG,
            ]
            guard let type = types[parts[1]] else { return nil }
            return (id, type)
        }
    }

    /// A bare repository with random files in random folders over a few commits, then packed by git.
    static func packedRepository(seed: UInt64, scratch: ScratchFolder, deltas: Bool) throws -> String {
        var random = SplitMix64(seed: seed)
        let work = scratch.path("work")
        try scratch.git(["init", "-q", "-b", "main", work], in: scratch.root)
        for commit in 0..<4 {
            for _ in 0..<Int.random(in: 5...25, using: &random) {
                let folder = "\(work)/d\(Int.random(in: 0..<4, using: &random))"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                let size = Int.random(in: 0...3000, using: &random)
                // Text that compresses and bytes that do not; some files empty.
                var bytes: [UInt8] = []
                for index in 0..<size {
                    let letter = UInt8(97 + index % 26)
                    bytes.append(index % 7 == 0 ? UInt8.random(in: 0...255, using: &random) : letter)
                }
                try Data(bytes).write(to: URL(fileURLWithPath: "\(folder)/f\(Int.random(in: 0..<30, using: &random))"))
            }
            try scratch.git(["add", "-A"], in: work)
            try scratch.git(["commit", "-q", "-m", "commit \(commit)"], in: work)
        }
        let bare = scratch.path("bare.git")
        try scratch.git(["clone", "-q", "--bare", work, bare], in: scratch.root)
        try scratch.git(
            ["repack", "-a", "-d", "-f", "-q", deltas ? "--window=10" : "--window=0"], in: bare)
        return bare
    }

    @Test(
        "reads every whole object of git's packs as libgit2 does; deltas are left to libgit2",
        arguments: [
            (UInt64(31), false), (32, false), (33, true), (34, true),
        ])
    func matchesLibgit2(seed: UInt64, deltas: Bool) throws {
        let scratch = try ScratchFolder.current
        let directory = try Self.packedRepository(seed: seed, scratch: scratch, deltas: deltas)
        let repository = try Repository.open(at: directory)
        let reader = PackReader(objectsDirectory: directory + "/objects/")
        #expect(reader.packCount == 1, "seed \(seed): one pack after git repack -a -d")
        var read = 0
        for object in try Self.objects(in: directory, scratch: scratch) {
            let expected = try repository.readObject(object.id)
            if let bytes = reader.read(object.id, type: object.type) {
                read += 1
                #expect(bytes == expected, "seed \(seed): \(object.id.short) reads other bytes than libgit2's")
            }
            if object.type == GIT_OBJECT_TREE, let view = reader.readTree(object.id) {
                #expect(Array(view.bytes) == expected, "seed \(seed): tree \(object.id.short) reads other bytes")
            }
            // Asked as another type: nil.
            let other = object.type == GIT_OBJECT_BLOB ? GIT_OBJECT_TREE : GIT_OBJECT_BLOB
            #expect(reader.read(object.id, type: other) == nil, "seed \(seed): \(object.id.short) read as another type")
            if object.type == GIT_OBJECT_BLOB, !expected.isEmpty {
                #expect(
                    reader.readBlob(object.id, limit: expected.count - 1) == nil,
                    "seed \(seed): \(object.id.short) read over the limit")
            }
        }
        let all = try Self.objects(in: directory, scratch: scratch).count
        // Without deltas every object is whole; with them git keeps at least the newest of each chain whole.
        if deltas {
            #expect(read > 0 && read < all, "seed \(seed): \(read) of \(all) read with deltas")
        } else {
            #expect(read == all, "seed \(seed): only \(read) of \(all) whole objects read")
        }
        #expect(reader.read(ObjectID(bytes: [UInt8](repeating: 0xAB, count: 20)), type: GIT_OBJECT_BLOB) == nil)
    }

    @Test(
        "a pack written by hand (stored blocks) at the block edges, objects copied in or kept where they lie: git verifies it, libgit2 and the reader read it",
        arguments: [("copied", false), ("kept", false), ("alternately copied and kept", false), ("kept", true)])
    func storedBlockEdges(how: String, small: Bool) throws {
        let scratch = try ScratchFolder.current
        let path = scratch.path("edges.git")
        try scratch.git(["init", "-q", "--bare", path], in: scratch.root)
        // Empty, one byte, one block exactly, one byte over, several blocks and a partial one (the
        // pack then big enough to be hashed on a second thread); or only small objects.
        let sizes = small ? [0, 1, 2, 300] : [0, 1, 65_534, 65_535, 65_536, 200_000]
        var blobs: [(id: ObjectID, bytes: [UInt8])] = []
        for size in sizes {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) }
            let id = bytes.withUnsafeBytes { ObjectID.hardwareHash(of: $0, type: GIT_OBJECT_BLOB) }
            blobs.append((id, bytes))
        }
        var pack = PackFile(expectedBytes: blobs.reduce(0) { $0 + $1.bytes.count }, objects: blobs.count)
        for (position, blob) in PackFile.sortedUnique(blobs.map(\.id.raw)).enumerated() {
            guard let bytes = blobs.first(where: { $0.id == ObjectID(blob) })?.bytes else { continue }
            let keep = how == "kept" || (how != "copied" && position % 2 == 1)
            if keep {
                let sums = bytes.withUnsafeBytes { PackFile.checksums(type: GIT_OBJECT_BLOB, data: $0) }
                pack.append(id: blob, type: GIT_OBJECT_BLOB, keeping: bytes, checksums: sums)
            } else {
                bytes.withUnsafeBytes { pack.append(id: blob, type: GIT_OBJECT_BLOB, data: $0) }
            }
        }
        let name = try pack.install(in: path + "/objects/pack").name
        // git's own check of every entry's zlib stream, CRC and the pack's checksum.
        let verified = try scratch.git(["verify-pack", "-v", name + ".idx"], in: path)
        #expect(verified.contains("non delta: \(sizes.count) objects"))
        // The index as git makes it from the pack (CRC-32s, offsets, checksums), byte for byte.
        try FileManager.default.copyItem(atPath: name + ".pack", toPath: scratch.path("copy.pack"))
        _ = try scratch.git(["index-pack", "-o", scratch.path("copy.idx"), scratch.path("copy.pack")], in: path)
        #expect(
            FileManager.default.contents(atPath: scratch.path("copy.idx"))
                == FileManager.default.contents(atPath: name + ".idx"))
        let repository = try Repository.open(at: path)
        let reader = PackReader(objectsDirectory: path + "/objects/")
        for blob in blobs {
            #expect(try repository.readObject(blob.id) == blob.bytes, "\(blob.bytes.count) bytes through libgit2")
            #expect(reader.read(blob.id, type: GIT_OBJECT_BLOB) == blob.bytes, "\(blob.bytes.count) bytes in place")
        }
    }

    @Test(
        "a commit's spliced trees packed by PackWriter (their checksums on two threads) get the index git's index-pack makes"
    )
    func splicedTreesPacked() throws {
        let scratch = try ScratchFolder.current
        let path = scratch.path("trees.git")
        try scratch.git(["init", "-q", "--bare", path], in: scratch.root)
        let repository = try Repository.open(at: path)
        let writer = try PackWriter(for: repository)
        // 40 folders of 300 entries (~25 KB each, ~1 MB in all: past `sideBySideChecksumBytes`), and a
        // root holding them.
        var random = SplitMix64(seed: 11)
        var root: [UInt8] = []
        for folder in 0..<40 {
            var tree: [UInt8] = []
            for entry in 0..<300 {
                tree += Array(String(format: "100644 card-%04d.json", entry).utf8) + [0]
                tree += (0..<20).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
            let id = try writer.write(tree: tree)
            root += Array(String(format: "40000 %02x", folder).utf8) + [0] + id.bytes
        }
        let rootID = try writer.write(tree: root)
        let signature = Signature(name: "T", email: "t@example.invalid", time: 1_700_000_000)
        let commit = try writer.writeCommit(
            Repository.commitBytes(
                tree: rootID, parents: [], message: "trees\n", author: signature, committer: signature))
        try writer.finish(commit: commit, durable: false)
        let folder = path + "/objects/pack"
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".pack") })
        try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: scratch.path("copy.pack"))
        _ = try scratch.git(["index-pack", "-o", scratch.path("copy.idx"), scratch.path("copy.pack")], in: path)
        let idx = folder + "/" + name.dropLast(".pack".count) + ".idx"
        #expect(
            FileManager.default.contents(atPath: scratch.path("copy.idx")) == FileManager.default.contents(atPath: idx))
        #expect(try scratch.git(["cat-file", "-t", commit.hex], in: path) == "commit\n")
        #expect(try scratch.git(["cat-file", "-p", rootID.hex], in: path).contains("040000 tree"))
    }

    @Test("reads a deck's own packs (trees stored uncompressed) as libgit2 does")
    func deckPacks() throws {
        let scratch = try ScratchFolder.current
        let path = scratch.path("deck.git")
        let cards = CardFiles.make(300)
        var deck = try PackedCardRepository(at: path, scratch: scratch, name: "P", cards: cards)
        for (index, card) in cards.prefix(5).enumerated() {
            var edited = card
            edited.bytes += Array("\n".utf8)
            try deck.commit([edited], message: "Edit card \(index)\n")
        }
        let repository = try Repository.open(at: path)
        let reader = PackReader(objectsDirectory: path + "/objects/")
        let objects = try Self.objects(in: path, scratch: scratch)
        #expect(objects.count > 300)
        var inPlace = 0
        for object in objects {
            let expected = try repository.readObject(object.id)
            #expect(reader.read(object.id, type: object.type) == expected, "\(object.id.short) reads differently")
            guard object.type == GIT_OBJECT_TREE else { continue }
            let view = reader.readTree(object.id)
            #expect(view.map { Array($0.bytes) } == expected, "tree \(object.id.short) reads differently")
            // Stored uncompressed: used where it lies in the mapped pack, not copied.
            if let view, !(view.owner is OwnedBytes) { inPlace += 1 }
        }
        #expect(inPlace == objects.filter { $0.type == GIT_OBJECT_TREE }.count, "a deck's trees are read in place")
    }

    @Test(
        "damaged packs and indexes: an object reads right or not at all, and nothing traps",
        arguments: [
            (UInt64(41), false), (42, false), (43, true), (44, true),
        ])
    func damaged(seed: UInt64, deckPack: Bool) throws {
        var random = SplitMix64(seed: seed)
        let scratch = try ScratchFolder.current
        // git's pack (compressed objects), or a deck's one pack (stored objects, trees read in place).
        let directory: String
        if deckPack {
            directory = scratch.path("deck.git")
            _ = try PackedCardRepository(
                at: directory, scratch: scratch, name: "D", cards: CardFiles.make(200, seed: seed))
        } else {
            directory = try Self.packedRepository(seed: seed, scratch: scratch, deltas: false)
        }
        let repository = try Repository.open(at: directory)
        let objects = try Self.objects(in: directory, scratch: scratch)
        var expected: [ObjectID: [UInt8]] = [:]
        for object in objects { expected[object.id] = try repository.readObject(object.id) }
        let packFolder = directory + "/objects/pack"
        let names = try FileManager.default.contentsOfDirectory(atPath: packFolder)
        // The biggest pack (a deck's import).
        let packs = names.filter { $0.hasSuffix(".pack") }.sorted { left, right in
            let size = { (name: String) in
                (try? FileManager.default.attributesOfItem(atPath: "\(packFolder)/\(name)")[.size] as? Int) ?? 0
            }
            return size(left) > size(right)
        }
        guard let stem = packs.first.map({ String($0.dropLast(5)) }) else {
            Issue.record("seed \(seed): no pack index")
            return
        }
        let originalPack = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(packFolder)/\(stem).pack")))
        let originalIndex = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(packFolder)/\(stem).idx")))
        for round in 0..<60 {
            var pack = originalPack
            var index = originalIndex
            switch round % 4 {
            case 0:
                for _ in 0..<Int.random(in: 1...20, using: &random) {
                    pack[Int.random(in: 0..<pack.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            case 1:
                // Offsets and fan-out pointing anywhere.
                for _ in 0..<Int.random(in: 1...20, using: &random) {
                    let position = Int.random(in: 8..<index.count, using: &random)
                    index[position] = UInt8.random(in: 0...255, using: &random)
                }
            case 2: pack.removeLast(Int.random(in: 1...pack.count, using: &random))
            default: index.removeLast(Int.random(in: 1...index.count, using: &random))
            }
            let copy = scratch.path("damaged-\(round)")
            try FileManager.default.createDirectory(atPath: copy + "/pack", withIntermediateDirectories: true)
            try Data(pack).write(to: URL(fileURLWithPath: "\(copy)/pack/\(stem).pack"))
            try Data(index).write(to: URL(fileURLWithPath: "\(copy)/pack/\(stem).idx"))
            let reader = PackReader(objectsDirectory: copy + "/")
            for object in objects {
                // Every entry is checked against its CRC-32 in the index: damaged, it reads as nil.
                if object.type == GIT_OBJECT_TREE, let view = reader.readTree(object.id) {
                    #expect(
                        Array(view.bytes) == expected[object.id], "seed \(seed), round \(round): a damaged tree read")
                }
                let bytes = reader.read(object.id, type: object.type)
                if let bytes {
                    #expect(
                        bytes == expected[object.id], "seed \(seed), round \(round): a damaged blob read as another")
                }
            }
            try FileManager.default.removeItem(atPath: copy)
        }
    }
}

extension PackReaderTests {
    @Test("a header that claims a huge object is refused before anything is allocated")
    func hugeClaimedSize() throws {
        let scratch = try ScratchFolder.current
        let folder = scratch.path("objects/pack")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // One tree whose header says 0xFFFFFFFF bytes, then an empty stored zlib stream.
        var pack: [UInt8] = Array("PACK".utf8) + [0, 0, 0, 2, 0, 0, 0, 1]
        let header: [UInt8] = [0x20 | 0x80 | 0x0F, 0xFF, 0xFF, 0xFF, 0x7F]
        let stream: [UInt8] = [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]
        pack += header + stream
        let entryCRC = UInt32(
            truncatingIfNeeded: (header + stream).withUnsafeBufferPointer {
                crc32_z(0, $0.baseAddress, $0.count)
            })
        pack += SHA1.digest(pack)
        let id = ObjectID(bytes: [UInt8](repeating: 0x5A, count: 20))
        var index: [UInt8] = [0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2]
        for bucket in 0..<256 { index += bigEndian(bucket >= 0x5A ? 1 : 0) }
        index += id.bytes + bigEndian(entryCRC) + bigEndian(12) + Array(pack.suffix(20))
        index += SHA1.digest(index)
        try Data(pack).write(to: URL(fileURLWithPath: folder + "/pack-huge.pack"))
        try Data(index).write(to: URL(fileURLWithPath: folder + "/pack-huge.idx"))
        let reader = PackReader(objectsDirectory: scratch.path("objects/"))
        #expect(reader.packCount == 1)
        #expect(reader.readTree(id) == nil)
        #expect(reader.read(id, type: GIT_OBJECT_TREE) == nil)
    }

    private func bigEndian(_ value: Int) -> [UInt8] { bigEndian(UInt32(value)) }

    private func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
