import Foundation
import Testing

@testable import GitCore

/// The index walk that tells skip-worktree entries and sparse indexes (`IndexSkipWorktree`), against
/// indexes git wrote in each version, and the patch's skip-worktree entries as git reads them.
@Suite("Index skip-worktree")
struct IndexSkipWorktreeTests {
    @Test("skip-worktree bits and tracked paths read as git wrote them, in index versions 2, 3 and 4", arguments: [2, 3, 4])
    func readsEveryVersion(version: Int) throws {
        let fixture = try GitIndexFixture(cards: 40, variant: .plain)
        let skipped = Array(fixture.cardPaths.prefix(5)) + ["README.md"]
        if version >= 3 { try fixture.check(["update-index", "--skip-worktree"] + skipped) }
        try fixture.check(["update-index", "--index-version", String(version)])
        let asked = Set(fixture.cardPaths.suffix(30) + skipped + ["cards/00/none.json"])
        let read = IndexSkipWorktree.read(indexPath: fixture.indexPath, paths: asked, tracking: true)
        #expect(read.version == UInt32(version))
        #expect(!read.isSparse)
        #expect(read.skipped == (version >= 3 ? Set(skipped) : []))
        #expect(read.tracked == asked.subtracting(["cards/00/none.json"]))
        // Every skip-worktree path, when none is named.
        #expect(IndexSkipWorktree.read(indexPath: fixture.indexPath, paths: nil).skipped == (version >= 3 ? Set(skipped) : []))
    }

    @Test("a sparse index is told, in version 2 (every folder in the cone) and 3 (folders folded)", arguments: [false, true])
    func sparseIndex(folded: Bool) throws {
        let fixture = try GitIndexFixture(cards: 30, variant: .plain)
        let folder = String(fixture.cardPaths[0].split(separator: "/").prefix(2).joined(separator: "/"))
        try fixture.check(["sparse-checkout", "set", "--sparse-index", folded ? folder : "cards"])
        #expect(IndexSkipWorktree.isSparseIndex(at: fixture.indexPath))
        #expect(IndexSkipWorktree.read(indexPath: fixture.indexPath, paths: [], tracking: true).isSparse)
        try fixture.check(["sparse-checkout", "reapply", "--no-sparse-index"])
        #expect(!IndexSkipWorktree.isSparseIndex(at: fixture.indexPath))
        let read = IndexSkipWorktree.read(indexPath: fixture.indexPath, paths: nil)
        #expect(read.skipped.count == (folded ? fixture.cardPaths.filter { !$0.hasPrefix(folder + "/") }.count : 0))
    }

    @Test(
        "a split index is told by its link extension, in versions 2 and 4, and no longer once git unsplits it",
        arguments: [2, 4])
    func splitIndex(version: Int) throws {
        let fixture = try GitIndexFixture(cards: 30, variant: .plain)
        #expect(!IndexSkipWorktree.isSplitIndex(at: fixture.indexPath))
        try fixture.check(["update-index", "--index-version", String(version)])
        try fixture.check(["update-index", "--split-index"])
        // A change after the split, so the index file itself holds an entry beside its link.
        try fixture.check(["update-index", "--chmod=+x", fixture.cardPaths[3]])
        #expect(IndexSkipWorktree.isSplitIndex(at: fixture.indexPath))
        let read = IndexSkipWorktree.read(indexPath: fixture.indexPath, paths: [], tracking: true)
        #expect(read.version == UInt32(version))
        try fixture.check(["update-index", "--no-split-index"])
        #expect(!IndexSkipWorktree.isSplitIndex(at: fixture.indexPath))
    }

    @Test("a patched entry with the skip-worktree bit: git reads it as skipped, its blob staged, status clean", arguments: [false, true])
    func patchWritesSkipWorktree(version3: Bool) throws {
        let fixture = try GitIndexFixture(cards: 20, variant: version3 ? .version3 : .plain)
        let path = fixture.cardPaths[4]
        let hex = try fixture.check(["hash-object", "-w", "--stdin"], input: "{\"title\":\"Elsewhere\"}\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let blob = try #require(ObjectID(hex: hex))
        unlink(fixture.directory + "/" + path)
        let update = IndexUpdate(
            path: path, file: (blob, FileStat(notInWorkingTree: 0o100644)), skipWorktree: true)
        #expect(try IndexPatch.apply([update], paths: .cardFiles, indexPath: fixture.indexPath, flush: .none) == .written)
        #expect(try fixture.check(["ls-files", "-t", path]) == "S \(path)\n")
        #expect(try fixture.check(["ls-files", "-s", path]).contains(hex))
        #expect(try fixture.check(["diff", "--name-only"]).isEmpty)
        #expect(IndexSkipWorktree.read(indexPath: fixture.indexPath, paths: [path]).skipped == [path])
        #expect(try fixture.run(["fsck", "--no-progress", "--no-dangling"]).status == 0)
    }
}
