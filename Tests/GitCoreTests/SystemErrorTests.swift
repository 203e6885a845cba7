import Foundation
import Glibc
import SystemCalls
import TestSupport
import Testing

@testable import GitCore

/// A failed system call is a `GitError` whose code carries its errno, beside the message in words.
@Suite("System failures carry their errno", .scratchFolder)
struct SystemErrorTests {
    @Test("git's index lock in a folder that does not exist: .system(ENOENT), the path in the message")
    func indexLockInMissingFolder() throws {
        let scratch = try ScratchFolder.current
        let index = scratch.path("no-such-folder/index")
        #expect {
            try IndexLock(indexPath: index)
        } throws: { error in
            guard let error = error as? GitError else { return false }
            return error.code == .system(ENOENT) && error.message.contains(index + ".lock")
                && error.message.contains(String(cString: strerror(ENOENT)))
        }
    }

    @Test("a temporary file in a 'folder' that is a file: .system(ENOTDIR)")
    func temporaryFileUnderAFile() throws {
        let scratch = try ScratchFolder.current
        let file = scratch.path("plain-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect {
            try FileSync.writeTemporary(in: file, prefix: "t", flush: false) { _ in 0 }
        } throws: { error in
            (error as? GitError)?.code == .system(ENOTDIR)
        }
    }
}
