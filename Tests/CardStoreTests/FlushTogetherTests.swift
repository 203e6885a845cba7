import Foundation
import Glibc
import Testing

@testable import GitCore

@Suite("fsyncs side by side: every file flushed, every failure reported")
struct FlushTogetherTests {
    /// Files with some bytes each, open for writing; closed by the caller.
    private func openFiles(_ count: Int, in folder: String) -> [Int32] {
        (0..<count).map { index in
            let fd = open("\(folder)/file\(index)", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            _ = FileSync.writeAll(fd, Array(repeating: UInt8(index), count: 1000 * (index + 1)))
            return fd
        }
    }

    private func temporaryFolder() -> String {
        let folder = NSTemporaryDirectory() + "flush-together-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("good descriptors: 0, whatever their number")
    func allGood() {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for count in 0...5 {
            let descriptors = openFiles(count, in: folder)
            defer { for fd in descriptors { close(fd) } }
            #expect(FileSync.flushTogether(descriptors) == 0, "\(count) files")
        }
    }

    @Test("a bad descriptor's error comes back, wherever it is in the list (the caller's thread or another)")
    func failureReported() {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for position in 0..<3 {
            var descriptors = openFiles(3, in: folder)
            close(descriptors[position])
            // A descriptor number that is surely not open.
            descriptors[position] = 1_000_000
            #expect(FileSync.flushTogether(descriptors) == EBADF, "bad descriptor at \(position)")
            for (index, fd) in descriptors.enumerated() where index != position { close(fd) }
        }
    }

    @Test("by path: every file flushed, a missing one is ENOENT")
    func byPath() {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let descriptors = openFiles(2, in: folder)
        for fd in descriptors { close(fd) }
        #expect(FileSync.flush(paths: ["\(folder)/file0", "\(folder)/file1"]) == 0)
        #expect(FileSync.flush(paths: ["\(folder)/file0", "\(folder)/absent"]) == ENOENT)
    }
}
