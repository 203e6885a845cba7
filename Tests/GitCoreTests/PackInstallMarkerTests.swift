import Foundation
import TestSupport
@testable import GitCore
import Testing

/// The marker of packs being installed (`cards-pack-pending`) is written over in place, never cut to
/// nothing first (ext4 then writes it out on close, and the next cut waits for that): what it names
/// must still be exactly the last record, and a cleared marker must name nothing.
@Suite("Pack install marker: written over in place, naming only the last record", .scratchFolder)
struct PackInstallMarkerTests {
    /// A pack folder inside a scratch git folder (`<root>/git/objects/pack`), with packs named
    /// `pack-<c×40>` for each character, left without an index.
    static func packFolder(_ scratch: ScratchFolder, orphans: [Character]) throws -> String {
        let folder = scratch.path("git/objects/pack")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for character in orphans {
            let path = folder + "/pack-" + String(repeating: character, count: 40) + ".pack"
            #expect(FileManager.default.createFile(atPath: path, contents: Data("PACK".utf8)))
        }
        return folder
    }

    static func base(_ folder: String, _ character: Character) -> String {
        folder + "/pack-" + String(repeating: character, count: 40)
    }

    /// Which orphans the marker names, by their character.
    static func named(_ marker: PackInstallMarker) -> Set<Character> {
        Set(marker.packsWithoutIndex().filter(\.named).compactMap { $0.path.split(separator: "-").last?.first })
    }

    @Test("a record, a clear and a shorter record: only the last record's packs are named, and the file is never cut")
    func recordClearRecord() throws {
        let scratch = try ScratchFolder.current
        let folder = try Self.packFolder(scratch, orphans: ["a", "b", "c"])
        let marker = PackInstallMarker(packFolder: folder)
        #expect(!marker.isMarked())

        try marker.record([Self.base(folder, "a"), Self.base(folder, "b")])
        #expect(marker.isMarked())
        #expect(Self.named(marker) == ["a", "b"])
        let recordedSize = try #require(try FileManager.default.attributesOfItem(atPath: marker.path)[.size] as? Int)

        marker.clear()
        #expect(!marker.isMarked(), "a cleared marker still counts as naming packs")
        #expect(Self.named(marker).isEmpty)
        let cleared = try #require(FileManager.default.contents(atPath: marker.path))
        #expect(cleared.count == recordedSize, "the marker was cut instead of written over")
        #expect(cleared.allSatisfy { $0 == 0x0A })

        try marker.record([Self.base(folder, "c")])
        #expect(Self.named(marker) == ["c"], "an earlier record's names are still in the marker")
        let shorter = try #require(FileManager.default.contents(atPath: marker.path))
        #expect(shorter.count == recordedSize, "the marker was cut for a shorter record")
        #expect(marker.removeOrphans().map { $0.hasSuffix(String(repeating: "c", count: 40) + ".pack") } == [true])
        #expect(!marker.isMarked())
        #expect(FileManager.default.fileExists(atPath: Self.base(folder, "a") + ".pack"), "an unnamed pack was removed")
    }

    @Test("a marker grown past what is blanked in place (never ours) is cut, and names only the new record")
    func oversizedMarkerIsCut() throws {
        let scratch = try ScratchFolder.current
        let folder = try Self.packFolder(scratch, orphans: ["d", "e"])
        let marker = PackInstallMarker(packFolder: folder)
        let junk = Array(repeating: Self.base(folder, "e") + "\n", count: PackInstallMarker.blankedLength / 40).joined()
        #expect(FileManager.default.createFile(atPath: marker.path, contents: Data(junk.utf8)))
        #expect(Self.named(marker) == ["e"])

        let text = Self.base(folder, "d") + "\n"
        try marker.record([Self.base(folder, "d")])
        #expect(FileManager.default.contents(atPath: marker.path) == Data(text.utf8))
        #expect(Self.named(marker) == ["d"])
    }

    @Test("at the length blanked in place a cleared marker names nothing; one byte longer it is cut at the next clear")
    func blankedLengthBoundary() throws {
        let scratch = try ScratchFolder.current
        let folder = try Self.packFolder(scratch, orphans: [])
        let marker = PackInstallMarker(packFolder: folder)
        for length in [PackInstallMarker.blankedLength, PackInstallMarker.blankedLength + 1] {
            let junk = Data(repeating: UInt8(ascii: "x"), count: length)
            #expect(FileManager.default.createFile(atPath: marker.path, contents: junk))
            #expect(marker.isMarked())
            marker.clear()
            #expect(!marker.isMarked(), "length \(length): a cleared marker still counts as naming packs")
            let size = try #require(try FileManager.default.attributesOfItem(atPath: marker.path)[.size] as? Int)
            #expect(size == (length > PackInstallMarker.blankedLength ? 0 : length), "length \(length)")
        }
        // Longer than what is blanked, and all newlines (never ours): counted as marked, cut by the clear.
        let newlines = Data(repeating: 0x0A, count: PackInstallMarker.blankedLength + 1)
        #expect(FileManager.default.createFile(atPath: marker.path, contents: newlines))
        #expect(marker.isMarked())
        #expect(marker.removeOrphans().isEmpty)
        #expect(!marker.isMarked())
    }
}
