import Foundation
@testable import GitCore
import TestSupport
import Testing

/// The shortcuts of `RawTree` against the plain way on random tree bytes: a tree parsed like a
/// sibling (another version of the folder) against one parsed entry by entry, including versions
/// that are damaged or not canonical; the common start and end of two byte strings against a byte
/// loop; the run of alike entries of a walk against an entry-by-entry count. Seeded; the seed is in
/// every failure message (`RAW_TREE_SEEDS=N` for more).
@Suite("Raw tree parsing: the shortcuts give what the plain way gives")
struct RawTreeParseTests {
    static let seeds = TestSeeds.list("RAW_TREE_SEEDS", count: 40, from: 9_100)

    /// One entry to write: its mode as spelled, its name and its id.
    typealias Spelled = (mode: String, name: String, id: [UInt8])

    /// A random canonical folder: card-like names (some sharing long starts), a few subfolders.
    static func randomEntries(using random: inout SplitMix64) -> [Spelled] {
        let count = Int.random(in: 0...120, using: &random)
        var names = Set<String>()
        while names.count < count {
            let stem = String(UInt64.random(in: 0..<UInt64(1 << 16), using: &random), radix: 16)
            let shared = Int.random(in: 0..<3, using: &random) == 0 ? "0000aaaa-" : ""
            names.insert(shared + stem + (Int.random(in: 0..<8, using: &random) == 0 ? "" : ".json"))
        }
        let entries = names.map { name -> Spelled in
            let isFolder = !name.hasSuffix(".json")
            let id = (0..<20).map { _ in UInt8.random(in: 0...255, using: &random) }
            return (isFolder ? "40000" : "100644", name, id)
        }
        return entries.sorted { sortKey($0).lexicographicallyPrecedes(sortKey($1)) }
    }

    /// git's order: a folder's name as if it ended with "/".
    static func sortKey(_ entry: Spelled) -> [UInt8] {
        Array(entry.name.utf8) + (entry.mode == "40000" ? [UInt8(ascii: "/")] : [])
    }

    static func bytes(_ entries: [Spelled]) -> [UInt8] {
        var bytes: [UInt8] = []
        for entry in entries { bytes += Array("\(entry.mode) \(entry.name)".utf8) + [0] + entry.id }
        return bytes
    }

    /// Another version of `entries`: a few entries edited, added or removed (still canonical), or
    /// made non-canonical (out of order, a name twice, an odd mode), or damaged bytes.
    static func otherVersion(of entries: [Spelled], using random: inout SplitMix64) -> [UInt8] {
        var changed = entries
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = changed.isEmpty ? 0 : Int.random(in: 0..<changed.count, using: &random)
            switch Int.random(in: 0..<9, using: &random) {
            case 0, 1, 2:
                if !changed.isEmpty { changed[position].id[Int.random(in: 0..<20, using: &random)] ^= 0x5A }
            case 3:
                if !changed.isEmpty { changed.remove(at: position) }
            case 4:
                let name = String(UInt64.random(in: 0..<UInt64(1 << 20), using: &random), radix: 16) + ".json"
                let id = (0..<20).map { _ in UInt8.random(in: 0...255, using: &random) }
                if !changed.contains(where: { $0.name == name }) {
                    changed.append(("100644", name, id))
                    changed.sort { sortKey($0).lexicographicallyPrecedes(sortKey($1)) }
                }
            case 5:
                if position + 1 < changed.count { changed.swapAt(position, position + 1) }
            case 6:
                if !changed.isEmpty { changed.insert(changed[position], at: position) }
            case 7:
                if !changed.isEmpty { changed[position].mode = "100664" }
            default:
                if !changed.isEmpty { changed[position].mode = "100755" }
            }
        }
        var result = bytes(changed)
        switch Int.random(in: 0..<6, using: &random) {
        case 0 where !result.isEmpty:
            result[Int.random(in: 0..<result.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
        case 1 where !result.isEmpty:
            result.removeLast(Int.random(in: 1...min(30, result.count), using: &random))
        default: break
        }
        return result
    }

    /// Each entry's offsets and mode, to compare two parses.
    static func layout(_ tree: RawTree?) -> [[Int]]? {
        tree.map { $0.entries.map { [$0.start, $0.nameStart, $0.nameEnd, Int($0.mode)] } }
    }

    @Test(
        "a tree parsed like a sibling version has the entries a full parse finds, or fails as it does",
        arguments: seeds)
    func parseLikeSibling(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for round in 0..<30 {
            let entries = Self.randomEntries(using: &random)
            guard let sibling = RawTree(canonical: Self.bytes(entries)) else {
                Issue.record("seed \(seed), round \(round): a canonical tree did not parse")
                continue
            }
            let version = OwnedBytes(Self.otherVersion(of: entries, using: &random))
            let buffer = UnsafeBufferPointer(version.bytes)
            let plain = RawTree(canonical: buffer, owner: version)
            let like = RawTree(canonical: buffer, owner: version, like: sibling)
            let likeCount = Self.layout(like)?.count ?? -1
            let plainCount = Self.layout(plain)?.count ?? -1
            #expect(
                Self.layout(like) == Self.layout(plain),
                "seed \(seed), round \(round): parsed like its sibling \(likeCount) entries, in full \(plainCount)")
        }
    }

    /// A card folder as a deck writes it: `<uuid>.json` files (41-byte names), now and then a
    /// subfolder or a shorter name among them.
    static func cardFolder(using random: inout SplitMix64) -> [Spelled] {
        var names = Set<String>()
        let count = Int.random(in: 0...60, using: &random)
        while names.count < count {
            let id = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
            var name =
                UUID(
                    uuid: (
                        id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7], id[8], id[9], id[10], id[11], id[12],
                        id[13], id[14], id[15]
                    )
                ).uuidString.lowercased() + ".json"
            if Int.random(in: 0..<20, using: &random) == 0 {
                name = String(name.prefix(Int.random(in: 1...40, using: &random)))
            }
            names.insert(name)
        }
        let entries = names.map { name -> Spelled in
            let isFolder = !name.hasSuffix(".json")
            let id = (0..<20).map { _ in UInt8.random(in: 0...255, using: &random) }
            return (isFolder ? "40000" : "100644", name, id)
        }
        return entries.sorted { sortKey($0).lexicographicallyPrecedes(sortKey($1)) }
    }

    /// The canonical-form rules spelled out plainly, entry by entry: each entry's offsets and mode,
    /// or nil where `RawTree(canonical:)` must refuse.
    static func plainLayout(_ bytes: [UInt8]) -> [[Int]]? {
        let modes: [String: Int] = [
            "40000": 0o40000, "100644": 0o100644, "100755": 0o100755, "120000": 0o120000, "160000": 0o160000,
        ]
        var layout: [[Int]] = []
        var keys: [[UInt8]] = []
        var names: [(name: [UInt8], isTree: Bool)] = []
        var position = 0
        while position < bytes.count {
            guard let space = bytes[position...].firstIndex(of: 0x20),
                let mode = modes[String(decoding: bytes[position..<space], as: UTF8.self)],
                let nul = bytes[(space + 1)...].firstIndex(of: 0), nul > space + 1, nul + 21 <= bytes.count,
                !bytes[(space + 1)..<nul].contains(UInt8(ascii: "/"))
            else { return nil }
            let name = Array(bytes[(space + 1)..<nul])
            let key = name + (mode == 0o40000 ? [UInt8(ascii: "/")] : [])
            if let last = keys.last, !last.lexicographicallyPrecedes(key) { return nil }
            keys.append(key)
            names.append((name, mode == 0o40000))
            layout.append([position, space + 1, nul, mode])
            position = nul + 21
        }
        let folders = Set(names.filter(\.isTree).map(\.name))
        if names.contains(where: { !$0.isTree && folders.contains($0.name) }) { return nil }
        return layout
    }

    @Test(
        "card folders, whole or damaged at any byte, parse as the rules spelled out plainly say",
        arguments: seeds)
    func cardFoldersParseAsTheRulesSay(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for round in 0..<60 {
            var bytes = Self.bytes(Self.cardFolder(using: &random))
            if round % 4 != 0 && !bytes.isEmpty {
                // A byte of a name, a mode or an id made a NUL, a "/", a space, or anything.
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let spoiled: [UInt8] = [0, UInt8(ascii: "/"), 0x20, UInt8.random(in: 0...255, using: &random)]
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] =
                        spoiled[Int.random(in: 0..<4, using: &random)]
                }
                if Int.random(in: 0..<5, using: &random) == 0 {
                    bytes.removeLast(Int.random(in: 1...min(70, bytes.count), using: &random))
                }
            }
            let owned = OwnedBytes(bytes)
            let parsed = RawTree(canonical: UnsafeBufferPointer(owned.bytes), owner: owned)
            #expect(
                Self.layout(parsed) == Self.plainLayout(bytes),
                "seed \(seed), round \(round): \(parsed == nil ? "refused" : "parsed"), the plain rules \(Self.plainLayout(bytes) == nil ? "refuse" : "parse")"
            )
        }
    }

    @Test("the common start and end of two byte strings, as a byte loop finds them", arguments: seeds)
    func commonStartAndEnd(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for round in 0..<200 {
            // Short, and long enough for whole blocks compared at once (`RawTree.comparedBlock`).
            let longest = round % 2 == 0 ? 90 : 4 * RawTree.comparedBlock + 9
            let left = (0..<Int.random(in: 0...longest, using: &random)).map { _ in
                UInt8.random(in: 0...2, using: &random)
            }
            var right = left
            if Int.random(in: 0..<2, using: &random) == 0 && !right.isEmpty {
                right[Int.random(in: 0..<right.count, using: &random)] ^= 1
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                right.insert(7, at: Int.random(in: 0...right.count, using: &random))
            }
            let limit = Int.random(in: 0...longest + 10, using: &random)
            var prefix = 0
            while prefix < min(limit, left.count, right.count) && left[prefix] == right[prefix] { prefix += 1 }
            var suffix = 0
            while suffix < min(limit, left.count, right.count)
                && left[left.count - 1 - suffix] == right[right.count - 1 - suffix]
            {
                suffix += 1
            }
            left.withUnsafeBytes { a in
                right.withUnsafeBytes { b in
                    #expect(RawTree.commonPrefix(a, b, limit: limit) == prefix, "seed \(seed), round \(round): start")
                    #expect(RawTree.commonSuffix(a, b, limit: limit) == suffix, "seed \(seed), round \(round): end")
                }
            }
        }
    }

    @Test("the run of entries alike in every tree, as counted entry by entry", arguments: seeds)
    func alikeRuns(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for round in 0..<30 {
            let entries = Self.randomEntries(using: &random)
            var trees: [RawTree] = []
            for version in 0..<Int.random(in: 2...3, using: &random) {
                var changed = entries
                if version > 0 {
                    for _ in 0..<Int.random(in: 0...3, using: &random) where !changed.isEmpty {
                        let position = Int.random(in: 0..<changed.count, using: &random)
                        if Int.random(in: 0..<2, using: &random) == 0 {
                            changed[position].id[0] ^= 1
                        } else {
                            changed.remove(at: position)
                        }
                    }
                }
                guard let tree = RawTree(canonical: Self.bytes(changed)) else { return }
                trees.append(tree)
            }
            // From every pair of positions the entries agree at, and from random ones.
            for _ in 0..<20 {
                let positions = trees.map { Int.random(in: 0...$0.entries.count, using: &random) }
                let ends = trees.indices.map { index in
                    Int.random(in: positions[index]...trees[index].entries.count, using: &random)
                }
                var expected = 0
                while trees.indices.allSatisfy({ positions[$0] + expected < ends[$0] }),
                    trees.indices.dropFirst().allSatisfy({ index in
                        RawTree.same(
                            trees[0], trees[0].entries[positions[0] + expected], trees[index],
                            trees[index].entries[positions[index] + expected])
                    })
                {
                    expected += 1
                }
                #expect(
                    RawTree.alikeEntries(trees, from: positions, before: ends) == expected,
                    "seed \(seed), round \(round): positions \(positions), ends \(ends)")
            }
        }
    }
}

extension RawTree {
    /// Whether two entries are the same bytes (mode, name and id): what `alikeEntries` counts.
    static func same(_ left: RawTree, _ a: Entry, _ right: RawTree, _ b: Entry) -> Bool {
        let count = a.end - a.nameStart
        guard b.end - b.nameStart == count, a.mode == b.mode else { return false }
        guard let x = left.bytes.baseAddress, let y = right.bytes.baseAddress else { return false }
        return memcmp(x + a.nameStart, y + b.nameStart, count) == 0
    }
}
