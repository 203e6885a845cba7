import CardModel
import CardStore
import Foundation
import GitCore
import SeededRandom
import Testing
import TestSupport

/// The hand-edit scan from the index's stat data (`IndexStatusScan`) finds every path libgit2's status
/// finds, and gives way to it where it does not read the working tree itself.
@Suite("Hand-edit scan from the index", .scratchFolder)
struct IndexStatusScanTests {
    /// The scan's paths for `deck` against main, nil when it gives way to libgit2.
    static func scan(_ deck: Deck) throws -> Set<String>? {
        let tree = try deck.snapshot().tree
        return IndexStatusScan.scan(
            deck.repository, folder: "cards", files: ["deck.json"], against: tree, cache: RawTreeCache()
        ).map { Set($0.map(\.path)) }
    }

    /// libgit2's status paths for the same folder and file.
    static func libgit2Status(_ deck: Deck) throws -> Set<String> {
        Set(try deck.repository.status(under: ["cards/", "deck.json"]).map(\.path))
    }

    static func file(_ root: String, _ card: Card) -> String { "\(root)/\(CardID.path(for: card.id))" }

    /// Sets a file's times back a minute, so that it is not racily clean against the index (the scan
    /// reports racily clean files: true, but not what these tests look at).
    static func age(_ path: String) {
        let stamp = timespec(tv_sec: Int(Date().timeIntervalSince1970) - 60, tv_nsec: 0)
        var times = [stamp, stamp]
        _ = utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
    }

    @Test("random hand edits, deletions, touches and staged edits: the scan finds all libgit2 finds; seed printed")
    func sameAsLibgit2() throws {
        for seed in TestSeeds.list("CARDS_SCAN_SEEDS", count: 6, from: 9_100) {
            print("IndexStatusScanTests.sameAsLibgit2 seed \(seed) (replay: CARDS_SCAN_SEEDS)")
            var random = SplitMix64(seed: seed)
            let scratch = try ScratchFolder()
            let root = scratch.path("deck")
            let deck = try Deck.create(at: root, name: "Scan", bare: false)
            let cards = makeCards(60, seed: seed)
            try deck.importCards(cards, source: "test")
            usleep(20_000)
            // Every file a minute old, the index refreshed after: nothing is racily clean.
            for card in cards { Self.age(Self.file(root, card)) }
            _ = try scratch.git(["update-index", "-q", "--refresh"], in: root)
            #expect(try Self.scan(deck) == [], "a clean deck: seed \(seed)")
            var expected: Set<String> = []
            for card in cards {
                let path = CardID.path(for: card.id)
                switch random.next() % 8 {
                case 0:
                    try Data("{\"edited\": \(random.next() % 100)}".utf8).write(
                        to: URL(fileURLWithPath: Self.file(root, card)))
                    expected.insert(path)
                case 1:
                    unlink(Self.file(root, card))
                    expected.insert(path)
                case 2:
                    // A new time, the same bytes: reported by both (libgit2 hashes it), no hand edit.
                    let now = timespec(tv_sec: Int(Date().timeIntervalSince1970) + 1, tv_nsec: 0)
                    var times = [now, now]
                    _ = utimensat(AT_FDCWD, Self.file(root, card), &times, 0)
                case 3:
                    // Staged: the file and the index agree, main does not.
                    try Data("{\"staged\": true}".utf8).write(to: URL(fileURLWithPath: Self.file(root, card)))
                    Self.age(Self.file(root, card))
                    _ = try scratch.git(["add", path], in: root)
                    expected.insert(path)
                default:
                    break
                }
            }
            guard let found = try Self.scan(deck) else {
                Issue.record("the scan gave way on an ordinary deck: seed \(seed)")
                continue
            }
            let status = try Self.libgit2Status(deck)
            #expect(status.isSubset(of: found), "missed \(status.subtracting(found)): seed \(seed)")
            #expect(expected.isSubset(of: found), "missed \(expected.subtracting(found)): seed \(seed)")
            // And the hand edits read from them are libgit2's.
            #expect(Set(try deck.handEdits().map(\.path)) == expected, "seed \(seed)")
        }
    }

    @Test("an untracked file, a conflict or a folder the index does not know: the scan gives way to libgit2")
    func givesWay() throws {
        let scratch = try ScratchFolder.current
        let root = scratch.path("deck")
        let deck = try Deck.create(at: root, name: "Scan", bare: false)
        let cards = makeCards(20)
        try deck.importCards(cards, source: "test")
        #expect(try Self.scan(deck) != nil)
        // A new card file written by hand: git's ignore rules decide about it, libgit2 applies them.
        let new = makeCards(1, prefix: "New", seed: 77)[0]
        try FileManager.default.createDirectory(
            atPath: FileSystem.parent(of: Self.file(root, new)), withIntermediateDirectories: true)
        try Data(new.encoded()).write(to: URL(fileURLWithPath: Self.file(root, new)))
        #expect(try Self.scan(deck) == nil)
        #expect(try deck.handEdits().map(\.path) == [CardID.path(for: new.id)])
        unlink(Self.file(root, new))
        _ = rmdir(FileSystem.parent(of: Self.file(root, new)))
        // A skip-worktree entry whose file is gone is no deletion (git does not look at it).
        let path = CardID.path(for: cards[3].id)
        _ = try scratch.git(["update-index", "--skip-worktree", path], in: root)
        unlink(Self.file(root, cards[3]))
        #expect(try Self.scan(deck)?.contains(path) == false)
        #expect(try deck.handEdits().isEmpty)
        // A damaged index (a stat byte changed, its checksum not): libgit2 says what is wrong, not the scan.
        var index = try Data(contentsOf: URL(fileURLWithPath: root + "/.git/index"))
        index[20] ^= 0x01
        try index.write(to: URL(fileURLWithPath: root + "/.git/index"))
        #expect(try Self.scan(deck) == nil)
    }

    @Test("a deck copied with cp -a: the first commit of hand edits records the new stat data, as git's refresh")
    func copiedDeckRefreshed() throws {
        let scratch = try ScratchFolder.current
        let root = scratch.path("deck")
        let deck = try Deck.create(at: root, name: "Scan", bare: false)
        try deck.importCards(makeCards(50), source: "test")
        let copy = scratch.path("copy")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/cp")
        process.arguments = ["-a", root, copy]
        try process.run()
        process.waitUntilExit()
        let other = try Deck.open(at: copy, searchUpward: false)
        // New inodes: every card file's stat data differs from its entry.
        #expect(try Self.scan(other)?.filter { $0.hasPrefix("cards/") }.count == 50)
        let before = try scratch.git(["ls-files", "--stage"], in: copy)
        let outcome = try other.commitHandEdits(message: nil)
        #expect(outcome.outcome == nil && outcome.edits.isEmpty)
        // The card entries are refreshed (deck.json, one file, is left to be read again).
        #expect(try Self.scan(other)?.filter { $0.hasPrefix("cards/") } == [], "the index was not refreshed")
        #expect(try scratch.git(["ls-files", "--stage"], in: copy) == before, "modes or ids changed")
        #expect(try scratch.git(["status", "--porcelain"], in: copy).isEmpty)
    }
}
