import CardStore
import Foundation
import Testing
import TestSupport

@Suite("FileSystem.canonical: one spelling per place", .scratchFolder)
struct FileSystemPathTests {
    @Test("dots, slashes and symbolic links, for folders that exist and that do not yet")
    func spellings() throws {
        let scratch = try ScratchFolder.current
        let real = scratch.path("real")
        try FileManager.default.createDirectory(atPath: real + "/inside", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("link"), withDestinationPath: real)
        let place = FileSystem.canonical(real + "/inside")
        #expect(place.hasPrefix("/") && !place.hasSuffix("/"))
        for spelling in [
            real + "/inside/", real + "//inside", real + "/./inside", real + "/inside/../inside",
            scratch.path("link") + "/inside", scratch.path("link/other/..") + "/inside",
        ] {
            #expect(FileSystem.canonical(spelling) == place, "\(spelling)")
        }
        // Not there yet: the part that exists resolved, the rest as written.
        let newDeck = FileSystem.canonical(scratch.path("link") + "/new/deck/")
        #expect(newDeck == place.dropLast("inside".count) + "new/deck")
        #expect(FileSystem.canonical(real + "/inside") != FileSystem.canonical(real + "/inside2"))
        // A link followed by "..": the link's target's parent, as the kernel goes, not the link's folder.
        let elsewhere = scratch.path("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere + "/deep", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: real + "/jump", withDestinationPath: elsewhere + "/deep")
        #expect(FileSystem.canonical(real + "/jump/..") == FileSystem.canonical(elsewhere))
        #expect(FileSystem.canonical(real + "/jump/../new") == FileSystem.canonical(elsewhere) + "/new")
        #expect(FileSystem.canonical("/") == "/")
        #expect(FileSystem.canonical("/..") == "/")
    }
}
