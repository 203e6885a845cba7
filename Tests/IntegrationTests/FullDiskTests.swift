import TestSupport
import Foundation
import Glibc
import Testing

/// A deck on a small tmpfs that runs out of space: the command that hits the wall fails with a clear
/// error, the deck stays as it was, and the same command works once space is freed. The free space is
/// swept from nothing upward so the wall falls at every stage of a write. Needs `mount` (root); without
/// it the test limits file size with RLIMIT_FSIZE instead (SIGXFSZ ignored, so writes fail with EFBIG).
@Suite("Full disk")
struct FullDiskTests {
    struct Operation {
        var name: String
        var arguments: [String]
    }

    @Test("every write that runs out of space fails clearly and leaves the deck as it was")
    func fullDisk() throws {
        let scratch = try Scratch()
        let mountPoint = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        // CARDS_FULL_DISK=rlimit forces the fallback (to test it where mount works).
        let forced = ProcessInfo.processInfo.environment["CARDS_FULL_DISK"] == "rlimit"
        let mounted =
            forced
            ? RunResult(status: 1, stdout: "", stderr: "CARDS_FULL_DISK=rlimit")
            : try scratch.run("/bin/mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint])
        let onTmpfs = mounted.status == 0
        defer { if onTmpfs { _ = try? scratch.run("/bin/umount", ["-l", mountPoint]) } }
        if !onTmpfs { print("full disk: mount refused (\(mounted.stderr)); using RLIMIT_FSIZE instead") }
        let deck = mountPoint + "/deck"
        #expect(try scratch.cards(["init", deck, "--from", Binaries.sampleRepo]).status == 0)
        let durable = ["CARDS_FSYNC": "1"]
        var random = SplitMix64(seed: 7)
        let importFile = scratch.path("import.jsonl")
        try (0..<300).map { "{\"title\": \"Imported \($0)\", \"indexURL\": \"https://imp.example/\($0)\"}" }
            .joined(separator: "\n").write(toFile: importFile, atomically: true, encoding: .utf8)
        let some = try scratch.cardIDs(deck).sorted()
        let operations = [
            Operation(name: "add", arguments: ["add", "--title", "Full", "--url", "https://full.example"]),
            Operation(name: "edit", arguments: ["edit", some[0], "--title", "Edited on a full disk"]),
            Operation(name: "delete", arguments: ["delete", some[1], some[2]]),
            Operation(name: "import", arguments: ["import", importFile]),
            Operation(name: "undo", arguments: ["undo"]),
        ]
        var failures = 0
        var attempts = 0
        for operation in operations {
            var free = 0
            var succeeded = false
            while !succeeded && free < 8 * 1024 * 1024 {
                attempts += 1
                let before = try scratch.fingerprint(deck)
                let headBefore = try scratch.revParse(deck, "main")
                let result: RunResult
                if onTmpfs {
                    try Filler.fill(mountPoint, leaving: free)
                    result = try scratch.cards(operation.arguments, in: deck, extraEnvironment: durable)
                    Filler.remove(mountPoint)
                } else {
                    // ulimit -f counts 512-byte blocks in dash.
                    var env = scratch.environment
                    for (key, value) in durable { env[key] = value }
                    result = try scratch.run(
                        "/bin/sh",
                        ["-c", "trap '' XFSZ; ulimit -f \(max(free / 512, 1)); exec \"$0\" \"$@\"", Binaries.cards]
                            + operation.arguments, in: deck)
                }
                if result.status == 0 {
                    succeeded = true
                    #expect(try scratch.revParse(deck, "main") != headBefore, "\(operation.name) made no commit")
                } else {
                    failures += 1
                    let context = "\(operation.name) with \(free) bytes free"
                    #expect(result.status == 1, "\(context): exit \(result.status) \(result.stderr)")
                    #expect(!result.stderr.contains("Fatal error"), "\(context) crashed: \(result.stderr)")
                    #expect(
                        result.stderr.contains("space") || result.stderr.contains("file size limit"),
                        "\(context): unclear error: \(result.stderr)")
                    #expect(try scratch.fingerprint(deck) == before, "\(context): the deck changed")
                }
                // Space is back (or the limit gone): the deck is consistent and clean.
                let fsck = try scratch.cards(["fsck"], in: deck)
                #expect(fsck.status == 0, "\(operation.name) with \(free) bytes free: fsck: \(fsck.stderr)")
                free = free < 16_384 ? free + 4_096 : free + free / 4 + Int(random.next() % 4_096)
            }
            #expect(succeeded, "\(operation.name) never succeeded, even with 8 MB free")
        }
        try scratch.expectClean(deck)
        reportFigures(
            "full-disk",
            ["method": onTmpfs ? "tmpfs 16 MB" : "RLIMIT_FSIZE", "attempts": attempts, "failedCleanly": failures])
    }

    @Test("without the free-space check (a disk filled mid-write): a clear error, and the next command finishes")
    func fullDiskMidWrite() throws {
        let scratch = try Scratch()
        let mountPoint = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        // Room for the objects each failed round leaves dangling, so freeing the filler really frees space.
        let mounted = try scratch.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", mountPoint])
        if mounted.status != 0 {
            try Test.cancel("a tmpfs could not be mounted here (mount needs root): \(mounted.stderr)")
        }
        defer { _ = try? scratch.run("/bin/umount", ["-l", mountPoint]) }
        let deck = mountPoint + "/deck"
        #expect(try scratch.cards(["init", deck, "--from", Binaries.sampleRepo]).status == 0)
        let unchecked = ["CARDS_FSYNC": "1", "CARDS_SPACE_CHECK": "0"]
        let importFile = scratch.path("import.jsonl")
        var failures = 0
        var finishedLater = 0
        var attempts = 0
        for round in 0..<40 {
            try (0..<60).map { "{\"title\": \"R\(round) \($0)\", \"indexURL\": \"https://imp.example/\($0)\"}" }
                .joined(separator: "\n").write(toFile: importFile, atomically: true, encoding: .utf8)
            let before = try scratch.revParse(deck, "main")
            try Filler.fill(mountPoint, leaving: 4_096 * (50 + round * 3))
            let result = try scratch.cards(["import", importFile], in: deck, extraEnvironment: unchecked)
            Filler.remove(mountPoint)
            attempts += 1
            if result.status != 0 {
                failures += 1
                #expect(result.status == 1 && !result.stderr.contains("Fatal error"), "\(result.stderr)")
                #expect(
                    result.stderr.contains("No space left on device") || result.stderr.contains("space"),
                    "round \(round): unclear error: \(result.stderr)")
                // Space is back: the next command works and leaves the deck whole.
                if try scratch.revParse(deck, "main") != before { finishedLater += 1 }
                let next = try scratch.cards(["list"], in: deck)
                #expect(next.status == 0)
                let write = try scratch.cards(
                    ["add", "--title", "After \(round)", "--url", "https://after.example"], in: deck)
                #expect(write.status == 0, "round \(round): the next write failed: \(write.stderr)")
                let fsck = try scratch.cards(["fsck"], in: deck)
                #expect(fsck.status == 0, "round \(round): \(fsck.stderr)")
                try scratch.expectClean(deck)
            }
        }
        reportFigures(
            "full-disk-mid-write", ["attempts": attempts, "failed": failures, "publishedThenFinished": finishedLater])
    }
}

/// Fills a file system with one file so that only `leaving` bytes stay free.
enum Filler {
    static func path(_ mountPoint: String) -> String { mountPoint + "/filler" }

    static func fill(_ mountPoint: String, leaving: Int) throws {
        remove(mountPoint)
        var info = statvfs()
        guard statvfs(mountPoint, &info) == 0 else { throw CocoaError(.fileWriteUnknown) }
        let available = Int(info.f_bavail) * Int(info.f_bsize)
        let size = max(0, available - leaving)
        // Close-on-exec: a server another test spawns meanwhile must not inherit the filler and keep its
        // space held after we unlink it.
        let fd = open(path(mountPoint), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        // tmpfs counts pages actually written: write real zeros (fallocate would do too).
        let chunk = [UInt8](repeating: 0, count: 1 << 20)
        var left = size
        while left > 0 {
            let count = chunk.withUnsafeBytes { write(fd, $0.baseAddress, min(left, $0.count)) }
            if count <= 0 { break }
            left -= count
        }
    }

    static func remove(_ mountPoint: String) {
        unlink(path(mountPoint))
    }
}
