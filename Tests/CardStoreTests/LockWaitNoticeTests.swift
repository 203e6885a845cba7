import Foundation
@testable import CardStore
import Testing
import TestSupport

/// A command waiting for another process's deck lock says so once (`Deck.lockWaitNotice`), naming
/// the holder, and goes on when the lock is let go.
/// Serialized, with the git lock waits (GitLockWaitTests.swift): every test that sets the process-wide
/// `Deck.lockWaitNotice` is here, so none sees another's notices.
@Suite(
    "Lock wait notice: a wait for another process's deck lock, or git's, is told once, naming the holder", .serialized,
    .scratchFolder)
struct LockWaitNoticeTests {
    /// What the notice was given, from whichever thread.
    final class Said: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) {
            lock.lock()
            lines.append(line)
            lock.unlock()
        }
        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return lines
        }
    }

    @Test("an add behind a process holding the deck lock for 2.5 s: told once, naming that process, then added")
    func toldOnce() throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "L", bare: true)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["\(deck.gitDirectory)/cards.lock", "sleep", "2.5"]
        try holder.run()
        defer { holder.waitUntilExit() }
        // Until flock holds it: the lock is taken by then, or the child has ended.
        let deadline = Date().addingTimeInterval(10)
        while holder.isRunning && Date() < deadline
            && LockFilesProbe.isHeld("\(deck.gitDirectory)/cards.lock") == false
        {
            usleep(10_000)
        }
        let said = Said()
        Deck.lockWaitNotice = { said.append($0) }
        defer { Deck.lockWaitNotice = nil }
        let started = Date()
        let card = try deck.add(title: "Waited", indexURL: "https://waited.example/")
        #expect(Date().timeIntervalSince(started) >= 1.5, "the add did not wait for the lock")
        #expect(try deck.snapshot().card(id: card.id)?.title == "Waited")
        let mine = said.all.filter { $0.contains(deck.gitDirectory) }
        #expect(mine.count == 1, "\(said.all)")
        #expect(mine.first?.contains("process \(holder.processIdentifier)") == true, "\(mine)")
    }
}

extension LockWaitNoticeTests {
    @Test("a lock timeout of infinity or NaN is kept to what every message can say")
    func boundedTimeout() throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "L", bare: true)
        deck.lockTimeout = .infinity
        #expect(deck.lockTimeout == Deck.longestLockTimeout)
        deck.lockTimeout = .nan
        #expect(deck.lockTimeout == 0)
        deck.lockTimeout = -5
        #expect(deck.lockTimeout == 0)
        deck.lockTimeout = 12.5
        #expect(deck.lockTimeout == 12.5)
    }
}

/// Whether another process holds an flock on a file (a non-blocking try that is let go at once).
enum LockFilesProbe {
    static func isHeld(_ path: String) -> Bool {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            _ = flock(fd, LOCK_UN)
            return false
        }
        return true
    }
}
