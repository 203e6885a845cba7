import CardModel
import CardStore
import Foundation
import TestSupport
import Testing

/// This device's keeps (`.git/cards-kept`) beside its undo: the undo takes back whichever came last, a
/// keep (nothing committed) or an operation (an `Undo:` commit).
@Suite("Kept cards and the device's undo", .scratchFolder)
struct KeptCardsTests {
    @Test("a keep after a delete is undone first; a delete after a keep is undone first")
    func undoOrder() throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "test", bare: false)
        let a = try deck.add(title: "A", indexURL: "https://example.org/a")
        let b = try deck.add(title: "B", indexURL: "https://example.org/b")
        try deck.delete([a.id])
        try deck.recordKept(b.id)
        #expect(deck.keptCards().map(\.id) == [b.id])
        guard case .keep(let keep) = try deck.undoLatest() else {
            Issue.record("the keep, made last, was not undone first")
            return
        }
        #expect(keep.id == b.id && deck.keptCards().isEmpty)
        guard case .operation(let subject, _, _) = try deck.undoLatest() else {
            Issue.record("the delete was not undone next")
            return
        }
        #expect(subject.hasPrefix("Delete card"))
        #expect(try deck.snapshot().card(id: a.id) != nil)

        // Now the other way round: kept, then a delete: the delete goes first, the keep stays.
        try deck.recordKept(b.id)
        try deck.delete([a.id])
        guard case .operation = try deck.undoLatest() else {
            Issue.record("the delete, made last, was not undone first")
            return
        }
        #expect(deck.keptCards().map(\.id) == [b.id])
    }

    @Test("a damaged keeps file reads as no keeps, and is written whole again")
    func damagedFile() throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "test", bare: false)
        let a = try deck.add(title: "A", indexURL: "https://example.org/a")
        try Data([0xFF, 0x09, 0x0A, 0x00] + Array("not\tan id\n\t\t\n".utf8)).write(
            to: URL(fileURLWithPath: deck.keptPath))
        #expect(deck.keptCards().isEmpty)
        try deck.recordKept(a.id)
        #expect(deck.keptCards().map(\.id) == [a.id])
    }

    @Test("kept with a deleted-versus-edited record: still first (a swipe settles it); with a field conflict: out")
    func seenWithConflicts() throws {
        func card(_ conflicts: String) throws -> Card {
            let text =
                #"{"id":"3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f","title":"A","indexURL":"https://example.org","#
                + #""color":"blue","rank":"a0","conflicts":\#(conflicts)}"#
            return try Card.decode(Array(text.utf8), expectedID: "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f")
        }
        let kept: Set = ["3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f"]
        let deletion = try card(#"[{"field":"*","deleted":true,"commit":"a","editedIn":"b"}]"#)
        let field = try card(#"[{"field":"title","values":[{"commit":"a","value":"X"},{"commit":"b","value":"Y"}]}]"#)
        #expect(!Deck.isSeen(deletion, kept: kept))
        #expect(Deck.isSeen(field, kept: kept))
        #expect(!Deck.isSeen(field, kept: []))
    }
}
