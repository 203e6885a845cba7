import Foundation
@testable import GitCore
import TestSupport
import Testing

/// Fetch and push with a repository on this machine: the objects are found by comparing each new
/// commit's tree with its parent's and copied as a pack of their own (`Repository.newObjects`),
/// libgit2's packbuilder only for trees that are not canonical. What lands must be whole (`git fsck`
/// on every repository). A deck's sync through such a remote is CardStoreTests' `LocalSyncTests`.
@Suite("Local fetch and push: what changed, whole", .scratchFolder)
struct LocalTransferTests {
    static let seeds: [UInt64] = (0..<UInt64(10)).map { 9_100 + $0 }

    @Test("random histories: every object git would send is among those found", arguments: seeds)
    func newObjectsCoverGit(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let scratch = try ScratchFolder.current
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
        let scratch = try ScratchFolder.current
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
