import CardModel
import Foundation
import GitCore
import SwipeEngine
import Testing

@testable import CardStore
import TestSupport

@Suite("The library as an app uses it", .scratchFolder)
struct LibraryUseTests {
    @Test("fetch(remote:) and merge(reference:) bring another device's cards in; an unknown reference is named")
    func fetchAndMergeByName() throws {
        let scratch = try ScratchFolder.current
        let remote = scratch.path("remote.git")
        _ = try Deck.create(at: remote, name: "Shared", bare: true)
        let laptop = try Deck.clone(from: remote, to: scratch.path("laptop"), settings: .fromEnvironment())
        let phone = try Deck.clone(from: remote, to: scratch.path("phone"), settings: .fromEnvironment())
        let added = try phone.add(title: "From the phone", indexURL: "https://phone.example")
        _ = try phone.sync(SyncOptions())
        let fetched = try laptop.fetch()
        #expect(fetched == (try phone.headCommit()))
        let report = try laptop.merge(reference: "origin/main")
        #expect(report.kind == .fastForward)
        #expect(try laptop.snapshot().card(id: added.id)?.title == "From the phone")
        let missing = #expect(throws: StoreError.self) { try laptop.merge(reference: "origin/nothing") }
        #expect(missing?.code == .invalidInput && missing?.message.contains("'origin/nothing'") == true)
    }

    @Test("a card that breaks a rule: .invalidCard with the field at fault, so a form can mark it")
    func invalidCardNamesTheField() throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "Test", bare: true)
        let colour = #expect(throws: StoreError.self) {
            try deck.add(title: "Ada", indexURL: "https://ada.example", color: "chartreuse-ish")
        }
        #expect(colour?.code == .invalidCard && colour?.field == "color", "\(String(describing: colour))")
        let url = #expect(throws: StoreError.self) { try deck.add(title: "Ada", indexURL: "not a url") }
        #expect(url?.field == "indexURL", "\(String(describing: url))")
    }

    @Test("docs/LIBRARY.md's samples, as written there (paths in a scratch folder)")
    func documentedSamples() throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("my-deck"), name: "Mine", bare: false)
        let card = try deck.add(title: "Ada on Codeberg", indexURL: "https://codeberg.org/ada", color: "teal")
        try deck.edit(card.id, CardEdit(color: "purple"))
        #expect(try deck.snapshot().allCards().cards.map(\.title).contains("Ada on Codeberg"))
        #expect(try deck.snapshot().name() == "Mine")
        try deck.delete([card.id])
        _ = try deck.undo()
        #expect(try deck.snapshot().card(id: card.id)?.color == "purple")
        _ = try Repository.create(at: scratch.path("mine.git"), bare: true)
        _ = try deck.addRemote(name: "origin", url: scratch.path("mine.git"))
        _ = try deck.sync(SyncOptions())
        let phone = try Deck.clone(from: scratch.path("mine.git"), to: scratch.path("phone-deck"))
        _ = try phone.add(title: "Ada on Mastodon", indexURL: "https://mastodon.social/@ada", color: "purple")
        _ = try phone.sync(SyncOptions())
        #expect(try deck.fetch() != nil)
        let report = try deck.merge(reference: "origin/main")
        #expect(report.kind == .fastForward && report.conflicts == 0)
        #expect(try deck.snapshot().allCards().cards.map(\.title).contains("Ada on Mastodon"))

        var gesture = SwipeGesture(configuration: .row, cardSize: SwipeSize(width: 300, height: 120), cardID: "a")
        _ = gesture.touchDown(SwipeSample(time: 0, translation: .zero, location: SwipeVector(x: 150, y: 60)))
        _ = gesture.move(SwipeSample(time: 0.1, translation: SwipeVector(x: -160, y: 0)))
        let frame = gesture.touchUp(SwipeSample(time: 0.2, translation: SwipeVector(x: -170, y: 0)))
        #expect(frame.decision?.reasonName == "distance", "\(String(describing: frame.decision))")

        let outcome = SwipeOutcome.run(
            try DragScript.parse("0:0,0 0.2:-200,0"), configuration: .row, cardID: card.id)
        if let note = outcome.deletionNote {
            try deck.delete([card.id], gesture: note)
        }
        #expect(outcome.deletionNote == "swipe left, distance, preset row")
        #expect(try deck.snapshot().card(id: card.id) == nil)
    }

    @Test(
        "a merge whose conflict record takes a card past a limit (here its size) keeps the card as merged and names it")
    func mergedCardPastALimitIsNamed() throws {
        let scratch = try ScratchFolder.current
        let remote = scratch.path("remote.git")
        _ = try Deck.create(at: remote, name: "Shared", bare: true)
        let laptop = try Deck.clone(from: remote, to: scratch.path("laptop"), settings: .fromEnvironment())
        let card = try laptop.add(title: "Deep", indexURL: "https://deep.example")
        _ = try laptop.sync(SyncOptions())
        let phone = try Deck.clone(from: remote, to: scratch.path("phone"), settings: .fromEnvironment())
        /// 61 arrays deep around `leaf`: a valid card each, past the file size limit once both are in a
        /// conflict record (canonical JSON indents every level).
        func deep(_ leaf: String) -> JSONValue {
            (0..<61).reduce(JSONValue.string(leaf)) { value, _ in .array([value]) }
        }
        try phone.edit(card.id, CardEdit(extra: [("x-deep", deep("phone"))]))
        _ = try phone.sync(SyncOptions())
        try laptop.edit(card.id, CardEdit(extra: [("x-deep", deep("laptop"))]))
        let report = try laptop.sync(SyncOptions())
        let invalid = report.merge?.invalid ?? []
        #expect(invalid.map(\.path) == [CardID.path(for: card.id)], "\(invalid)")
        #expect(invalid.first?.reason.contains("breaks a card rule") == true, "\(invalid)")
        #expect(report.merge?.kind == .merged)
        // Nothing lost: the file is in main as merged, both values in history.
        #expect(try laptop.snapshot().blobID(at: CardID.path(for: card.id)) != nil)
    }

    @Test("a deck kept open across writes: fsck and hand edits read the index as it is now, not as first read")
    func longLivedDeckReadsTheCurrentIndex() throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "Open", bare: false)
        let kept = try deck.add(title: "Kept", indexURL: "https://kept.example")
        for round in 0..<3 {
            // Each check loads libgit2's index object; each add then patches the file underneath it.
            #expect(try deck.check(repair: false).problems == [], "before add \(round)")
            _ = try deck.add(title: "Card \(round)", indexURL: "https://card.example/\(round)")
            #expect(try deck.check(repair: false).problems == [], "after add \(round)")
        }
        // A card file deleted by hand after the writes is a hand deletion, not an index left behind.
        _ = try deck.handEdits()
        _ = try deck.add(title: "One more", indexURL: "https://more.example")
        try FileManager.default.removeItem(atPath: scratch.path("deck/\(CardID.path(for: kept.id))"))
        let edits = try deck.handEdits()
        #expect(edits.map(\.path) == [CardID.path(for: kept.id)] && edits.first?.change == .deleted, "\(edits)")
    }

    @Test("a deck created without a name is named after its folder, less a .git ending")
    func defaultNameIsTheFolders() throws {
        let scratch = try ScratchFolder.current
        #expect(try Deck.create(at: scratch.path("work.git"), name: nil, bare: true).snapshot().name() == "work")
        #expect(try Deck.create(at: scratch.path("home"), name: nil, bare: false).snapshot().name() == "home")
        #expect(try Deck.create(at: scratch.path(".git.d/.git"), name: nil, bare: true).snapshot().name() == ".git")
    }

    @Test(
        "a clone clears what killed clones left beside it: of its own name at once, of other names once ten minutes old"
    )
    func abandonedClonesCleared() throws {
        let scratch = try ScratchFolder.current
        let remote = scratch.path("remote.git")
        _ = try Deck.create(at: remote, name: "Shared", bare: true)
        // Left by processes that no longer run (no pid is this large).
        let dead = "2147483646"
        let stale = scratch.path(".laptop.cards-clone-\(dead)")
        let fresh = scratch.path(".phone.cards-clone-\(dead)")
        let fetching = scratch.path(".watch.cards-clone-\(dead)")
        let own = scratch.path(".tablet.cards-clone-\(dead)")
        for folder in [stale, fresh, fetching, own] {
            try FileManager.default.createDirectory(
                atPath: folder + "/.git/objects/pack", withIntermediateDirectories: true)
        }
        // A pack being fetched into an old folder: written a moment ago.
        try Data("PACK".utf8).write(to: URL(fileURLWithPath: fetching + "/.git/objects/pack/tmp_pack_x"))
        for folder in [stale, fetching] {
            for path in [folder, folder + "/.git", folder + "/.git/objects/pack"] {
                var old = [
                    timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0),
                ]
                #expect(utimensat(AT_FDCWD, path, &old, 0) == 0)
            }
        }
        _ = try Deck.clone(from: remote, to: scratch.path("tablet"))
        let exists = { (path: String) in FileManager.default.fileExists(atPath: path) }
        #expect(!exists(own), "its own name's leftover stays")
        #expect(!exists(stale), "another name's leftover an hour old stays")
        #expect(exists(fresh), "another name's leftover of a minute ago may still be written (another container)")
        #expect(exists(fetching), "an old folder whose pack is being written is a clone at work")
    }
}
