import TestSupport
import Foundation
import Glibc
import Testing

/// Several writers on one deck at once, and locks held too long by someone else.
@Suite("Concurrency and locks")
struct ReliabilityConcurrencyTests {
    /// One command a writer ran, and how it ended.
    struct Step: Sendable {
        var writer: Int
        var operation: String
        var id: String
        var title: String?
        var status: Int32
        var stderr: String
    }

    /// The commits of `main` as (op, card ids) from their trailers.
    static func history(_ scratch: Scratch, _ deck: String) throws -> [(op: String, ids: [String])] {
        let log = try scratch.git(["log", "--format=%B%x00", "main"], in: deck).stdout
        let messages = log.split(separator: "\0").filter { !$0.allSatisfy(\.isWhitespace) }
        return messages.map { message in
            var op = ""
            var ids: [String] = []
            for line in message.split(separator: "\n") {
                if line.hasPrefix("Op: ") { op = String(line.dropFirst(4)) }
                if line.hasPrefix("Card-Id: ") { ids.append(String(line.dropFirst(9))) }
            }
            return (op, ids)
        }
    }

    @Test("four writers x 150 mixed commands, a sync and another device beside: every acknowledged one kept")
    func fourWriters() throws {
        let writers = environmentCount("CARDS_WRITERS", default: 4)
        let perWriter = environmentCount("CARDS_WRITER_OPS", default: 150)
        let seed = environmentSeed()
        print("concurrency: \(writers) writers x \(perWriter) commands, CARDS_SEED=\(seed)")
        let scratch = try Scratch()
        let deck = scratch.path("deck")
        #expect(try scratch.cards(["init", deck]).status == 0)
        // A remote by path, and another device on it that keeps adding cards and syncing.
        let remote = scratch.path("remote.git")
        try scratch.gitChecked(["init", "-q", "--bare", "-b", "main", remote], in: scratch.root)
        #expect(try scratch.cards(["remote", "add", "origin", remote], in: deck).status == 0)
        #expect(try scratch.cards(["sync"], in: deck).status == 0)
        let device = scratch.path("device")
        #expect(try scratch.cards(["clone", remote, device]).status == 0)
        let lock = NSLock()
        nonisolated(unsafe) var steps: [Step] = []
        let log = CommandLog()
        let started = ChildProcess.now()
        // Beside the writers: git itself keeps refreshing the index (`git status` takes index.lock), the
        // deck syncs over and over, and the other device adds a card and syncs over and over.
        let besides = Background(scratch: scratch) { scratch in
            _ = try? scratch.git(["status", "--porcelain"], in: deck)
        }
        defer { besides.stop() }
        let syncing = Background(scratch: scratch) { scratch in
            if let result = try? scratch.startCards(["sync"], in: deck).wait(timeout: 120) {
                log.record("deck sync", result)
            }
        }
        defer { syncing.stop() }
        let other = Background(scratch: scratch) { scratch in
            let id = log.nextDeviceID()
            if let added = try? scratch.startCards(
                ["add", "--id", id, "--title", "Device \(id.prefix(8))", "--url", "https://device.example"],
                in: device
            ).wait(timeout: 120) {
                log.record("device add", added, id: id)
            }
            if let synced = try? scratch.startCards(["sync"], in: device).wait(timeout: 120) {
                log.record("device sync", synced)
            }
        }
        defer { other.stop() }
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            var random = SplitMix64(seed: seed &+ UInt64(writer) &* 0x9E37_79B9)
            var live: [String] = []
            var mine: [Step] = []
            for number in 0..<perWriter {
                let roll = random.next() % 100
                var step: Step
                var arguments: [String]
                if live.isEmpty || roll < 40 {
                    let id = random.uuid()
                    let title = "W\(writer) add \(number)"
                    arguments = ["add", "--id", id, "--title", title, "--url", "https://w\(writer).example/\(number)"]
                    step = Step(writer: writer, operation: "add", id: id, title: title, status: -1, stderr: "")
                } else if roll < 75 {
                    let id = live[Int(random.next() % UInt64(live.count))]
                    let title = "W\(writer) edit \(number)"
                    arguments = ["edit", id, "--title", title]
                    step = Step(writer: writer, operation: "edit", id: id, title: title, status: -1, stderr: "")
                } else {
                    let index = Int(random.next() % UInt64(live.count))
                    let id = live[index]
                    arguments = ["delete", id]
                    step = Step(writer: writer, operation: "delete", id: id, title: nil, status: -1, stderr: "")
                }
                do {
                    let result = try scratch.startCards(arguments, in: deck).wait()
                    step.status = result.status ?? -1
                    step.stderr = result.stderr
                } catch {
                    step.stderr = "\(error)"
                }
                if step.status == 0 {
                    if step.operation == "add" { live.append(step.id) }
                    if step.operation == "delete" { live.removeAll { $0 == step.id } }
                }
                mine.append(step)
            }
            lock.lock()
            steps += mine
            lock.unlock()
        }
        let seconds = ChildProcess.now() - started
        let gitRuns = besides.stop()
        syncing.stop()
        other.stop()
        // Then sync until quiet: deck, device, deck.
        for side in [deck, device, deck] {
            let result = try scratch.startCards(["sync"], in: side).wait(timeout: 120)
            #expect(result.status == 0, "the final sync failed: \(result.stderr)")
        }
        #expect(try scratch.revParse(deck, "main") == scratch.revParse(remote, "main"))
        #expect(try scratch.revParse(device, "main") == scratch.revParse(remote, "main"))
        let syncs = log.results(prefix: "deck sync") + log.results(prefix: "device sync")
        let syncFailures = syncs.filter { $0.status != 0 }
        let reasons = Set(syncFailures.map { String($0.stderr.prefix(100)) })
        for reason in reasons { print("a sync beside the writers gave up: \(reason)") }
        for failure in syncFailures {
            // A sync may give up while the deck keeps moving under it, but only with a clear error.
            #expect(
                failure.status == 1 && failure.stderr.hasPrefix("Error: "), "a sync failed badly: \(failure.stderr)")
        }
        let failed = steps.filter { $0.status != 0 }
        for step in failed.prefix(5) {
            Issue.record("writer \(step.writer) \(step.operation) \(step.id) exited \(step.status): \(step.stderr)")
        }
        #expect(failed.isEmpty, "\(failed.count) of \(steps.count) commands failed")

        // Every command that exited 0 is one commit of main, with its op and card.
        let history = try Self.history(scratch, deck)
        var commitsFor: [String: Int] = [:]
        for commit in history { for id in commit.ids { commitsFor["\(commit.op) \(id)", default: 0] += 1 } }
        var acknowledged: [String: Int] = [:]
        for step in steps where step.status == 0 { acknowledged["\(step.operation) \(step.id)", default: 0] += 1 }
        var missing = 0
        for (key, count) in acknowledged where commitsFor[key, default: 0] != count {
            missing += 1
            Issue.record("\(key): \(count) acknowledged, \(commitsFor[key, default: 0]) in the history")
        }
        let writerOps = history.filter { ["add", "edit", "delete"].contains($0.op) }.flatMap(\.ids)
        let writerIDs = Set(steps.map(\.id))
        #expect(
            writerOps.filter { writerIDs.contains($0) }.count == steps.filter { $0.status == 0 }.count,
            "the history has other writer commits than the acknowledged ones")

        // The deck holds exactly each writer's last word on each of its cards, and every card the other
        // device was told it added.
        var expected: [String: String] = [:]
        for step in steps where step.status == 0 {
            if step.operation == "delete" { expected[step.id] = nil } else { expected[step.id] = step.title }
        }
        for id in log.acknowledgedDeviceIDs() { expected[id] = "Device \(id.prefix(8))" }
        let list = try scratch.cards(["list", "--json"], in: deck)
        let cards = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
        var present: [String: String] = [:]
        for card in cards { present[card["id"] as? String ?? ""] = card["title"] as? String }
        #expect(present == expected, "the deck differs from what the writers were told")

        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(fsck.status == 0, "cards fsck: \(fsck.stderr)")
        try scratch.expectClean(deck)
        let diff = try scratch.git(["diff", "--cached", "--quiet", "main"], in: deck)
        #expect(diff.status == 0, "the index differs from main")
        reportFigures(
            "concurrency",
            [
                "seed": "\(seed)", "writers": writers, "commands": steps.count,
                "acknowledged": steps.count - failed.count, "failed": failed.count, "missingFromHistory": missing,
                "seconds": (seconds * 10).rounded() / 10, "cardsAtEnd": present.count, "gitStatusRunsBeside": gitRuns,
                "syncsBeside": syncs.count, "syncsGaveUp": syncFailures.count,
                "deviceAdds": log.acknowledgedDeviceIDs().count,
            ])
    }

    @Test("the deck lock held too long: a clear error naming the lock file and the process holding it")
    func deckLockHeld() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let holder = try ChildProcess(
            "/usr/bin/flock", ["\(deck)/.git/cards.lock", "sleep", "20"], directory: deck,
            environment: scratch.environment, scratchDirectory: scratch.root)
        defer { holder.signal(SIGTERM) }
        try waitUntil { LockHolderProbe.isLocked("\(deck)/.git/cards.lock") }
        let before = try scratch.fingerprint(deck)
        let started = ChildProcess.now()
        let result = try scratch.cards(
            ["add", "--title", "Blocked", "--url", "https://blocked.example"], in: deck,
            extraEnvironment: ["CARDS_LOCK_TIMEOUT": "1"])
        #expect(ChildProcess.now() - started < 10)
        #expect(result.status == 1)
        #expect(result.stderr.contains(".git/cards.lock"), "\(result.stderr)")
        #expect(result.stderr.contains("process \(holder.pid) (flock)"), "\(result.stderr)")
        #expect(try scratch.fingerprint(deck) == before)
    }

    @Test(
        "on a terminal, a wait for the deck lock is told once, naming the holder; CARDS_LOCK_TIMEOUT=inf waits, then writes"
    )
    func deckLockWaitTold() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            try Test.cancel("script (util-linux) is not installed: it gives the command a terminal")
        }
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let holder = try ChildProcess(
            "/usr/bin/flock", ["\(deck)/.git/cards.lock", "sleep", "2"], directory: deck,
            environment: scratch.environment, scratchDirectory: scratch.root)
        defer {
            holder.signal(SIGTERM)
            _ = holder.wait()
        }
        try waitUntil { LockHolderProbe.isLocked("\(deck)/.git/cards.lock") }
        // script gives the command a terminal (its standard error one too); -e: its exit status.
        let command = "\"\(Binaries.cards)\" add --title Waited --url https://waited.example"
        let result = try scratch.run(
            "/usr/bin/script", ["-qec", command, "/dev/null"], in: deck, extraEnvironment: ["CARDS_LOCK_TIMEOUT": "inf"]
        )
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let told = result.stdout.components(separatedBy: "cards: waiting for process \(holder.pid) (flock)")
        #expect(told.count == 2, "\(result.stdout)")
        #expect(result.stdout.contains("for up to 1000000 s"), "\(result.stdout)")
        #expect(!result.stdout.contains("Fatal error"))
        #expect(try scratch.cards(["list"], in: deck).stdout.contains("Waited"))
    }

    @Test("a git lock held open by a live process: waited for, then named with its holder; nothing changes")
    func gitLocksHeld() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        for lock in ["index.lock", "refs/heads/main.lock"] {
            let path = "\(deck)/.git/\(lock)"
            let holder = try ChildProcess(
                "/bin/sh", ["-c", "exec 3>\"$0\"; exec sleep 600", path], directory: deck,
                environment: scratch.environment, scratchDirectory: scratch.root)
            try waitUntil { FileManager.default.fileExists(atPath: path) }
            let before = try scratch.fingerprint(deck)
            let result = try scratch.cards(
                ["add", "--title", "Blocked", "--url", "https://blocked.example"], in: deck,
                extraEnvironment: ["CARDS_LOCK_TIMEOUT": "1"])
            #expect(result.status == 1)
            #expect(result.stderr.contains(path), "\(result.stderr)")
            #expect(result.stderr.contains("process \(holder.pid) (sleep)"), "\(result.stderr)")
            #expect(result.stderr.contains("nothing was changed"), "\(result.stderr)")
            #expect(try scratch.fingerprint(deck) == before)
            // fsck names the holder and --repair leaves a lock in use alone.
            let repair = try scratch.cards(["fsck", "--repair"], in: deck)
            #expect(repair.status == 1 && repair.stderr.contains("held by process \(holder.pid)"), "\(repair.stderr)")
            #expect(FileManager.default.fileExists(atPath: path))
            holder.signal(SIGKILL)
            _ = holder.wait()
            unlink(path)
            #expect(
                try scratch.cards(["add", "--title", "Free", "--url", "https://free.example"], in: deck).status == 0)
        }
    }

    @Test("a stale git lock nobody holds (a killed git): named, removed by fsck --repair, then commands work")
    func staleGitLock() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let path = "\(deck)/.git/refs/heads/main.lock"
        writeFileCloseOnExec(path, "0000000000000000000000000000000000000000\n")
        let before = try scratch.fingerprint(deck)
        let blocked = try scratch.cards(
            ["add", "--title", "Blocked", "--url", "https://blocked.example"], in: deck,
            extraEnvironment: ["CARDS_LOCK_TIMEOUT": "0.5"])
        #expect(blocked.status == 1)
        #expect(blocked.stderr.contains(path) && blocked.stderr.contains("no process has it open"), "\(blocked.stderr)")
        #expect(blocked.stderr.contains("cards fsck --repair"))
        #expect(try scratch.fingerprint(deck) == before)
        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(fsck.status == 1 && fsck.stderr.contains(path))
        let repair = try scratch.cards(["fsck", "--repair"], in: deck)
        #expect(repair.status == 0 && repair.stdout.contains("removed the stale lock"), "\(repair.stderr)")
        #expect(try scratch.cards(["add", "--title", "Free", "--url", "https://free.example"], in: deck).status == 0)
        try scratch.expectClean(deck)
    }

    func waitUntil(_ condition: () -> Bool) throws {
        let deadline = ChildProcess.now() + 10
        while !condition() {
            if ChildProcess.now() > deadline { throw CancellationError() }
            usleep(10_000)
        }
    }
}

/// What the commands run beside the writers did, kept across threads.
final class CommandLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(what: String, result: ChildProcess.Result, id: String?)] = []
    private var random = SplitMix64(seed: 0xC0FFEE)

    func record(_ what: String, _ result: ChildProcess.Result, id: String? = nil) {
        lock.lock()
        entries.append((what, result, id))
        lock.unlock()
    }

    func nextDeviceID() -> String {
        lock.lock()
        defer { lock.unlock() }
        return random.uuid()
    }

    func results(prefix: String) -> [ChildProcess.Result] {
        lock.lock()
        defer { lock.unlock() }
        return entries.filter { $0.what.hasPrefix(prefix) }.map(\.result)
    }

    func acknowledgedDeviceIDs() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries.compactMap { $0.result.status == 0 ? $0.id : nil }
    }
}

/// Runs a job over and over on a thread of its own until stopped; counts the runs.
final class Background: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopping = false
    private var finished = false
    private var runs = 0

    init(scratch: Scratch, _ job: @escaping @Sendable (Scratch) -> Void) {
        let thread = Thread { [self] in
            while true {
                condition.lock()
                let stop = stopping
                condition.unlock()
                if stop { break }
                job(scratch)
                condition.lock()
                runs += 1
                condition.unlock()
            }
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        thread.start()
    }

    /// Stops the loop, waits for the job in progress, and returns how many runs completed.
    @discardableResult
    func stop() -> Int {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        while !finished { condition.wait() }
        return runs
    }
}

/// Whether some process holds a `flock` on a file (tried without blocking).
enum LockHolderProbe {
    static func isLocked(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return true
    }
}
