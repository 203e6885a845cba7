import CGit2
import CardModel
import CardStore
import Foundation
@testable import GitCore
import TestSupport
import Testing

/// GitCore's pack reader against the packs CardStore's own write path makes (an import, then edits:
/// trees stored uncompressed, the deck's canonical files, its attributes file, its commits' trailers).
/// GitCoreTests reads packs its fixture writes the same way; this keeps the reader tied to what a deck
/// really writes, should the write path change.
@Suite("A deck's own packs, read by GitCore's pack reader", .scratchFolder)
struct DeckPackReadTests {
    @Test("every object of an imported and edited deck reads as libgit2 reads it; trees in place")
    func deckPacks() throws {
        let scratch = try ScratchFolder.current
        let path = scratch.path("deck.git")
        let deck = try Deck.create(at: path, name: "P", bare: true)
        try deck.importCards(makeCards(300), source: "test")
        for card in makeCards(300).prefix(5) { try deck.edit(card.id, CardEdit(title: "Edited \(card.title)")) }
        let repository = try Repository.open(at: path)
        let reader = PackReader(objectsDirectory: path + "/objects/")
        let listing = try scratch.git(
            ["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"], in: path)
        let types: [Substring: git_object_t] = [
            "blob": GIT_OBJECT_BLOB, "tree": GIT_OBJECT_TREE, "commit": GIT_OBJECT_COMMIT,
        ]
        let objects = listing.split(separator: "\n").compactMap { line -> (ObjectID, git_object_t)? in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let id = ObjectID(hex: String(parts[0])), let type = types[parts[1]] else {
                return nil
            }
            return (id, type)
        }
        #expect(objects.count > 300)
        var trees = 0
        var inPlace = 0
        for (id, type) in objects {
            let expected = try repository.readObject(id)
            #expect(reader.read(id, type: type) == expected, "\(id.short) reads differently")
            guard type == GIT_OBJECT_TREE else { continue }
            trees += 1
            let view = reader.readTree(id)
            #expect(view.map { Array($0.bytes) } == expected, "tree \(id.short) reads differently")
            if let view, !(view.owner is OwnedBytes) { inPlace += 1 }
        }
        #expect(trees > 0 && inPlace == trees, "a deck's trees are read in place (\(inPlace) of \(trees))")
    }
}
