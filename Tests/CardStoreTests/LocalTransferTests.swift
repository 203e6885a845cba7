import CardModel
import CardStore
import Foundation
@testable import GitCore
import TestSupport
import Testing

/// Fetch and push with a repository on this machine: the objects are found by comparing each new
/// commit's tree with its parent's and copied as a pack of their own (`Repository.newObjects`),
/// libgit2's packbuilder only for trees that are not canonical. What lands must be whole (`git fsck
/// --strict` on every repository) and about what changed, not the deck.
@Suite("Local fetch and push: what changed, whole")
struct LocalTransferTests {
    /// The objects in `path`'s packs and loose files, from `git count-objects -v`.
    static func objectCount(_ scratch: ScratchFolder, _ path: String) throws -> Int {
        let text = try scratch.git(["count-objects", "-v"], in: path)
        var total = 0
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == "count" || parts[0] == "in-pack", let value = Int(parts[1]) {
                total += value
            }
        }
        return total
    }

    @Test("sync through a path remote: the first push sends the deck, later syncs only what changed")
    func syncSendsWhatChanged() throws {
        let scratch = try ScratchFolder()
        let server = scratch.path("server.git")
        try scratch.git(["init", "-q", "--bare", "-b", "main", server], in: scratch.root)
        let cards = makeCards(1_000)
        let a = try Deck.create(at: scratch.path("a.git"), name: "L", bare: true)
        try a.importCards(cards, source: "test")
        try a.addRemote(name: "origin", url: server)
        _ = try a.sync(SyncOptions())
        #expect(try Self.objectCount(scratch, server) >= 1_000, "the first push sends every card")
        let b = try Deck.clone(from: "file://" + server, to: scratch.path("b"), settings: RemoteSettings())

        // Three edits on A, two on B (different cards): each sync moves a few objects, not the deck.
        for card in cards.prefix(3) { try a.edit(card.id, CardEdit(title: "A \(card.id.prefix(4))")) }
        for card in cards.suffix(2) { try b.edit(card.id, CardEdit(title: "B \(card.id.prefix(4))")) }
        let serverBefore = try Self.objectCount(scratch, server)
        _ = try a.sync(SyncOptions())
        let pushed = try Self.objectCount(scratch, server) - serverBefore
        // Per edit commit: a blob, its folder, cards/, the root and the commit.
        #expect(pushed >= 3 && pushed <= 15, "A's push sent \(pushed) objects for three edits")
        // A branch that points to a tree, not a commit: no help to the fetch, and no hindrance.
        let treeHex = try scratch.git(["rev-parse", "refs/remotes/origin/main^{tree}"], in: scratch.path("b"))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try scratch.git(["update-ref", "refs/heads/odd", treeHex], in: scratch.path("b"))
        let bBefore = try Self.objectCount(scratch, scratch.path("b"))
        _ = try b.sync(SyncOptions())
        let fetched = try Self.objectCount(scratch, scratch.path("b")) - bBefore
        // A's three commits (15) and B's merge with its pack (up to 1 blob, 5 folders, cards/, root, commit).
        #expect(fetched >= 3 && fetched <= 30, "B's sync added \(fetched) objects")
        _ = try a.sync(SyncOptions())
        let tipA = try a.headCommit()
        let tipB = try b.headCommit()
        #expect(tipA == tipB, "A and B end apart")
        for path in [server, scratch.path("a.git"), scratch.path("b")] {
            #expect(try GitRunner.fsckStatus(path) == 0, "git fsck --strict refuses \(path)")
        }
        #expect(try a.snapshot().card(id: cards[0].id)?.title == "A \(cards[0].id.prefix(4))")
        #expect(try a.snapshot().card(id: cards[999].id)?.title == "B \(cards[999].id.prefix(4))")
    }

    static let seeds: [UInt64] = (0..<UInt64(10)).map { 9_100 + $0 }

    @Test("random histories: every object git would send is among those found", arguments: seeds)
    func newObjectsCoverGit(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let scratch = try ScratchFolder()
        let path = scratch.path("repo.git")
        try scratch.git(["init", "-q", "--bare", "-b", "main", path], in: scratch.root)
        let repository = try Repository.open(at: path)
        let author = Signature(name: "T", email: "t@example.invalid", time: 1_700_000_000)
        // Few contents and few paths, so that the same blob and the same folder turn up at several
        // places and commits (moves, reverts, both sides of a merge making the same change).
        let blobs = try (0..<6).map { (index) throws in try repository.writeBlob(Array("content \(index)\n".utf8)) }
        let paths = ["a", "b/x", "b/y", "c/x", "c/d/x", "c/d/y", "e/b/x", "e/b/y"]
        var commits: [ObjectID] = []
        for index in 0..<40 {
            let parents: [ObjectID]
            switch (commits.count, Int.random(in: 0..<5, using: &random)) {
            case (0, _): parents = []
            case (_, 0) where commits.count > 2:
                let first = commits[Int.random(in: 0..<commits.count, using: &random)]
                let second = commits[Int.random(in: 0..<commits.count, using: &random)]
                parents = first == second ? [first] : [first, second]
            default: parents = [commits[Int.random(in: max(0, commits.count - 4)..<commits.count, using: &random)]]
            }
            let base = try parents.first.map { (id) throws in try repository.commit(id).tree }
            let updates = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                TreeUpdate(
                    path: paths[Int.random(in: 0..<paths.count, using: &random)],
                    blob: Int.random(in: 0..<5, using: &random) == 0
                        ? nil : blobs[Int.random(in: 0..<blobs.count, using: &random)])
            }
            let tree = try repository.updatedTree(base: base, updates: updates)
            commits.append(
                try repository.createCommit(
                    tree: tree, parents: parents, message: "c\(index)", author: author, committer: author))
        }
        for round in 0..<20 {
            let tip = commits[Int.random(in: 0..<commits.count, using: &random)]
            let excluding = (0..<Int.random(in: 0...2, using: &random)).map { _ in
                commits[Int.random(in: 0..<commits.count, using: &random)]
            }
            let found = try #require(try repository.newObjects(tip: tip, excluding: excluding))
            let foundIDs = Set(found.map { ObjectID($0.id) })
            let listed = try scratch.git(["rev-list", "--objects", tip.hex] + excluding.map { "^" + $0.hex }, in: path)
            let needed = Set(listed.split(separator: "\n").compactMap { ObjectID(hex: String($0.prefix(40))) })
            let missing = needed.subtracting(foundIDs)
            #expect(missing.isEmpty, "seed \(seed), round \(round): \(missing.count) objects git sends were not found")
            let reachable = try scratch.git(["rev-list", "--objects", tip.hex], in: path)
            let all = Set(reachable.split(separator: "\n").compactMap { ObjectID(hex: String($0.prefix(40))) })
            #expect(foundIDs.isSubset(of: all), "seed \(seed), round \(round): found objects outside the tip's history")
        }
    }

    @Test("a history with a tree that is not canonical is pushed and fetched whole through libgit2")
    func nonCanonicalTreeFallsBack() throws {
        let scratch = try ScratchFolder()
        let work = scratch.path("work.git")
        try scratch.git(["init", "-q", "--bare", "-b", "main", work], in: scratch.root)
        // A file with git's old group-writable mode: a tree `RawTree` does not take.
        let file = scratch.path("content")
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: file))
        let id = try scratch.git(["hash-object", "-w", file], in: work).trimmingCharacters(in: .whitespacesAndNewlines)
        let entries = scratch.path("tree")
        var tree = Array("100664 old.txt".utf8) + [0]
        tree += try #require(ObjectID(hex: id)).bytes
        try Data(tree).write(to: URL(fileURLWithPath: entries))
        let treeID = try scratch.git(["hash-object", "-t", "tree", "--literally", "-w", entries], in: work)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let commit = try scratch.git(["commit-tree", treeID, "-m", "odd"], in: work)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try scratch.git(["update-ref", "refs/heads/main", commit], in: work)
        let repository = try Repository.open(at: work)
        let commitID = try #require(ObjectID(hex: commit))
        #expect(try repository.newObjects(tip: commitID, excluding: []) == nil, "the odd tree takes libgit2's path")

        let remote = scratch.path("remote.git")
        try scratch.git(["init", "-q", "--bare", "-b", "main", remote], in: scratch.root)
        try repository.push(to: remote, refspecs: ["refs/heads/main:refs/heads/main"], settings: RemoteSettings())
        #expect(try Repository.open(at: remote).referenceTarget("refs/heads/main") == commitID)
        let fetcher = scratch.path("fetcher.git")
        try scratch.git(["init", "-q", "--bare", "-b", "main", fetcher], in: scratch.root)
        let fetching = try Repository.open(at: fetcher)
        let result = try fetching.fetch(
            from: remote, refspecs: ["refs/heads/main:refs/remotes/o/main"], settings: RemoteSettings())
        #expect(result.heads["refs/heads/main"] == commitID)
        #expect(try fetching.referenceTarget("refs/remotes/o/main") == commitID)
        let blobID = try #require(ObjectID(hex: id))
        for path in [remote, fetcher] {
            // Not --strict: that refuses the old mode itself. Connectivity and hashes.
            #expect(try GitRunner.fsckStatus(path, strict: false) == 0, "git fsck refuses \(path)")
            #expect(try Repository.open(at: path).hasObject(blobID), "\(path) lacks the file's blob")
        }
    }
}
