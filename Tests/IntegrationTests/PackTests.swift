import Foundation
import Testing

/// Every commit stores its objects as one small pack; the packs are combined before they pile up.
@Suite("Packs per commit")
struct PackTests {
    /// The packs in the deck's `objects/pack`, by name (without extension) with the objects each lists.
    func packs(_ scratch: Scratch, _ deck: String) throws -> [String: Int] {
        let folder = deck + "/.git/objects/pack"
        var result: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".idx") {
            let listed = try scratch.run("/bin/sh", ["-c", "git show-index < '\(folder)/\(name)' | wc -l"])
            result[String(name.dropLast(4))] = Int(listed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return result
    }

    @Test("60 one-card commits: no loose objects, never more than 17 packs, a kept pack and the big one untouched")
    func packsStayFew() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        // A big pack (an import of 3,000 cards: the 400 objects of the commits below stay under half of it) and a pack the user asked git to keep.
        let lines = (0..<3000).map { index in
            "{\"title\":\"Bulk \(index)\",\"indexURL\":\"https://bulk.example/\(index)\"}"
        }
        let imported = try scratch.cards(["import", "-"], in: deck, input: Data(lines.joined(separator: "\n").utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        let afterImport = try packs(scratch, deck)
        let big = try #require(afterImport.max { $0.value < $1.value })
        #expect(big.value > 3000)
        let kept = try #require(afterImport.first { $0.key != big.key })
        #expect(FileManager.default.createFile(atPath: deck + "/.git/objects/pack/\(kept.key).keep", contents: Data()))
        var ids: [String] = []
        var most = 0
        for index in 0..<60 {
            let added = try scratch.cards(
                ["add", "--title", "Card \(index)", "--url", "https://card.example/\(index)"], in: deck)
            #expect(added.status == 0, "\(added.stderr)")
            ids.append(added.stdout.trimmingCharacters(in: .newlines))
            if index % 3 == 0 {
                #expect(try scratch.cards(["edit", ids[0], "--title", "Edited \(index)"], in: deck).status == 0)
            }
            let now = try packs(scratch, deck)
            most = max(most, now.count)
            #expect(now[big.key] == big.value, "the import's pack was rewritten after commit \(index)")
            #expect(now[kept.key] != nil, "a pack with a .keep file was removed after commit \(index)")
        }
        #expect(most <= 17, "up to \(most) packs")
        let counted = try scratch.git(["count-objects", "-v"], in: deck).stdout
        #expect(counted.contains("count: 0\n"), "loose objects written: \(counted)")
        #expect(counted.contains("garbage: 0\n"), "temp files left: \(counted)")
        let listed = try scratch.cards(["list"], in: deck).stdout
        for id in ids { #expect(listed.contains(id.prefix(8))) }
        #expect(try scratch.cards(["show", ids[0]], in: deck).stdout.contains("Edited 57"))
        try scratch.expectClean(deck)
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
    }

    @Test(
        "a pack left without its index by a killed writer: named by fsck, removed by the next command; a stranger's is kept"
    )
    func orphanedPackRemoved() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let folder = deck + "/.git/objects/pack"
        let existing = try #require(try packs(scratch, deck).keys.first)
        let ours = folder + "/pack-" + String(repeating: "a", count: 40)
        let stranger = folder + "/pack-" + String(repeating: "b", count: 40)
        for orphan in [ours, stranger] {
            try FileManager.default.copyItem(atPath: folder + "/\(existing).pack", toPath: orphan + ".pack")
        }
        // What a writer killed between renaming its pack and its index leaves: the marker names the pack.
        writeFileCloseOnExec(deck + "/.git/cards-pack-pending", ours + "\n")
        let check = try scratch.cards(["fsck"], in: deck)
        #expect(check.status == 1)
        let orphanName = "pack-" + String(repeating: "a", count: 40) + ".pack"
        #expect((check.stdout + check.stderr).contains(orphanName), "fsck did not name the orphan: \(check.stdout)")
        let added = try scratch.cards(["add", "--title", "After", "--url", "https://after.example"], in: deck)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(!FileManager.default.fileExists(atPath: ours + ".pack"), "the orphaned pack is still there")
        #expect(
            FileManager.default.fileExists(atPath: stranger + ".pack"), "a pack the marker does not name was removed")
        #expect(try scratch.cards(["list"], in: deck).stdout.contains("After"))
    }

    @Test(
        "a combination killed before it removed the old packs: the next one keeps the pack it rewrites, nothing is lost"
    )
    func consolidationAfterAKill() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let folder = deck + "/.git/objects/pack"
        let saved = scratch.path("saved-packs")
        // Commit until a commit combines packs, then put back the packs it removed: what a kill
        // between writing the combined pack and removing the old ones leaves.
        var combined = false
        var added = 0
        for index in 0..<40 where !combined {
            try? FileManager.default.removeItem(atPath: saved)
            try FileManager.default.copyItem(atPath: folder, toPath: saved)
            let before = try packs(scratch, deck).count
            #expect(
                try scratch.cards(["add", "--title", "Card \(index)", "--url", "https://c.example/\(index)"], in: deck)
                    .status == 0)
            added += 1
            combined = try packs(scratch, deck).count < before
        }
        try #require(combined, "no commit combined packs")
        for name in try FileManager.default.contentsOfDirectory(atPath: saved)
        where !FileManager.default.fileExists(atPath: folder + "/" + name) {
            try FileManager.default.copyItem(atPath: saved + "/" + name, toPath: folder + "/" + name)
        }
        let lines = (0..<400).map { "{\"title\":\"Bulk \($0)\",\"indexURL\":\"https://bulk.example/\($0)\"}" }
        let imported = try scratch.cards(["import", "-"], in: deck, input: Data(lines.joined(separator: "\n").utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        for index in 0..<20 {
            #expect(
                try scratch.cards(["add", "--title", "More \(index)", "--url", "https://m.example/\(index)"], in: deck)
                    .status == 0)
        }
        try scratch.expectClean(deck)
        let listed = try scratch.cards(["list"], in: deck)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.split(separator: "\n").count == 16 + added + 400 + 20)
    }

    @Test("the pack marker as a symbolic link or a FIFO: never followed, never waited on")
    func markerIsNotFollowed() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let victim = scratch.path("victim.txt")
        writeFileCloseOnExec(victim, "keep me\n")
        // The marker is there already (blank, only newlines) since the deck's first commit.
        try FileManager.default.removeItem(atPath: deck + "/.git/cards-pack-pending")
        try FileManager.default.createSymbolicLink(
            atPath: deck + "/.git/cards-pack-pending", withDestinationPath: victim)
        let added = try scratch.cards(["add", "--title", "Linked", "--url", "https://l.example"], in: deck)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n", "the link's target was written")
        try FileManager.default.removeItem(atPath: deck + "/.git/cards-pack-pending")
        #expect(mkfifo(deck + "/.git/cards-pack-pending", 0o644) == 0)
        let started = Date()
        let check = try scratch.run("/usr/bin/timeout", ["30", Binaries.cards, "fsck"], in: deck)
        #expect(Date().timeIntervalSince(started) < 20, "fsck waited on the FIFO")
        #expect(check.status == 0 || check.status == 1, "\(check.stderr)")
        #expect(
            try scratch.cards(["add", "--title", "After FIFO", "--url", "https://f.example"], in: deck).status == 0)
        try scratch.expectClean(deck)
    }
}
