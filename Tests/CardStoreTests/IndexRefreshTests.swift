import CardModel
import CardStore
import Foundation
import Testing
import TestSupport

/// The index keeps true file data for the cards: an import's entries are not left smudged (size 0,
/// read and hashed again by every status).
@Suite("Index file data: not smudged for nothing", .scratchFolder)
struct IndexRefreshTests {
    /// Each entry of `git ls-files --debug` in `deck`: path, mtime (seconds, nanoseconds), size.
    static func entries(_ scratch: ScratchFolder, _ deck: String) throws -> [(
        path: String, mtime: (Int, Int), size: Int
    )] {
        let text = try scratch.git(["ls-files", "--debug"], in: deck)
        var result: [(path: String, mtime: (Int, Int), size: Int)] = []
        var path = ""
        var mtime = (0, 0)
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if !line.hasPrefix(" ") && !line.hasPrefix("\t") {
                path = String(line)
            } else if trimmed.hasPrefix("mtime:") {
                let parts = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: ":")
                mtime = (Int(parts.first ?? "") ?? 0, Int(parts.last ?? "") ?? 0)
            } else if trimmed.hasPrefix("size:") {
                let value = trimmed.dropFirst(5).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                result.append((path, mtime, Int(value ?? "") ?? -1))
            }
        }
        return result
    }

    /// The index file's modification time, seconds and nanoseconds.
    static func indexTime(_ deck: String) throws -> (Int, Int) {
        var info = stat()
        guard stat(deck + "/.git/index", &info) == 0 else { throw CocoaError(.fileReadNoSuchFile) }
        return (Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec))
    }

    /// A working-tree deck at `scratch`'s "deck" with `count` cards imported.
    static func importedDeck(_ scratch: ScratchFolder, count: Int) throws -> (path: String, deck: Deck, cards: [Card]) {
        let path = scratch.path("deck")
        let deck = try Deck.create(at: path, name: "I", bare: false)
        let cards = makeCards(count)
        try deck.importCards(cards, source: "test")
        return (path, deck, cards)
    }

    @Test("after an import and an edit, no card older than the index is smudged")
    func importNotSmudged() throws {
        let scratch = try ScratchFolder.current
        let (path, deck, cards) = try Self.importedDeck(scratch, count: 300)
        try deck.edit(cards[7].id, CardEdit(title: "Edited"))
        let index = try Self.indexTime(path)
        let entries = try Self.entries(scratch, path).filter { $0.path.hasPrefix("cards/") }
        #expect(entries.count == 300)
        let smudged = entries.filter { $0.size == 0 && ($0.mtime.0, $0.mtime.1) < index }
        #expect(smudged.count == 0, "card entries older than the index are smudged")
    }

    @Test("status never writes the index (another command may have written it during the scan)")
    func statusDoesNotWrite() throws {
        let scratch = try ScratchFolder.current
        let (path, deck, cards) = try Self.importedDeck(scratch, count: 40)
        // Touched card files (same content, a new time): a refreshing status would write the index.
        let stamp = timespec(tv_sec: Int(Date().timeIntervalSince1970) - 100, tv_nsec: 123_456_789)
        for card in cards.prefix(20) {
            var times = [stamp, stamp]
            #expect(utimensat(AT_FDCWD, "\(path)/cards/\(card.id.prefix(2))/\(card.id).json", &times, 0) == 0)
        }
        var before = stat()
        #expect(stat(path + "/.git/index", &before) == 0)
        #expect(try deck.handEdits().isEmpty, "touched files are no hand edits")
        var after = stat()
        #expect(stat(path + "/.git/index", &after) == 0)
        #expect(
            after.st_ino == before.st_ino && after.st_mtim.tv_sec == before.st_mtim.tv_sec
                && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec, "status rewrote the index")
    }
}
