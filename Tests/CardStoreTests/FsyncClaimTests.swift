import GitCore
import Testing

@testable import CardStore

@Suite("libgit2's fsync switch shared by decks in one process")
struct FsyncClaimTests {
    @Test("a deck without fsync opened or closed beside one with it leaves libgit2's fsync on for it")
    func claimsCompose() {
        // Every other in-process test runs with CARDS_FSYNC=0, so no deck of theirs claims the switch.
        #expect(!Libgit2.fsyncClaimed)
        Libgit2.claimFsync()  // a deck with fsync opens
        Libgit2.claimFsync()  // a second one
        let bigWrite = ObjectsFlush(durable: true, files: ObjectsFlush.threshold)  // the first flushes in one go
        #expect(Libgit2.fsyncClaimed, "the second deck's writes lost libgit2's fsync")
        bigWrite.restore()
        bigWrite.restore()  // restore is idempotent: one claim back, not two
        Libgit2.releaseFsync()
        #expect(Libgit2.fsyncClaimed)
        Libgit2.releaseFsync()
        #expect(!Libgit2.fsyncClaimed)
        // A small write keeps the deck's claim as it is; a deck without fsync has none to give back.
        let small = ObjectsFlush(durable: true, files: 1)
        small.restore()
        let none = ObjectsFlush(durable: false, files: 1_000)
        none.restore()
        #expect(!Libgit2.fsyncClaimed)
    }

    @Test("CARDS_FSYNC and cards.fsync turn fsync off with 0 or false, and nothing else does")
    func settings() {
        #expect(Deck.wantsFsync(environment: nil, config: nil))
        #expect(Deck.wantsFsync(environment: "strict", config: nil))
        #expect(Deck.wantsFsync(environment: "1", config: "true"))
        for off in ["0", "false"] {
            #expect(!Deck.wantsFsync(environment: off, config: nil))
            #expect(!Deck.wantsFsync(environment: nil, config: off))
        }
    }
}
