import CGit2
import Foundation
@testable import GitCore
import TestSupport
import Testing

/// The raw-bytes tree paths (walk and splice) against libgit2's on random trees, some of them odd or
/// hostile (executable files, links, a non-canonical mode, unsorted or repeated names): the same
/// changes, the same new tree, the same failures. Seeded; the seed is in every failure message
/// (`RAW_TREE_SEEDS=N` for more).
@Suite("Raw trees: the walk and the splice agree with libgit2's", .scratchFolder)
struct RawTreeTests {
    static let seeds = TestSeeds.list("RAW_TREE_SEEDS", count: 12, from: 7_000)

    /// A bare repository and the blobs and trees of one seed.
    struct Store {
        let scratch: ScratchFolder
        let directory: String
        let repository: Repository
        var blobs: [ObjectID] = []

        init() throws {
            scratch = try ScratchFolder.current
            directory = scratch.path("repo.git")
            try scratch.git(["init", "-q", "--bare", directory], in: scratch.root)
            repository = try Repository.open(at: directory)
            for index in 0..<12 { blobs.append(try repository.writeBlob(Array("blob \(index)\n".utf8))) }
        }

        /// A tree object written as given, bypassing every check (`git hash-object --literally`).
        func literalTree(_ entries: [(mode: String, name: String, id: ObjectID)]) throws -> ObjectID {
            var bytes: [UInt8] = []
            for entry in entries { bytes += Array("\(entry.mode) \(entry.name)".utf8) + [0] + entry.id.bytes }
            let file = scratch.path("tree-\(UUID().uuidString)")
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let hex = try scratch.git(["hash-object", "-t", "tree", "--literally", "-w", file], in: directory)
            guard let id = ObjectID(hex: hex.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw CocoaError(.fileReadCorruptFile)
            }
            return id
        }
    }

    static let paths: [String] = {
        // Two names that begin with a combining mark: a "/" before one ends a part, as git splits paths.
        var paths = [
            "deck.json", ".gitattributes", "notes/a.txt", "notes/deep/b.txt", "a-b", "a.c", "notes/\u{301}c.txt",
            "\u{301}d/e.txt",
        ]
        for folder in ["00", "0a", "3f", "ff"] {
            for name in ["0a1b", "0a1b-2", "77", "c3", "f0"] { paths.append("cards/\(folder)/\(name).json") }
        }
        return paths
    }()

    /// Random upserts and removals (some of paths that are not there).
    static func randomUpdates(_ store: Store, count: Int, using random: inout SplitMix64) -> [TreeUpdate] {
        (0..<count).map { _ in
            let path = paths[Int.random(in: 0..<paths.count, using: &random)]
            let remove = Int.random(in: 0..<4, using: &random) == 0
            return TreeUpdate(path: path, blob: remove ? nil : store.blobs[Int.random(in: 0..<12, using: &random)])
        }
    }

    /// One odd folder hung into `tree` at `cards/0a`: canonical but unusual, or not canonical at all.
    static func oddFolder(_ store: Store, into tree: ObjectID, using random: inout SplitMix64) throws -> ObjectID {
        let blob = store.blobs[Int.random(in: 0..<12, using: &random)]
        let other = store.blobs[Int.random(in: 0..<12, using: &random)]
        let entries: [(mode: String, name: String, id: ObjectID)]
        switch Int.random(in: 0..<5, using: &random) {
        case 0: entries = [("100755", "0a1b.json", blob), ("100644", "77.json", other)]
        case 1: entries = [("120000", "0a1b.json", blob), ("100644", "c3.json", other)]
        case 2: entries = [("100664", "0a1b.json", blob), ("100644", "c3.json", other)]
        case 3: entries = [("100644", "c3.json", blob), ("100644", "0a1b.json", other)]
        default: entries = [("100644", "77.json", blob), ("100644", "77.json", other)]
        }
        let folder = try store.literalTree(entries)
        var cards = (try store.repository.treeEntries(tree)).first { $0.name == "cards" }.map { $0.id }
        var cardsEntries: [(mode: String, name: String, id: ObjectID)] = []
        if let id = cards {
            for entry in try store.repository.treeEntries(id) where entry.name != "0a" {
                cardsEntries.append((String(entry.mode, radix: 8), entry.name, entry.id))
            }
        }
        cardsEntries.append(("40000", "0a", folder))
        cardsEntries.sort { ($0.name + "/").utf8.lexicographicallyPrecedes(($1.name + "/").utf8) }
        cards = try store.literalTree(cardsEntries)
        var rootEntries: [(mode: String, name: String, id: ObjectID)] = []
        for entry in try store.repository.treeEntries(tree) where entry.name != "cards" {
            rootEntries.append((String(entry.mode, radix: 8), entry.name, entry.id))
        }
        if let cards { rootEntries.append(("40000", "cards", cards)) }
        rootEntries.sort { left, right in
            let l = left.name + (left.mode == "40000" ? "/" : "")
            let r = right.name + (right.mode == "40000" ? "/" : "")
            return l.utf8.lexicographicallyPrecedes(r.utf8)
        }
        return try store.literalTree(rootEntries)
    }

    @Test(
        "paths that differ only in Unicode normalization: the splice hands updates of such names to libgit2, and keeps both twins byte for byte when it changes their folder's other entries"
    )
    func normalizationTwins() throws {
        let store = try Store()
        let repository = store.repository
        let twins = ["notes/\u{e9}.txt", "notes/e\u{301}.txt", "\u{e9}/a.txt", "e\u{301}/a.txt"]
        let base = try repository.updatedTree(
            base: nil, updates: twins.enumerated().map { TreeUpdate(path: $1, blob: store.blobs[$0]) })
        // Four paths to git, though Swift's String takes each pair for one.
        let baseNotes = try repository.treeEntries(base).first { $0.name == "notes" }
        #expect(try baseNotes.map { try repository.treeEntries($0.id).count } == 2)
        #expect(try repository.treeEntries(base).count == 3)
        // Updates naming a twin: both folders of the root, both files of a folder, one spelling of a path.
        let namingTwins: [[TreeUpdate]] = [
            [
                TreeUpdate(path: "notes/\u{e9}.txt", blob: store.blobs[4]),
                TreeUpdate(path: "notes/e\u{301}.txt", blob: store.blobs[5]),
            ],
            [TreeUpdate(path: "\u{e9}/a.txt", blob: store.blobs[6]), TreeUpdate(path: "e\u{301}/a.txt", blob: nil)],
            [TreeUpdate(path: "notes/e\u{301}.txt", blob: store.blobs[7])],
        ]
        for updates in namingTwins {
            let cache = RawTreeCache()
            _ = try repository.changedLeaves([base, base], comparing: (0, 1), cache: cache)
            // The splice itself never writes such a name (a file system could normalize it): libgit2 does.
            #expect(throws: RawTreeFallback.self, "\(updates)") {
                try repository.splice(base: base, updates: updates, cache: cache, writer: nil)
            }
            let spliced = try repository.splicedTree(base: base, updates: updates, cache: cache)
            #expect(spliced == (try repository.updatedTree(base: base, updates: updates)), "\(updates)")
        }
        // Updates of plain names beside the twins, in their folder and at the root: the splice rebuilds
        // those trees itself, and each twin's entry must come through as it was.
        let besideTwins: [[TreeUpdate]] = [
            [TreeUpdate(path: "notes/plain.txt", blob: store.blobs[4])],
            [
                TreeUpdate(path: "plain.txt", blob: store.blobs[5]),
                TreeUpdate(path: "notes/z.txt", blob: store.blobs[6]),
            ],
        ]
        for updates in besideTwins {
            let cache = RawTreeCache()
            _ = try repository.changedLeaves([base, base], comparing: (0, 1), cache: cache)
            let spliced = try repository.splice(base: base, updates: updates, cache: cache, writer: nil)
            #expect(spliced == (try repository.updatedTree(base: base, updates: updates)), "\(updates)")
            let notes = try repository.treeEntries(spliced).first { $0.name == "notes" }
            let names = try notes.map { try repository.treeEntries($0.id).map { Array($0.name.utf8) } } ?? []
            #expect(names.contains(Array("\u{e9}.txt".utf8)) && names.contains(Array("e\u{301}.txt".utf8)), "\(names)")
        }
    }

    @Test(
        "entries looked up through the raw trees (by path, by name prefix) are those libgit2 finds, or none as for libgit2",
        arguments: seeds)
    func entriesByPath(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let store = try Store()
        let repository = store.repository
        // Present, missing, through a file, a folder, odd and empty components.
        let asked =
            Self.paths + [
                "cards", "cards/0a", "cards/0a/", "notes", "notes/deep", "deck.json/x", "cards/0a1b.json", "missing",
                "cards//0a", "/deck.json", "cards/0a/0a1b.json/more",
            ]
        for round in 0..<8 {
            var tree = try repository.updatedTree(
                base: nil, updates: Self.randomUpdates(store, count: 20, using: &random))
            if Int.random(in: 0..<3, using: &random) == 0 {
                tree = try Self.oddFolder(store, into: tree, using: &random)
            }
            if round % 2 == 1 {
                try store.scratch.git(["repack", "-a", "-d", "-f", "-q", "--window=0"], in: store.directory)
            }
            let cache = RawTreeCache()
            for path in asked {
                let raw = Result { () throws(GitError) in try repository.treeEntry(in: tree, path: path, cache: cache) }
                let plain = Result { () throws(GitError) in try repository.treeEntry(in: tree, path: path) }
                switch (raw, plain) {
                case (.success(let a), .success(let b)): #expect(a == b, "seed \(seed), round \(round), \(path)")
                case (.failure, .failure): break
                default: Issue.record("seed \(seed), round \(round), \(path): \(raw) against libgit2's \(plain)")
                }
            }
            // A folder's entries by name prefix: those libgit2 lists, whose names start with those bytes.
            for folder in ["cards/00", "cards/0a", "cards/3f", "cards/ff", "notes", ""] {
                let id = folder.isEmpty ? tree : try repository.treeEntry(in: tree, path: folder)?.id
                guard let id else { continue }
                for prefix in ["", "0", "0a", "0a1b", "0a1b-", "7", "c3.json", "z", "deep", "cards"] {
                    let raw = Result { () throws(GitError) in
                        try repository.treeEntries(id, namePrefix: prefix, cache: cache)
                    }
                    let plain = Result { () throws(GitError) in
                        try repository.treeEntries(id).filter { $0.name.utf8.starts(with: prefix.utf8) }
                    }
                    switch (raw, plain) {
                    case (.success(let a), .success(let b)):
                        #expect(a == b, "seed \(seed), round \(round), \(folder) '\(prefix)'")
                    case (.failure, .failure): break
                    default:
                        Issue.record("seed \(seed), round \(round), \(folder) '\(prefix)': \(raw) against \(plain)")
                    }
                }
            }
        }
    }

    @Test(
        "a commit's tree read from the packs is the tree libgit2 reads, for commits loose, packed whole, packed by git with deltas, odd or damaged",
        arguments: seeds)
    func commitTrees(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let store = try Store()
        let repository = store.repository
        let someone = Signature(name: "Someone", email: "someone@example.com", time: 1_700_000_000)
        var commits: [ObjectID] = []
        for round in 0..<10 {
            let tree = try repository.updatedTree(
                base: nil, updates: Self.randomUpdates(store, count: 1 + round, using: &random))
            // Long messages, so that git's repack makes deltas of some.
            let message = "Commit \(round)\n\n" + String(repeating: "Card-Merged: \(round) line\n", count: round * 40)
            commits.append(
                try repository.createCommit(
                    tree: tree, parents: Array(commits.suffix(1)), message: message, author: someone,
                    committer: someone))
        }
        // Odd ones, written as given: an uppercase tree id, no tree line, a tree line after a parent.
        let first = try repository.commit(commits[0])
        let odd = [
            "tree \(first.tree.hex.uppercased())\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nx\n",
            "author A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nx\n",
            "parent \(commits[0].hex)\ntree \(first.tree.hex)\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nx\n",
            "tree \(first.tree.hex)\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nx\n",
            "tree \(first.tree.hex)\n\nno author, no committer\n",
            "tree \(first.tree.hex)\nauthor A <a@b> 1 +0000\n\nno committer\n",
            "tree \(first.tree.hex)\nauthor A a@b 1 +0000\ncommitter A <a@b> 1 +0000\n\nno brackets\n",
            "tree \(first.tree.hex)\nauthor A <a@b> x +0000\ncommitter A <a@b> 1 +0000\n\nno time\n",
            "tree \(first.tree.hex)\nparent \(commits[0].hex.uppercased())\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\np\n",
        ]
        for text in odd {
            let file = store.scratch.path("commit-\(UUID().uuidString)")
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let hex = try store.scratch.git(
                ["hash-object", "-t", "commit", "--literally", "-w", file], in: store.directory)
            commits.append(try #require(ObjectID(hex: hex.trimmingCharacters(in: .whitespacesAndNewlines))))
        }
        // Named, so that git's repack packs them (it leaves what no ref reaches loose).
        for (index, commit) in commits.enumerated() {
            try store.scratch.git(["update-ref", "refs/commits/\(index)", commit.hex], in: store.directory)
        }
        let missing = try #require(ObjectID(hex: String(repeating: "ab", count: 20)))
        let asked = commits + [missing, first.tree, store.blobs[0]]
        // Loose, then packed whole by git, then packed with deltas.
        for stage in 0..<3 {
            if stage == 1 { try store.scratch.git(["repack", "-a", "-d", "-q", "--window=0"], in: store.directory) }
            if stage == 2 {
                try store.scratch.git(
                    ["repack", "-a", "-d", "-f", "-q", "--window=50", "--depth=50"], in: store.directory)
            }
            let cache = RawTreeCache()
            let probe = RawTreeCache()
            var fromPacks = 0
            for id in asked {
                let context = "seed \(seed), stage \(stage), \(id.short)"
                if let bytes = probe.reader(for: repository).read(id, type: GIT_OBJECT_COMMIT),
                    Repository.treeLine(of: bytes) != nil
                {
                    fromPacks += 1
                }
                let raw = Result { () throws(GitError) in try repository.commitTree(id, cache: cache) }
                let plain = Result { () throws(GitError) in try repository.commit(id).tree }
                switch (raw, plain) {
                case (.success(let a), .success(let b)): #expect(a == b, "\(context)")
                case (.failure, .failure): break
                default: Issue.record("\(context): \(raw) against libgit2's \(plain)")
                }
            }
            // Packed, the commits are read where they lie (all but the odd ones), and commitTree read
            // those there.
            if stage == 1 { #expect(fromPacks >= 10, "seed \(seed): \(fromPacks) read from the packs") }
            if stage == 0 { #expect(fromPacks == 0) }
            #expect(cache.reader(for: repository).commitsRead >= fromPacks, "seed \(seed), stage \(stage)")
        }
        // A commit whose packed bytes were damaged: not read from the pack (its hash is wrong), and
        // libgit2 then says what is wrong.
        let pack = try #require(
            try FileManager.default.contentsOfDirectory(atPath: store.directory + "/objects/pack")
                .first { $0.hasSuffix(".pack") })
        let path = store.directory + "/objects/pack/" + pack
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        for index in stride(from: 12, to: bytes.count - 20, by: 97) { bytes[index] ^= 0x20 }
        chmod(path, 0o644)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // Opened again: the first handle has every commit in libgit2's object cache by now.
        let reopened = try Repository.open(at: store.directory)
        let cache = RawTreeCache()
        for id in commits {
            let raw = Result { () throws(GitError) in try reopened.commitTree(id, cache: cache) }
            let plain = Result { () throws(GitError) in try Repository.open(at: store.directory).commit(id).tree }
            if case .success(let a) = raw, case .success(let b) = plain {
                #expect(a == b, "seed \(seed), damaged, \(id.short)")
            } else if case .success(let a) = raw {
                Issue.record("seed \(seed), damaged, \(id.short): read \(a.short) where libgit2 says \(plain)")
            }
        }
    }

    @Test("a plain name, checked on its bytes, is what the rule stated on strings says (seed printed)")
    func plainNames() {
        // The rule as it was written on strings: not empty, "." or ".."; ASCII letters, digits, ".", "-" and
        // "_" only; not ".git" in any case once trailing dots are cut.
        func reference(_ name: Substring) -> Bool {
            guard !name.isEmpty, name != ".", name != ".." else { return false }
            let allowed = name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || ".-_".unicodeScalars.contains(scalar))
            }
            guard allowed else { return false }
            var trimmed = name.lowercased()[...]
            while trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
            return trimmed != ".git"
        }
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let alphabet = [".", "g", "G", "i", "I", "t", "T", "a", "-", "_", "0", "é", "\u{301}", " ", "\u{130}", "~"]
        for named in [".git", ".GIT", ".Git..", "..git", ".git.x", "...", ".", "..", "", "a", ".gi", "_git"] {
            #expect(Repository.isPlainName(named[...]) == reference(named[...]), "\(named.debugDescription)")
        }
        for round in 0..<5_000 {
            let name = (0..<Int.random(in: 0...7, using: &random)).map { _ in
                alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
            }.joined()
            #expect(
                Repository.isPlainName(name[...]) == reference(name[...]),
                "seed \(seed), round \(round): \(name.debugDescription)")
        }
    }

    @Test("a path that is also another path's folder goes to libgit2; a name that only begins alike does not")
    func fileAndFolderClash() throws {
        let store = try Store()
        let repository = store.repository
        let base = try repository.updatedTree(
            base: nil, updates: [TreeUpdate(path: "notes/a.txt", blob: store.blobs[0])])
        for paths in [["notes", "notes/b.txt"], ["x/y", "x/y/z"], ["notes/a.txt/inner", "notes/a.txt"]] {
            let updates = paths.enumerated().map { TreeUpdate(path: $1, blob: store.blobs[$0 + 1]) }
            #expect(throws: RawTreeFallback.self, "\(paths)") {
                try repository.splice(base: base, updates: updates, cache: RawTreeCache(), writer: nil)
            }
        }
        let alike = [TreeUpdate(path: "x/y", blob: store.blobs[1]), TreeUpdate(path: "x/yz/w", blob: store.blobs[2])]
        let spliced = try repository.splice(base: base, updates: alike, cache: RawTreeCache(), writer: nil)
        #expect(spliced == (try repository.updatedTree(base: base, updates: alike)))
    }

    @Test("random trees: the same changed leaves and the same updated tree as libgit2", arguments: seeds)
    func randomTrees(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let store = try Store()
        let repository = store.repository
        for round in 0..<8 {
            var base = try repository.updatedTree(
                base: nil, updates: Self.randomUpdates(store, count: 20, using: &random))
            if Int.random(in: 0..<3, using: &random) == 0 {
                base = try Self.oddFolder(store, into: base, using: &random)
            }
            let ours = try repository.updatedTree(
                base: base,
                updates: Self.randomUpdates(store, count: Int.random(in: 0...6, using: &random), using: &random))
            let theirs = try repository.updatedTree(
                base: base,
                updates: Self.randomUpdates(store, count: Int.random(in: 0...6, using: &random), using: &random))
            let context = "seed \(seed), round \(round)"
            // Loose objects, then packed whole (read by `PackReader`), then packed with deltas (left to libgit2).
            if round % 3 > 0 {
                try store.scratch.git(
                    ["repack", "-a", "-d", "-f", "-q", round % 3 == 1 ? "--window=0" : "--window=10"],
                    in: store.directory)
            }

            let cache = RawTreeCache()
            let walked = try repository.changedLeaves([base, ours, theirs], comparing: (1, 2), cache: cache)
            let expected = try repository.libgit2ChangedLeaves([base, ours, theirs], comparing: (1, 2))
            #expect(walked == expected, "\(context): the three-tree walk differs from libgit2's")
            for (old, new) in [(base, ours), (ours, base), (nil, theirs), (theirs, nil)] as [(ObjectID?, ObjectID?)] {
                #expect(
                    try repository.changedLeaves([old, new], comparing: (0, 1))
                        == repository.libgit2ChangedLeaves([old, new], comparing: (0, 1)),
                    "\(context): a two-tree walk differs from libgit2's")
            }

            // Their changes applied to ours, and random ones: the same tree, or the same refusal.
            var updateSets = [walked.map { TreeUpdate(path: $0.path, blob: $0.entries[2]?.id) }]
            updateSets.append(Self.randomUpdates(store, count: Int.random(in: 1...8, using: &random), using: &random))
            for updates in updateSets {
                let spliced = Result { () throws(GitError) in
                    try repository.splicedTree(base: ours, updates: updates, cache: cache)
                }
                let built = Result { () throws(GitError) in try repository.updatedTree(base: ours, updates: updates) }
                switch (spliced, built) {
                case (.success(let left), .success(let right)):
                    #expect(
                        left == right, "\(context): spliced \(left.short), libgit2 built \(right.short) for \(updates)")
                case (.failure, .failure): break
                default:
                    Issue.record("\(context): spliced \(spliced), libgit2 \(built) for \(updates)")
                }
            }
        }
    }

    @Test("a file whose only change is its executable bit: the splice keeps each side's mode as libgit2 does")
    func modeOnlyChange() throws {
        let store = try Store()
        let repository = store.repository
        let blobs = store.blobs
        func tree(_ notes: [(mode: String, name: String, id: ObjectID)]) throws -> ObjectID {
            try store.literalTree([(mode: "40000", name: "notes", id: try store.literalTree(notes))])
        }
        let base = try tree([("100644", "run.sh", blobs[0]), ("100644", "x.txt", blobs[1])])
        let ours = try tree([("100755", "run.sh", blobs[0]), ("100644", "x.txt", blobs[1])])
        let theirs = try tree([("100644", "run.sh", blobs[0]), ("100644", "x.txt", blobs[2])])
        // Their edit next to our mode change: the walk does not count a change of mode alone, and the
        // folder must not be taken whole from their side (that would drop our executable bit).
        let cache = RawTreeCache()
        let walked = try repository.changedLeaves([base, ours, theirs], comparing: (1, 2), cache: cache)
        let updates = walked.map { TreeUpdate(path: $0.path, blob: $0.entries[2]?.id) }
        #expect(
            try repository.splicedTree(base: ours, updates: updates, cache: cache)
                == repository.updatedTree(base: ours, updates: updates))
        // Only the mode-changed file updated: their other file must not come with it.
        let twoTrees = RawTreeCache()
        _ = try repository.changedLeaves([ours, theirs], comparing: (0, 1), cache: twoTrees)
        let single = [TreeUpdate(path: "notes/run.sh", blob: blobs[0])]
        #expect(
            try repository.splicedTree(base: ours, updates: single, cache: twoTrees)
                == repository.updatedTree(base: ours, updates: single))
    }

    @Test("an emptied cache lets go of its pack reader on another thread; trees taken from it stay readable")
    func emptiedInBackground() throws {
        let store = try Store()
        let repository = store.repository
        let base = try repository.updatedTree(
            base: nil, updates: Self.paths.enumerated().map { TreeUpdate(path: $1, blob: store.blobs[$0 % 12]) })
        let ours = try repository.updatedTree(
            base: base, updates: [TreeUpdate(path: "cards/3f/77.json", blob: store.blobs[11])])
        // Committed and packed, so that the raw path reads the trees from mapped packs (not through libgit2).
        for (name, tree) in [("base", base), ("ours", ours)] {
            let commit = try store.scratch.git(["commit-tree", "-m", name, tree.hex], in: store.directory)
            try store.scratch.git(
                ["update-ref", "refs/heads/\(name)", commit.trimmingCharacters(in: .whitespacesAndNewlines)],
                in: store.directory)
        }
        // Stored whole and uncompressed, as our own packs store trees: the walk then uses them where
        // they lie. No delta search (`--window=0`): with it, git's threads sometimes made every tree
        // the walk reads a delta (of a sibling folder's tree), and the walk then read none in place.
        try store.scratch.git(["-c", "pack.compression=0", "repack", "-adqF", "--window=0"], in: store.directory)
        let cache = RawTreeCache()
        let changes = try repository.changedLeaves([base, ours], comparing: (0, 1), cache: cache)
        #expect(changes.map(\.path) == ["cards/3f/77.json"])
        weak let reader = cache.reader(for: repository)
        let heldTrees = Array(cache.trees.values)
        let inMappedPacks = heldTrees.filter { tree in
            Mirror(reflecting: tree).children.contains { $0.label == "owner" && $0.value is MappedPack }
        }
        #expect(!inMappedPacks.isEmpty, "the walk read no tree where it lies in a mapped pack")
        let namesBefore = heldTrees.map { tree in tree.entries.map(tree.name) }
        cache.emptyInBackground()
        #expect(cache.trees.isEmpty && cache.versions.isEmpty)
        // The reader (and the mappings no tree holds) freed on the other thread, soon.
        let deadline = Date().addingTimeInterval(5)
        while reader != nil && Date() < deadline { usleep(1_000) }
        #expect(reader == nil, "the emptied cache's pack reader was never freed")
        // A tree whose mapping was freed would crash here.
        #expect(heldTrees.map { tree in tree.entries.map(tree.name) } == namesBefore)
        let updates = [TreeUpdate(path: "cards/00/c3.json", blob: store.blobs[5])]
        #expect(
            try repository.splicedTree(base: ours, updates: updates, cache: cache)
                == repository.updatedTree(base: ours, updates: updates))
    }
}
