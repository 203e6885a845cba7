import Foundation
import GitCore
import Glibc
import Testing

@testable import CardStore
import TestSupport

/// The deck lock's holder record is written over the last one in place, one length for every pid, so
/// that what a waiting process reads is always the present holder's pid alone.
@Suite("Deck lock: the holder's record written over in place", .scratchFolder)
struct DeckLockTests {
    @Test("every record has one length and holds its pid's digits alone")
    func recordShape() {
        for pid: Int32 in [1, 42, 99_999, 4_194_304, Int32.max] {
            let record = DeckLock.record(pid: pid)
            #expect(record.count == DeckLock.recordLength, "pid \(pid)")
            #expect(record.last == 0x0A)
            #expect(String(decoding: record.filter { (0x30...0x39).contains($0) }, as: UTF8.self) == String(pid))
        }
    }

    @Test("a lock file left longer (or shorter) than a record holds exactly this holder's record")
    func leftoversCovered() throws {
        let scratch = try ScratchFolder.current
        for leftover in ["pid 1234567890123456789012345678901234567890\n", "pid 9\n", ""] {
            let path = scratch.path("cards-\(leftover.count).lock")
            #expect(FileManager.default.createFile(atPath: path, contents: Data(leftover.utf8)))
            let lock = try DeckLock(path: path, timeout: 1)
            let written = try #require(FileManager.default.contents(atPath: path))
            #expect(Array(written) == DeckLock.record(pid: getpid()), "leftover \(leftover.debugDescription)")
            withExtendedLifetime(lock) {}
        }
    }
}

/// A bare deck's write flag names its writer only: there are no files or index to bring along.
@Suite("Write flag: what it names on a bare deck and with a working tree", .scratchFolder)
struct WriteFlagTests {
    @Test("a bare deck's flag holds the pid alone; a working tree's, each path with its blob")
    func flagLines() throws {
        let scratch = try ScratchFolder.current
        let blob = ObjectID.blobHash(of: Array("{}".utf8))
        let files: [(path: String, blob: ObjectID?)] = [("cards/ab/x.json", blob), ("cards/cd/y.json", nil)]
        for bare in [true, false] {
            let deck = try Deck.create(at: scratch.path(bare ? "bare" : "tree"), name: "Flags", bare: bare)
            try deck.markPending(files)
            let text = try String(contentsOfFile: deck.pendingPath, encoding: .utf8)
            let expected =
                bare ? "pid \(getpid())\n" : "pid \(getpid())\n\(blob.hex)\tcards/ab/x.json\n-\tcards/cd/y.json\n"
            #expect(text == expected, "bare: \(bare)")
            deck.clearPending()
            #expect(!FileManager.default.fileExists(atPath: deck.pendingPath))
        }
    }
}
