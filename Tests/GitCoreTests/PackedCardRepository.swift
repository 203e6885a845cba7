import Foundation
import TestSupport

@testable import GitCore

/// A bare repository of card files whose every object is in packs written as a deck's writes write
/// them, through GitCore's own calls: each commit's blobs, its trees spliced from the parent's (stored
/// uncompressed, read in place) and the commit in one pack of their own (`PackWriter`), then `main`
/// moved by compare-and-swap. No CardStore: the repository of a deck, for GitCore's tests.
struct PackedCardRepository {
    let path: String
    let repository: Repository
    /// `main`'s commit (nil before the first).
    private(set) var head: ObjectID?

    /// An empty bare repository at `path` (made by git), its branch `main`.
    init(at path: String, scratch: ScratchFolder) throws {
        try scratch.git(["init", "-q", "--bare", "-b", "main", path], in: scratch.root)
        self.path = path
        repository = try Repository.open(at: path)
    }

    /// A repository holding `deck.json`, then `cards` imported in one commit, as `cards init` and
    /// `cards import` make them.
    init(at path: String, scratch: ScratchFolder, name: String, cards: [CardFile]) throws {
        try self.init(at: path, scratch: scratch)
        try commit([CardFiles.deck(name: name, cards: [])], message: "Create deck \(name)\n")
        try commit(cards + [CardFiles.deck(name: name, cards: cards)], message: "Import \(cards.count) cards\n")
    }

    /// Commits `files` on `main` in a pack of their own; returns the commit.
    @discardableResult
    mutating func commit(_ files: [CardFile], message: String) throws -> ObjectID {
        let writer = try PackWriter(for: repository)
        var updates: [TreeUpdate] = []
        for file in files { updates.append(TreeUpdate(path: file.path, blob: try writer.writeBlob(file.bytes))) }
        let base = try head.map { (commit) throws in try repository.commit(commit).tree }
        let tree = try repository.splicedTree(base: base, updates: updates, cache: RawTreeCache(), writer: writer)
        let someone = Signature(name: "Pack Test", email: "pack@example.invalid", time: 1_700_000_000)
        let commit = try writer.writeCommit(
            Repository.commitBytes(
                tree: tree, parents: head.map { [$0] } ?? [], message: message, author: someone, committer: someone))
        let keep = try writer.finish(commit: commit, durable: false)
        try repository.updateReference("refs/heads/main", to: commit, expected: head, logMessage: "test: commit")
        keep?.release()
        head = commit
        return commit
    }
}
