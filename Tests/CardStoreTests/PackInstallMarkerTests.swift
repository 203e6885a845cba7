import Foundation
@testable import GitCore
import Testing

/// The marker of packs being installed (`cards-pack-pending`) is written over in place, never cut to
/// nothing first (ext4 then writes it out on close, and the next cut waits for that): what it names
/// must still be exactly the last record, and a cleared marker must name nothing.
@Suite("Pack install marker: written over in place, naming only the last record")
struct PackInstallMarkerTests {
    /// A pack folder inside a scratch git folder (`<root>/git/objects/pack`), with packs named
    /// `pack-<c×40>` for each character, left without an index.
    static func packFolder(_ scratch: StoreScratch, orphans: [Character]) throws -> String {
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
        let scratch = try StoreScratch()
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
        #expect(marker.removeOrphans().map { $0.hasSuffix(String(repeating: "c", count: 40) + ".pack") } == [true])
        #expect(!marker.isMarked())
        #expect(FileManager.default.fileExists(atPath: Self.base(folder, "a") + ".pack"), "an unnamed pack was removed")
    }

    @Test("a marker grown past what is blanked in place (never ours) is cut, and names only the new record")
    func oversizedMarkerIsCut() throws {
        let scratch = try StoreScratch()
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
}
