import CGit2
import Foundation
@testable import GitCore
import TestSupport
import Testing

/// A pack of ours is named only under a `.keep` made before its name existed: a pack of the same
/// objects already there (an attempt that gave up, or another writer's) may be on a running `git
/// repack`'s list of packs to delete, whatever `.keep` it has since (MaintenanceRaceTests lost commits so).
@Suite("Pack keep: a pack is kept from before its name exists", .scratchFolder)
struct PackKeepTests {
    /// A pack of one blob, `content`.
    func pack(of content: String) throws -> PackFile {
        let bytes = Array(content.utf8)
        let id = try ObjectID.hash(of: bytes, type: GIT_OBJECT_BLOB)
        var pack = PackFile(expectedBytes: bytes.count, objects: 1)
        bytes.withUnsafeBytes { pack.append(id: id.raw, type: GIT_OBJECT_BLOB, data: $0) }
        return pack
    }

    @Test(
        "the same objects packed again, after the first pack's keep was let go or under another's keep: a pack of a new name, kept from the start; the first left as it was"
    )
    func samePackAgain() throws {
        let scratch = try ScratchFolder.current
        let path = scratch.path("deck.git")
        _ = try scratch.git(["init", "-q", "--bare", path], in: scratch.root)
        let folder = path + "/objects/pack"
        var first = try pack(of: "one card\n")
        let installed = try first.install(in: folder, keeping: true)
        let keep = try #require(installed.keep)
        #expect(keep.keptSinceBeforeNaming)
        #expect(FileManager.default.fileExists(atPath: installed.name + ".keep"))
        // An attempt that gave up: its pack stays, unkept, as a repack may list it.
        keep.release()
        #expect(!FileManager.default.fileExists(atPath: installed.name + ".keep"))

        let firstFile = try FileManager.default.attributesOfItem(atPath: installed.name + ".pack")[.systemFileNumber]
        var again = try pack(of: "one card\n")
        let second = try again.install(in: folder, keeping: true)
        let secondKeep = try #require(second.keep)
        #expect(second.name != installed.name, "the pack was named over the one a repack may be deleting")
        #expect(secondKeep.keptSinceBeforeNaming)
        #expect(FileManager.default.fileExists(atPath: second.name + ".keep"))
        // The first pack is not written over: a repack that listed it deletes a file nobody names again.
        let firstNow = try FileManager.default.attributesOfItem(atPath: installed.name + ".pack")[.systemFileNumber]
        #expect(firstNow as? Int == firstFile as? Int && firstFile != nil)
        #expect(!FileManager.default.fileExists(atPath: installed.name + ".keep"))
        // git reads the new pack whole: the card's blob and the blob that gave it its name.
        let verified = try scratch.git(["verify-pack", "-v", second.name + ".idx"], in: path)
        #expect(verified.contains("non delta: 2 objects"), "\(verified)")
        secondKeep.release()

        // The user's own `.keep` on a pack of the same objects: left alone, and ours named apart.
        let theirs = second.name + ".keep"
        try Data("kept by hand\n".utf8).write(to: URL(fileURLWithPath: theirs))
        var third = try pack(of: "one card\n")
        let thirdInstalled = try third.install(in: folder, keeping: true)
        #expect(thirdInstalled.name != second.name && thirdInstalled.name != installed.name)
        #expect(thirdInstalled.keep?.keptSinceBeforeNaming == true)
        thirdInstalled.keep?.release()
        #expect((try? String(contentsOfFile: theirs, encoding: .utf8)) == "kept by hand\n")
        let fsck = try scratch.git(["fsck", "--full"], in: path)
        #expect(!fsck.contains("error"), "\(fsck)")
    }

    @Test("reloadObjectDatabase: the handle reads what it read before, and packs written and repacked since")
    func reloadedObjectDatabase() throws {
        let scratch = try ScratchFolder.current
        let path = scratch.path("deck.git")
        _ = try scratch.git(["init", "-q", "--bare", path], in: scratch.root)
        let folder = path + "/objects/pack"
        var first = try pack(of: "before\n")
        _ = try first.install(in: folder)
        let before = try ObjectID.hash(of: Array("before\n".utf8), type: GIT_OBJECT_BLOB)
        let repository = try Repository.open(at: path)
        #expect(try repository.readObject(before) == Array("before\n".utf8))
        var second = try pack(of: "after\n")
        _ = try second.install(in: folder)
        let after = try ObjectID.hash(of: Array("after\n".utf8), type: GIT_OBJECT_BLOB)
        _ = try scratch.git(["update-ref", "refs/tags/before", before.hex], in: path)
        _ = try scratch.git(["update-ref", "refs/tags/after", after.hex], in: path)
        // Every pack the handle listed is gone: only the repack's new one holds the two blobs.
        _ = try scratch.git(["repack", "-a", "-d", "-q"], in: path)
        try repository.reloadObjectDatabase()
        #expect(try repository.readObject(after) == Array("after\n".utf8))
        #expect(try repository.readObject(before) == Array("before\n".utf8))
    }
}
