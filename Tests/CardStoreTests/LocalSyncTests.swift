import CardModel
import CardStore
import Foundation
import GitCore
import TestSupport
import Testing

/// A deck's sync through a remote on this machine (a path): the objects GitCore's local transfer
/// finds and copies (`Repository.newObjects`, GitCoreTests' `LocalTransferTests`) are about what
/// changed, not the deck, and land whole (`git fsck --strict` on every repository).
@Suite("Local sync: what changed, whole", .scratchFolder)
struct LocalSyncTests {
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
        let scratch = try ScratchFolder.current
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
}
