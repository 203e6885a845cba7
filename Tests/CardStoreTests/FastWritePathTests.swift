import CardModel
import CardStore
import Foundation
import GitCore
import TestSupport
import Testing

@Suite("Fast write path: patched index, packed imports", .scratchFolder)
struct FastWritePathTests {
    @Test("after imports (packed), adds, edits and deletes the index matches git: status clean, fsck clean")
    func indexStaysTrue() throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "Test", bare: false)
        let cards = makeCards(600)
        try deck.importCards(cards, source: "test")
        let packs = try FileManager.default.contentsOfDirectory(atPath: scratch.path("deck/.git/objects/pack"))
        #expect(packs.contains { $0.hasSuffix(".pack") })
        let added = try deck.add(title: "New", indexURL: "https://example.org/new")
        try deck.edit(cards[0].id, CardEdit(title: "Edited"))
        try deck.delete([cards[1].id, cards[2].id])
        try deck.edit(added.id, CardEdit(color: "red"))
        let status = try scratch.git(["status", "--porcelain"], in: scratch.path("deck"))
        #expect(status.isEmpty, "git status: \(status)")
        let staged = try scratch.git(["diff", "--cached", "--name-only"], in: scratch.path("deck"))
        #expect(staged.isEmpty)
        let listed = try scratch.git(["ls-files", "cards"], in: scratch.path("deck"))
        #expect(listed.split(separator: "\n").count == 599)
        // git's own index check, and libgit2's reading of the same file.
        let verify = try scratch.git(["fsck", "--no-progress"], in: scratch.path("deck"))
        #expect(!verify.contains("error"))
        #expect(try deck.handEdits().isEmpty)
        #expect(try deck.check(repair: false).problems.isEmpty)
        // A hand edit right after a write (same second: racily clean) is still seen.
        let path = scratch.path("deck/" + CardID.path(for: cards[3].id))
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "Card 3", with: "Card X")
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        try deck.edit(cards[4].id, CardEdit(title: "Another"))
        let after = try scratch.git(["status", "--porcelain"], in: scratch.path("deck"))
        #expect(after.contains(CardID.path(for: cards[3].id)))
    }

    @Test(
        "a same-size hand edit in the second of the index's entry and of the index itself still shows in git status after a later write"
    )
    func sameSecondHandEditStaysVisible() throws {
        let scratch = try ScratchFolder.current
        let directory = scratch.path("deck")
        let deck = try Deck.create(at: directory, name: "Test", bare: false)
        let cards = makeCards(3)
        try deck.importCards(cards, source: "test")
        let edited = directory + "/" + CardID.path(for: cards[0].id)
        /// Sets the modification time of `path` to second 1,600,000,000 and `nanoseconds` (the access time
        /// left: UTIME_OMIT, which Glibc's module does not export).
        func setModified(_ path: String, nanoseconds: Int) {
            var times = [
                timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), timespec(tv_sec: 1_600_000_000, tv_nsec: nanoseconds),
            ]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0, "utimensat \(path)")
        }
        // The entry records the file as of 0.1 s into that second (git takes the new stat data, same content).
        setModified(edited, nanoseconds: 100_000_000)
        _ = try scratch.git(["update-index", "-q", "--refresh"], in: directory)
        // A same-size change in that second (the ctime moves to now, as the entry's did just before), and
        // an index of that second too, written after the entry: racily clean to git, not to the nanosecond.
        let original = try String(contentsOfFile: edited, encoding: .utf8)
        try original.replacingOccurrences(of: "Card 0", with: "Card X").write(
            toFile: edited, atomically: false, encoding: .utf8)
        setModified(edited, nanoseconds: 200_000_000)
        setModified(directory + "/.git/index", nanoseconds: 600_000_000)
        // A later write keeps the entry only if the file still holds its blob: git trusts it from then on.
        try deck.edit(cards[1].id, CardEdit(title: "Another"))
        let status = try scratch.git(["status", "--porcelain"], in: directory)
        #expect(status.contains(CardID.path(for: cards[0].id)), "git status: \(status)")
        #expect(try deck.handEdits().map(\.path) == [CardID.path(for: cards[0].id)])
        // An untouched file of that second (same content, nanoseconds differ) is kept as it is recorded.
        let untouched = directory + "/" + CardID.path(for: cards[2].id)
        setModified(untouched, nanoseconds: 300_000_000)
        _ = try scratch.git(["update-index", "-q", "--refresh"], in: directory)
        setModified(directory + "/.git/index", nanoseconds: 900_000_000)
        try deck.edit(cards[1].id, CardEdit(title: "Again"))
        let listed = try scratch.git(["ls-files", "--debug", CardID.path(for: cards[2].id)], in: directory)
        #expect(listed.contains("mtime: 1600000000:300000000") && !listed.contains("size: 0"), "\(listed)")
    }

    @Test("a card folder in an old mode spelling (100664): the splice gives way, libgit2 builds the tree, all packed")
    func oddModeFolderFallsBack() throws {
        let scratch = try ScratchFolder.current
        let directory = scratch.path("deck")
        let deck = try Deck.create(at: directory, name: "Test", bare: true)
        let cards = makeCards(40)
        try deck.importCards(cards, source: "test")
        // A tree written as given (git would not write 100664 itself); `replacing` one entry's id.
        func literalTree(_ treeish: String, mode: (Int) -> String? = { _ in nil }, replacing: (String, String)? = nil)
            throws -> String
        {
            var raw: [UInt8] = []
            let lines = try scratch.git(["ls-tree", treeish], in: directory).split(separator: "\n")
            for (index, line) in lines.enumerated() {
                let parts = line.split(separator: "\t")
                let fields = parts[0].split(separator: " ")
                let name = String(parts[1])
                let id = replacing.flatMap { $0.0 == name ? $0.1 : nil } ?? String(fields[2])
                let spelled = mode(index) ?? (fields[0] == "040000" ? "40000" : String(fields[0]))
                raw += Array("\(spelled) \(name)".utf8) + [0] + (try #require(ObjectID(hex: id))).bytes
            }
            let file = scratch.path("tree-\(UUID().uuidString)")
            try Data(raw).write(to: URL(fileURLWithPath: file))
            return try scratch.git(["hash-object", "-t", "tree", "--literally", "-w", file], in: directory)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let target = cards[0]
        let components = CardID.path(for: target.id).split(separator: "/").map(String.init)
        let folder = try literalTree("main:cards/\(components[1])", mode: { $0 == 0 ? "100664" : nil })
        let cardsTree = try literalTree("main:cards", replacing: (components[1], folder))
        let root = try literalTree("main", replacing: ("cards", cardsTree))
        let commit = try scratch.git(["commit-tree", root, "-p", "main", "-m", "odd mode"], in: directory)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try scratch.git(["update-ref", "refs/heads/main", commit], in: directory)
        let looseBefore = try scratch.git(["count-objects"], in: directory)

        let reopened = try Deck.open(at: directory, searchUpward: false)
        try reopened.edit(target.id, CardEdit(title: "Edited through libgit2"))
        let shown = try scratch.git(["cat-file", "-p", "main:" + CardID.path(for: target.id)], in: directory)
        #expect(shown.contains("Edited through libgit2"))
        let listed = try scratch.git(["ls-tree", "-r", "--name-only", "main", "cards"], in: directory)
        #expect(listed.split(separator: "\n").count == 40, "cards lost or added: \(listed)")
        // The new trees and the commit went into a pack, as every commit's do: no loose object more.
        #expect(try scratch.git(["count-objects"], in: directory) == looseBefore)
        #expect(try GitRunner.fsckStatus(directory, strict: false) == 0)
        #expect(try reopened.check(repair: false).problems.isEmpty)
    }

    @Test("an index the patch does not handle (a stray file under cards/) falls back to libgit2")
    func fallsBack() throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "Test", bare: false)
        try FileManager.default.createDirectory(atPath: scratch.path("deck/cards"), withIntermediateDirectories: true)
        try "note\n".write(toFile: scratch.path("deck/cards/README"), atomically: false, encoding: .utf8)
        try scratch.git(["add", "cards/README"], in: scratch.path("deck"))
        try scratch.git(["commit", "-q", "-m", "readme"], in: scratch.path("deck"))
        _ = try deck.add(title: "New", indexURL: "https://example.org/new")
        let status = try scratch.git(["status", "--porcelain"], in: scratch.path("deck"))
        #expect(status.isEmpty, "git status: \(status)")
    }
}

@Suite(
    "Reading every card of a big deck: from the packs, and through libgit2 where they cannot be read", .scratchFolder)
struct AllCardsReadTests {
    @Test(
        "a deck of 2,400 cards repacked with deltas, and cards added since: every card read, each as libgit2 reads it")
    func everyCardRead() throws {
        let scratch = try ScratchFolder.current
        let path = scratch.path("deck")
        let deck = try Deck.create(at: path, name: "Big", bare: true)
        try deck.importCards(makeCards(2_400), source: "test")
        // Deltas among the card blobs (read by libgit2, not from the pack as they lie), then packs of our own.
        _ = try scratch.git(["repack", "-a", "-d", "-f", "-q", "--window=50", "--depth=20"], in: path)
        let packs = try FileManager.default.contentsOfDirectory(atPath: path + "/objects/pack").filter {
            $0.hasSuffix(".idx")
        }
        let verify = try scratch.git(["verify-pack", "-v", path + "/objects/pack/" + packs[0]], in: path)
        #expect(verify.contains("chain length"), "no deltas to read through libgit2")
        // Both ways are taken: blobs the pack reader reads where they lie, and deltas it leaves to libgit2.
        let reader = PackReader(objectsDirectory: path + "/objects/")
        let root = try #require(try deck.snapshot().tree)
        var blobs: [ObjectID] = []
        for card in try deck.snapshot().allCards().cards {
            let entry = try deck.repository.treeEntry(in: root, path: CardID.path(for: card.id))
            blobs.append(try #require(entry).id)
        }
        let whole = blobs.filter { reader.readBlob($0, limit: 1 << 20) != nil }.count
        #expect(whole > 0 && whole < blobs.count, "\(whole) of \(blobs.count) read from the pack as they lie")
        for index in 0..<5 {
            try deck.add(title: "Added \(index)", indexURL: "https://added.example/\(index)")
        }
        let fresh = try Deck.open(at: path, searchUpward: false)
        let listed = try fresh.snapshot().allCards()
        #expect(listed.problems.isEmpty, "\(listed.problems)")
        #expect(listed.cards.count == 2_405)
        let tree = try #require(try fresh.snapshot().tree)
        for card in listed.cards.shuffled().prefix(200) {
            let blob = try #require(try fresh.repository.treeEntry(in: tree, path: CardID.path(for: card.id)))
            let bytes = try fresh.repository.readBlob(blob.id, limit: 1 << 20)
            #expect(try Card.decode(bytes, expectedID: card.id) == card, "\(card.id)")
        }
        // The listing `cards list` reads (canonical files straight into their fields): the same cards, in
        // the same order, with the same fields.
        let line = { @Sendable (listing: CardListing) -> [UInt8] in
            Array("\(listing.id) \(listing.rank) \(listing.title) \(listing.indexURL) \(listing.platformName)".utf8)
        }
        let listings = try fresh.snapshot().allListings(encoding: line)
        #expect(listings.problems.isEmpty)
        #expect(listings.encoded == listed.cards.map { line(CardListing($0)) })
    }
}
