import Foundation
@testable import CardStore
import Testing
import TestSupport

/// git's lock files in a write's way (`index.lock`, `refs/heads/<branch>.lock`): one that no process
/// holds is said at once, naming the file and what to do (git fails at once too); one a live process
/// holds open is named after about a second (`Deck.lockWaitNotice`), and waited for (issue 32). In
/// `LockWaitNoticeTests`, serialized: `Deck.lockWaitNotice` is process-wide, and each test sets it and
/// takes it away, so no two tests that set it may run at once.
extension LockWaitNoticeTests {
    /// A python3 child that creates `path` exclusively, as git takes a lock, holds it open for
    /// `seconds`, then removes it (a git command that gave up); returns it and its pid, once it holds
    /// the lock.
    func holder(of path: String, seconds: Double, scratch: ScratchFolder) throws -> (Process, Int32) {
        let pidFile = scratch.path("holder-\(UUID().uuidString).pid")
        let program = """
            import os, sys, time
            fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            open(sys.argv[2] + ".tmp", "w").write(str(os.getpid()))
            os.rename(sys.argv[2] + ".tmp", sys.argv[2])
            time.sleep(float(sys.argv[3]))
            os.unlink(sys.argv[1])
            os.close(fd)
            """
        guard
            let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(
                where: FileManager.default.isExecutableFile)
        else {
            try Test.cancel("python3 is not installed; `./dev test` installs it")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", program, path, pidFile, String(seconds)]
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && process.isRunning {
            if let text = try? String(contentsOfFile: pidFile, encoding: .utf8), let pid = Int32(text) {
                return (process, pid)
            }
            usleep(5_000)
        }
        Issue.record("the lock holder did not start")
        return (process, process.processIdentifier)
    }

    @Test(
        "a stale git lock (index.lock, the branch's refs/heads/main.lock): the add fails within 2 s, naming the file and saying to remove it or run fsck --repair",
        arguments: ["index.lock", "refs/heads/main.lock"])
    func staleGitLock(_ name: String) throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "L", bare: false)
        let before = try deck.snapshot().commit
        let lock = "\(deck.gitDirectory)/\(name)"
        #expect(FileManager.default.createFile(atPath: lock, contents: Data()))
        let started = Date()
        #expect {
            _ = try deck.add(title: "Blocked", indexURL: "https://blocked.example/")
        } throws: { error in
            let message = (error as? StoreError)?.message ?? ""
            return message.contains(lock) && message.contains("no process has it open")
                && message.contains("remove") && message.contains("cards fsck --repair")
        }
        let took = Date().timeIntervalSince(started)
        #expect(took < 2, "the stale lock took \(took) s to be said")
        #expect(try deck.snapshot().commit == before)
        #expect(FileManager.default.fileExists(atPath: lock), "a lock cards did not make was removed")
        let status = try scratch.git(["status", "--porcelain"], in: deck.workingDirectory ?? "")
        #expect(status.isEmpty, "the working tree was left changed: \(status)")
    }

    @Test(
        "index.lock and main.lock held open by a live process for 2.5 s: named with its pid after about 1 s, then the add goes in",
        arguments: ["index.lock", "refs/heads/main.lock"])
    func heldLock(_ name: String) throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "L", bare: false)
        let lock = "\(deck.gitDirectory)/\(name)"
        let said = Said()
        Deck.lockWaitNotice = { said.append($0) }
        defer { Deck.lockWaitNotice = nil }
        let (process, pid) = try holder(of: lock, seconds: 2.5, scratch: scratch)
        defer { process.waitUntilExit() }
        let started = Date()
        let card = try deck.add(title: "Waited", indexURL: "https://waited.example/")
        #expect(Date().timeIntervalSince(started) >= 1.5, "the add did not wait for the lock")
        #expect(try deck.snapshot().card(id: card.id)?.title == "Waited")
        let mine = said.all.filter { $0.contains(lock) }
        #expect(mine.count == 1, "\(said.all)")
        #expect(mine.first?.contains("process \(pid)") == true, "\(mine)")
    }
}
