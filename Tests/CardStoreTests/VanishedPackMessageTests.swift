import Foundation
@testable import GitCore
import TestSupport
import Testing

@testable import CardStore

/// A pack that git's repack removed while libgit2 was reading it is no damage: the store's message
/// says so and to try again (GitCoreTests' `PackKeepTests` keep our own packs from such a repack).
@Suite("Vanished packs: told as that, not as damage", .scratchFolder)
struct VanishedPackMessageTests {
    @Test(
        "a pack git removed while libgit2 read it: told as that, not as damage; a pack still there that fails is damage"
    )
    func vanishedPackMessage() throws {
        let scratch = try ScratchFolder.current
        let gone = scratch.path("pack-0123.pack")
        let error = GitError(code: .unexpected, message: "invalid packfile '\(gone)'", function: "git_odb_read")
        let told = StoreError.git(error, while: "comparing histories").message
        #expect(told.contains(gone) && told.contains("try again") && !told.contains("damaged:"), "\(told)")
        try Data("PACK".utf8).write(to: URL(fileURLWithPath: gone))
        let damaged = StoreError.git(error, while: "comparing histories").message
        #expect(damaged.contains("object files are damaged"), "\(damaged)")
    }
}
