import TestSupport
import Foundation
import Glibc
import Testing

/// `cards` killed with SIGKILL at random moments of add, delete, import and merge, with fsync on:
/// after each kill every acknowledged change is there, the killed one is all or nothing, `cards fsck`
/// names any leftover and `cards fsck --repair` clears it, and the next command works.
/// `CARDS_KILLS` sets how many kills (default 40 in CI; `./dev reliability` runs 200),
/// `CARDS_SEED` replays a run.
@Suite("Crash safety")
struct CrashSafetyTests {
    enum Operation: String, CaseIterable {
        case add, delete, `import`, merge, sync
    }

    struct Figures {
        var kills = 0
        var finishedBeforeKill = 0
        var killedAfterPublish = 0
        var leftovers: [String: Int] = [:]
        var repairs = 0
        var nextCommandWithoutRepair = 0
        var changesLost = 0
        var byOperation: [String: Int] = [:]
        var outlivedByGit = 0
    }

    @Test("SIGKILL during add, delete, import and merge loses nothing and leaves nothing half-written")
    func killsDuringWrites() throws {
        let wanted = environmentCount("CARDS_KILLS", default: 40)
        let seed = environmentSeed()
        print("crash safety: \(wanted) kills, CARDS_SEED=\(seed)")
        var random = SplitMix64(seed: seed)
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let other = scratch.path("other")
        #expect(try scratch.git(["clone", "-q", deck, other], in: scratch.root).status == 0)
        // A bare remote by path, and a second device that pushes to it, for the sync kills.
        let remote = scratch.path("remote.git")
        try scratch.gitChecked(["init", "-q", "--bare", "-b", "main", remote], in: scratch.root)
        try scratch.gitChecked(["push", "-q", remote, "main"], in: deck)
        #expect(try scratch.cards(["remote", "add", "origin", remote], in: deck).status == 0)
        let device = scratch.path("device")
        #expect(try scratch.cards(["clone", remote, device]).status == 0)
        var remoteBefore = ""
        let durable = ["CARDS_FSYNC": "1"]
        var model = try scratch.cardIDs(deck)
        var estimates: [Operation: Double] = [.add: 0.03, .delete: 0.03, .import: 0.05, .merge: 0.05, .sync: 0.08]
        var figures = Figures()
        var serial = 0
        var attempts = 0
        while figures.kills < wanted && attempts < wanted * 5 {
            attempts += 1
            let context = "seed \(seed), attempt \(attempts)"
            let operation = Operation.allCases[Int(random.next() % UInt64(Operation.allCases.count))]
            var arguments: [String]
            var after = model
            var incoming: String?
            switch operation {
            case .add:
                let id = random.uuid()
                serial += 1
                arguments = ["add", "--id", id, "--title", "Kill \(serial)", "--url", "https://kill.example/\(serial)"]
                after.insert(id)
            case .delete:
                let candidates = model.sorted()
                guard candidates.count > 8 else { continue }
                var picked: Set<String> = []
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    picked.insert(candidates[Int(random.next() % UInt64(candidates.count))])
                }
                arguments = ["delete"] + picked.sorted()
                after.subtract(picked)
            case .import:
                var lines: [String] = []
                // Half of them big enough (256 cards and more) for the pack and bulk working-tree path.
                let size = random.next() % 2 == 0 ? 10 + Int(random.next() % 40) : 256 + Int(random.next() % 150)
                for _ in 0..<size {
                    let id = random.uuid()
                    serial += 1
                    lines.append(
                        "{\"id\": \"\(id)\", \"title\": \"Imported \(serial)\", \"indexURL\": \"https://imp.example/\(serial)\"}"
                    )
                    after.insert(id)
                }
                let file = scratch.path("import-\(attempts).jsonl")
                try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
                arguments = ["import", file]
            case .merge:
                // The other device catches up with the deck, adds two cards; the deck fetches them as
                // `incoming`, and half the time makes a commit of its own first so the merge is a real one.
                try scratch.gitChecked(["fetch", "-q", "origin"], in: other)
                try scratch.gitChecked(["reset", "-q", "--hard", "origin/main"], in: other)
                for _ in 0..<2 {
                    let id = random.uuid()
                    serial += 1
                    let added = try scratch.cards(
                        ["add", "--id", id, "--title", "Other \(serial)", "--url", "https://other.example/\(serial)"],
                        in: other)
                    #expect(added.status == 0, "\(context): \(added.stderr)")
                    after.insert(id)
                }
                try scratch.gitChecked(["fetch", "-q", other, "+main:refs/heads/incoming"], in: deck)
                if random.next() % 2 == 0 {
                    let id = random.uuid()
                    let local = try scratch.cards(
                        ["add", "--id", id, "--title", "Local \(serial)", "--url", "https://local.example/\(serial)"],
                        in: deck)
                    #expect(local.status == 0, "\(context): \(local.stderr)")
                    model.insert(id)
                    after.insert(id)
                }
                incoming = try scratch.revParse(deck, "refs/heads/incoming")
                arguments = ["merge", "incoming"]
            case .sync:
                // The other device syncs (taking what the deck pushed before) and adds two cards, so the
                // deck's sync fetches, merges (or fast-forwards) and pushes.
                let caughtUp = try scratch.cards(["sync"], in: device)
                #expect(caughtUp.status == 0, "\(context): the device's sync failed: \(caughtUp.stderr)")
                for _ in 0..<2 {
                    let id = random.uuid()
                    serial += 1
                    let added = try scratch.cards(
                        [
                            "add", "--id", id, "--title", "Device \(serial)", "--url",
                            "https://device.example/\(serial)",
                        ],
                        in: device)
                    #expect(added.status == 0, "\(context): \(added.stderr)")
                    after.insert(id)
                }
                let pushed = try scratch.cards(["sync"], in: device)
                #expect(pushed.status == 0, "\(context): the device's sync failed: \(pushed.stderr)")
                // The expected result of the three-way merge of card sets (nothing is edited here): a card
                // stays when both sides have it or one side added it since the merge base.
                try scratch.gitChecked(["fetch", "-q", remote, "+main:refs/test/remote"], in: deck)
                let baseCommit = try scratch.git(["merge-base", "main", "refs/test/remote"], in: deck).stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                let base = try scratch.cardIDs(deck, at: baseCommit)
                let theirs = try scratch.cardIDs(deck, at: "refs/test/remote")
                after = model.union(theirs).filter { id in
                    (model.contains(id) && theirs.contains(id)) || !base.contains(id)
                }
                incoming = try scratch.revParse(remote, "main")
                arguments = ["sync"]
            }
            remoteBefore = try scratch.revParse(remote, "main")
            let before = try scratch.revParse(deck, "main")
            let estimate = estimates[operation] ?? 0.03
            let child = try scratch.startCards(arguments, in: deck, extraEnvironment: durable, ownGroup: true)
            // Most of a short command's life is start-up: aim the kill over its whole run, a little past it.
            let delay = estimate * Double(random.next() % 1100) / 1000
            usleep(UInt32(delay * 1_000_000))
            child.signal(SIGKILL)
            let result = child.wait()
            // A killed sync's `git push` goes on alone, as after any `kill -9` of a program that runs git:
            // the remote is looked at once it has finished, not while it may still move.
            if child.waitForGroup() { figures.outlivedByGit += 1 }
            if result.wasKilled {
                figures.kills += 1
                figures.byOperation[operation.rawValue, default: 0] += 1
            } else {
                figures.finishedBeforeKill += 1
                estimates[operation] = result.seconds
                #expect(result.status == 0, "\(context): \(arguments) failed: \(result.stderr)")
            }
            // What the killed command left on main (read by git, which changes nothing).
            let head = try scratch.revParse(deck, "main")
            let moved = head != before
            if result.status == 0 {
                #expect(moved, "\(context): \(operation) exited 0 but main did not move")
            }
            if moved {
                if result.wasKilled { figures.killedAfterPublish += 1 }
                if operation == .merge || operation == .sync, let incoming, head == incoming {
                    // A fast-forward.
                } else {
                    #expect(
                        try scratch.revParse(deck, "\(head)^1") == before,
                        "\(context): main moved by more than one commit")
                    if let incoming {
                        #expect(
                            try scratch.revParse(deck, "\(head)^2") == incoming, "\(context): not a merge of incoming")
                    }
                }
            }
            let present = try scratch.cardIDs(deck, at: head)
            let expected = moved ? after : model
            if present != expected {
                figures.changesLost += expected.subtracting(present).count
                let state = moved ? "published" : "not published"
                let extra = present.subtracting(expected).count
                let missing = expected.subtracting(present).count
                Issue.record(
                    "\(context): \(operation) (\(state)) left \(extra) unexpected and \(missing) missing cards")
            }
            model = present
            // The remote is whole, and its main is where it was or what the deck made.
            let remoteNow = try scratch.revParse(remote, "main")
            #expect(remoteNow == remoteBefore || remoteNow == head, "\(context): the remote's main is elsewhere")
            let remoteFsck = try scratch.git(["fsck", "--no-dangling"], in: remote)
            #expect(remoteFsck.status == 0, "\(context): the remote is damaged: \(remoteFsck.stderr)")

            // Half the time the next command is a write, run before any check or repair: it must work.
            if result.wasKilled && random.next() % 2 == 0 {
                let id = random.uuid()
                let next = try scratch.cards(
                    ["add", "--id", id, "--title", "Next \(attempts)", "--url", "https://next.example"], in: deck)
                #expect(next.status == 0, "\(context): the next command after a kill failed: \(next.stderr)")
                if next.status == 0 { model.insert(id) }
                figures.nextCommandWithoutRepair += 1
            }

            let fsck = try scratch.cards(["fsck"], in: deck)
            if fsck.status != 0 {
                var kinds: Set<String> = []
                for line in fsck.stderr.split(separator: "\n") where line.hasPrefix("problem:") {
                    let kind: String
                    if let lock = line.split(separator: "/").last(where: { $0.contains(".lock") }) {
                        kind = "stale " + String(lock.prefix { $0 != ":" })
                    } else if line.contains("cards-pending") {
                        kind = "interrupted write flag"
                    } else if line.contains("temp file") {
                        kind = "temp file"
                    } else if line.contains("without its index") {
                        kind = "pack without its index"
                    } else if line.contains(".keep: left on a pack by an interrupted write") {
                        kind = "pack .keep of a killed write"
                    } else if line.contains("behind") {
                        kind = "working tree behind main"
                    } else {
                        kind = "other"
                    }
                    kinds.insert(kind)
                    #expect(kind != "other", "\(context): fsck found an unexpected problem: \(line)")
                }
                for kind in kinds { figures.leftovers[kind, default: 0] += 1 }
                let repair = try scratch.cards(["fsck", "--repair"], in: deck)
                #expect(repair.status == 0, "\(context): fsck --repair failed: \(repair.stdout)\(repair.stderr)")
                figures.repairs += 1
                let again = try scratch.cards(["fsck"], in: deck)
                #expect(again.status == 0, "\(context): fsck after --repair: \(again.stderr)")
            }
            let garbage = try scratch.git(["count-objects", "-v"], in: deck).stdout
            #expect(garbage.contains("garbage: 0"), "\(context): temp files left in .git/objects: \(garbage)")
            let final = try scratch.cardIDs(deck)
            if final != model {
                figures.changesLost += model.subtracting(final).count
                Issue.record(
                    "\(context): after the next command and the repair, the cards differ from what was acknowledged")
                model = final
            }
            try scratch.expectClean(deck)
        }
        #expect(figures.kills >= wanted, "only \(figures.kills) kills landed in \(attempts) attempts")
        // After all that, a sync on each side brings the deck, the device and the remote together.
        for side in [deck, device, deck] {
            let sync = try scratch.cards(["sync"], in: side)
            #expect(sync.status == 0, "the final sync failed: \(sync.stderr)")
        }
        #expect(try scratch.revParse(deck, "main") == scratch.revParse(remote, "main"))
        #expect(try scratch.revParse(device, "main") == scratch.revParse(remote, "main"))
        try scratch.expectClean(device)
        reportFigures(
            "crash",
            [
                "seed": "\(seed)", "kills": figures.kills, "finishedBeforeKill": figures.finishedBeforeKill,
                "killedAfterPublish": figures.killedAfterPublish, "leftovers": figures.leftovers,
                "repairs": figures.repairs, "nextCommandWithoutRepair": figures.nextCommandWithoutRepair,
                "changesLost": figures.changesLost, "killsByOperation": figures.byOperation,
                "outlivedByGit": figures.outlivedByGit,
                "cardsAtEnd": model.count,
            ])
    }

    @Test(
        "a fast-forward of several commits whose flag was lost: the next write brings the files along, never reverts them"
    )
    func lostFlagAfterFastForward() throws {
        let scratch = try Scratch()
        let (_, clones) = try scratch.remoteAndClones(["a", "b"])
        let (a, b) = (clones[0], clones[1])
        let ids = try scratch.cardIDs(b).sorted()
        #expect(try scratch.cards(["add", "--title", "On A", "--url", "https://a.example"], in: a).status == 0)
        #expect(try scratch.cards(["sync"], in: a).status == 0)
        #expect(try scratch.cards(["sync"], in: b).status == 0)
        #expect(try scratch.cards(["edit", ids[2], "--title", "From B, third"], in: b).status == 0)
        #expect(try scratch.cards(["edit", ids[3], "--title", "From B, fourth"], in: b).status == 0)
        #expect(try scratch.cards(["sync"], in: b).status == 0)
        // A's files, index and record as they were before its fast-forward, put back after it: a crash
        // after main moved, the flag lost.
        let saved = scratch.path("saved")
        try FileManager.default.createDirectory(atPath: saved, withIntermediateDirectories: true)
        let files = [a + "/cards", a + "/.git/index", a + "/.git/cards-index-tree"]
        #expect(try scratch.run("/bin/cp", ["-a"] + files + [saved]).status == 0)
        #expect(try scratch.cards(["sync"], in: a).stdout.contains("Fast-forwarded"))
        try FileManager.default.removeItem(atPath: a + "/cards")
        #expect(try scratch.run("/bin/cp", ["-a", saved + "/cards", a + "/cards"]).status == 0)
        #expect(
            try scratch.run("/bin/cp", ["-a", saved + "/index", saved + "/cards-index-tree", a + "/.git/"]).status == 0)
        let status = try scratch.cards(["status"], in: a)
        #expect(status.stdout.contains("was interrupted"), "\(status.stdout)")
        #expect(try scratch.cards(["commit"], in: a).stdout.contains("Nothing to commit"))
        for (index, title) in ["From B, third", "From B, fourth"].enumerated() {
            let shown = try String(
                contentsOfFile: a + "/cards/\(ids[index + 2].prefix(2))/\(ids[index + 2]).json", encoding: .utf8)
            #expect(shown.contains(title), "B's edit on disk: \(shown)")
        }
        try scratch.expectClean(a)
    }

    @Test(
        "a bare deck: a writer killed holding its branch's lock left its flag (its pid alone); the next write clears both",
        arguments: ["main", "master"])
    func bareInterruptedWrite(branch: String) throws {
        let scratch = try Scratch()
        let deck = scratch.path("bare.git")
        #expect(try scratch.cards(["init", "--bare", deck, "--from", Binaries.sampleRepo]).status == 0)
        // A deck on another branch (HEAD's, as a repository git made with `master`): its own lock is the one.
        if branch != "main" { #expect(try scratch.git(["branch", "-m", "main", branch], in: deck).status == 0) }
        let lock = deck + "/refs/heads/\(branch).lock"
        let before = try scratch.cards(["--deck", deck, "list", "--json"]).stdout
        // A write of a bare deck names no paths in its flag: there is no working tree or index to bring along.
        // As a kill between taking main.lock and renaming it leaves the deck: the flag, then the lock.
        try "pid 999999\n".write(toFile: deck + "/cards-pending", atomically: true, encoding: .utf8)
        usleep(20_000)
        writeFileCloseOnExec(lock, "0000000000000000000000000000000000000000\n")
        let fsck = try scratch.cards(["--deck", deck, "fsck"])
        #expect(fsck.status == 1 && fsck.stderr.contains("was interrupted"), "\(fsck.stdout)\(fsck.stderr)")
        let add = try scratch.cards(["--deck", deck, "add", "--title", "After", "--url", "https://after.example"])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(!FileManager.default.fileExists(atPath: deck + "/cards-pending"), "flag left")
        #expect(!FileManager.default.fileExists(atPath: lock), "\(branch).lock left")
        let after = try scratch.cards(["--deck", deck, "list", "--json"]).stdout
        #expect(after.contains("After") && after.count > before.count)
        #expect(try scratch.cards(["--deck", deck, "fsck"]).status == 0)
    }

    @Test(
        "temp files a killed pack write left (ours, libgit2's, git's) ten minutes ago are removed by the next write; a fresh one, and an old one a process has open, stay"
    )
    func packTempFilesLeft() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let folder = deck + "/.git/objects/pack"
        // Written 11 minutes ago, closed, never renamed.
        func leave(_ name: String, minutesAgo: Double) -> String {
            let path = "\(folder)/\(name)"
            _ = FileManager.default.createFile(atPath: path, contents: Data("PACK".utf8))
            let then = Date().addingTimeInterval(-minutesAgo * 60)
            try? FileManager.default.setAttributes([.modificationDate: then], ofItemAtPath: path)
            return path
        }
        let left = ["tmp_cards_pack_Ab12Cd", "pack_git2_x1y2z3", "tmp_pack_q9w8e7"].map { leave($0, minutesAgo: 11) }
        // Closed a moment ago: a writer between closing it and renaming it into place.
        let fresh = leave("tmp_cards_pack_Fresh1", minutesAgo: 0)
        let open = leave("tmp_cards_pack_Busy01", minutesAgo: 11)
        // A writer still at it: its file open.
        let writer = try ChildProcess(
            "/bin/sh", ["-c", "exec 3<\"$0\"; exec sleep 600", open], directory: deck, environment: [:],
            scratchDirectory: scratch.root)
        defer {
            writer.signal(SIGKILL)
            _ = writer.wait()
        }
        let deadline = Date().addingTimeInterval(10)
        while LockFilesOpeners.count(open) == 0 && Date() < deadline { usleep(10_000) }
        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(fsck.status == 1 && fsck.stderr.contains("tmp_cards_pack_Ab12Cd"), "\(fsck.stdout)\(fsck.stderr)")
        #expect(try scratch.cards(["add", "--title", "After", "--url", "https://after.example"], in: deck).status == 0)
        for path in left { #expect(!FileManager.default.fileExists(atPath: path), "\(path) left") }
        #expect(FileManager.default.fileExists(atPath: open), "a file being written was removed")
        #expect(FileManager.default.fileExists(atPath: fresh), "a file about to be renamed was removed")
        writer.signal(SIGKILL)
        _ = writer.wait()
        #expect(try scratch.cards(["add", "--title", "Later", "--url", "https://later.example"], in: deck).status == 0)
        #expect(!FileManager.default.fileExists(atPath: open))
        #expect(FileManager.default.fileExists(atPath: fresh))
        #expect(try scratch.cards(["fsck", "--repair"], in: deck).status == 0)
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
    }

    @Test(
        "a write interrupted after main moved is finished, never committed as hand deletions (flag kept, its pid reused, or lost)"
    )
    func interruptedWriteIsNotHandDeletions() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let file = scratch.path("more.jsonl")
        try (0..<50).map { "{\"title\": \"More \($0)\", \"indexURL\": \"https://m.example/\($0)\"}" }
            .joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try scratch.cards(["import", file], in: deck).status == 0)
        let expected = try scratch.cardIDs(deck)
        #expect(expected.count == 66)
        // As a crash leaves it: main moved, the index and working tree still as main's parent had them.
        func interrupt(flag pid: Int32?) throws {
            try scratch.gitChecked(["read-tree", "main^"], in: deck)
            try scratch.gitChecked(["clean", "-fdq", "cards"], in: deck)
            if let pid {
                try "pid \(pid)\n".write(toFile: deck + "/.git/cards-pending", atomically: true, encoding: .utf8)
            }
        }
        // The flag names a process that runs (its pid used again): writes finish the write under the deck lock.
        let other = try ChildProcess(
            "/bin/sleep", ["600"], directory: deck, environment: [:], scratchDirectory: scratch.root)
        try interrupt(flag: other.pid)
        let commit = try scratch.cards(["commit"], in: deck)
        #expect(commit.status == 0 && commit.stdout.contains("Nothing to commit"), "\(commit.stdout)\(commit.stderr)")
        #expect(try scratch.cardIDs(deck) == expected)
        try scratch.expectClean(deck)
        other.signal(SIGKILL)
        _ = other.wait()
        // Its git index lock left too (younger than the flag, nobody has it open): cleared, not waited for.
        let alive = try ChildProcess(
            "/bin/sleep", ["600"], directory: deck, environment: [:], scratchDirectory: scratch.root)
        try interrupt(flag: alive.pid)
        usleep(20_000)
        _ = FileManager.default.createFile(atPath: deck + "/.git/index.lock", contents: nil)
        let add = try scratch.cards(["add", "--title", "Lock", "--url", "https://l.example"], in: deck)
        #expect(add.status == 0, "\(add.stderr)")
        alive.signal(SIGKILL)
        _ = alive.wait()
        #expect(try scratch.cardIDs(deck).isSuperset(of: expected))
        try scratch.expectClean(deck)
        // The flag lost, and no record of the index the last write left (a deck from before the record):
        // status and commit refuse and say how to finish; fsck (without --repair) reports; fsck --repair
        // does it. (With a record, an index changed since it is the user's: see the next two cases.)
        try interrupt(flag: nil)
        try FileManager.default.removeItem(atPath: deck + "/.git/cards-index-tree")
        for arguments in [["status"], ["commit"]] {
            let refused = try scratch.cards(arguments, in: deck)
            #expect(
                refused.status == 1 && refused.stderr.contains("`cards fsck --repair` finishes that"),
                "\(refused.stderr)")
        }
        #expect(try scratch.cardIDs(deck).isSuperset(of: expected), "nothing committed")
        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(fsck.status == 1 && fsck.stderr.contains("behind"), "\(fsck.stderr)")
        #expect(!fsck.stderr.contains("Error: reading") && !fsck.stderr.contains("finishes that"), "\(fsck.stderr)")
        #expect(try scratch.cards(["fsck", "--repair"], in: deck).status == 0)
        try scratch.expectClean(deck)
        // A crash as it really leaves it with the flag lost: main moved, the index and the record of what it
        // follows both still the write before's (a copy taken then, put back). The next write finishes it.
        #expect(try scratch.cards(["add", "--title", "Before", "--url", "https://b.example"], in: deck).status == 0)
        let savedIndex = try Data(contentsOf: URL(fileURLWithPath: deck + "/.git/index"))
        let savedRecord = try Data(contentsOf: URL(fileURLWithPath: deck + "/.git/cards-index-tree"))
        #expect(try scratch.cards(["import", file], in: deck).status == 0)
        let imported = try scratch.cardIDs(deck)
        try savedIndex.write(to: URL(fileURLWithPath: deck + "/.git/index"))
        try savedRecord.write(to: URL(fileURLWithPath: deck + "/.git/cards-index-tree"))
        try scratch.gitChecked(["clean", "-fdq", "cards"], in: deck)
        #expect(
            try scratch.cards(["add", "--title", "After a crash", "--url", "https://c.example"], in: deck).status == 0)
        for id in imported {
            #expect(FileManager.default.fileExists(atPath: deck + "/cards/\(id.prefix(2))/\(id).json"), "\(id) on disk")
        }
        try scratch.expectClean(deck)
        // Main moved back by hand (`git reset --soft`) with the index the last write left: the user's staged
        // state, not an interrupted write; nothing is touched.
        let typoID = try #require(imported.sorted().first)
        let typoFile = deck + "/cards/\(typoID.prefix(2))/\(typoID).json"
        let title = try #require(
            try scratch.cards(["show", typoID, "--json"], in: deck).stdout.split(separator: "\n")
                .first { $0.contains("\"title\"") })
        #expect(try scratch.cards(["edit", typoID, "--title", "Typo"], in: deck).status == 0)
        try scratch.gitChecked(["checkout", "-q", "HEAD~1", "--", "cards"], in: deck)
        try scratch.gitChecked(["commit", "-q", "-m", "title back by hand"], in: deck)
        #expect(try scratch.cards(["edit", typoID, "--title", "Typo"], in: deck).status == 0)
        try scratch.gitChecked(["reset", "-q", "--soft", "HEAD~1"], in: deck)
        #expect(
            try scratch.cards(["add", "--title", "After a reset", "--url", "https://r.example"], in: deck).status == 0)
        #expect(try String(contentsOfFile: typoFile, encoding: .utf8).contains("Typo"), "the user's file kept")
        #expect(!(try String(contentsOfFile: typoFile, encoding: .utf8).contains(String(title))))
        let kept = try scratch.cards(["commit"], in: deck)
        #expect(kept.status == 0 && kept.stdout.contains("Committed 1 hand edit"), "\(kept.stdout)\(kept.stderr)")
        try scratch.expectClean(deck)
        // The flag there, its writer gone: status says a write is pending, not 50 deletions.
        try interrupt(flag: 999_999)
        let status = try scratch.cards(["status"], in: deck)
        #expect(status.stdout.contains("was interrupted") && !status.stdout.contains("deleted"), "\(status.stdout)")
        #expect(try scratch.cards(["add", "--title", "After", "--url", "https://a.example"], in: deck).status == 0)
        #expect(try scratch.cardIDs(deck).isSuperset(of: expected))
        try scratch.expectClean(deck)
    }
}

extension CrashSafetyTests {
    @Test(
        "cards init into a new folder killed at any moment: the folder is a whole deck or not there, and init runs again"
    )
    func killedInit() throws {
        let scratch = try Scratch()
        var whole = 0
        var absent = 0
        for attempt in 0..<24 {
            let deck = scratch.path("deck\(attempt)")
            let child = try scratch.startCards(["init", deck, "--from", Binaries.sampleRepo], in: scratch.root)
            usleep(UInt32(attempt % 12) * 4_000)
            child.signal(attempt % 2 == 0 ? SIGKILL : SIGINT)
            _ = child.wait()
            if FileManager.default.fileExists(atPath: deck) {
                whole += 1
                let fsck = try scratch.cards(["fsck"], in: deck)
                #expect(fsck.status == 0, "attempt \(attempt): \(fsck.stdout)\(fsck.stderr)")
                #expect(try scratch.cardIDs(deck).count == 16, "attempt \(attempt): not every card")
            } else {
                absent += 1
                let again = try scratch.cards(["init", deck, "--from", Binaries.sampleRepo], in: scratch.root)
                #expect(again.status == 0, "attempt \(attempt): \(again.stderr)")
                #expect(try scratch.cardIDs(deck).count == 16)
            }
        }
        // The hidden folders the killed ones left are gone once init ran again for their name.
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.root).filter {
            $0.contains(".cards-init-")
        }
        #expect(left.isEmpty, "\(left)")
        #expect(whole + absent == 24)
    }

    @Test(
        "changes staged by hand (a new file, a card edit) survive the finishing of an interrupted write and fsck --repair"
    )
    func stagedChangesSurviveRecovery() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let file = scratch.path("more.jsonl")
        try (0..<5).map { "{\"title\": \"More \($0)\", \"indexURL\": \"https://m.example/\($0)\"}" }
            .joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let edited = try #require(try scratch.cardIDs(deck).sorted().first)
        let editedPath = "cards/\(edited.prefix(2))/\(edited).json"
        /// Stages a new file and an edit of a card no write here touches.
        func stageByHand(_ round: String) throws -> String {
            try "my notes \(round)\n".write(toFile: deck + "/notes.txt", atomically: true, encoding: .utf8)
            let card = try String(contentsOfFile: deck + "/" + editedPath, encoding: .utf8)
            let handTitle = "Staged by hand \(round)"
            let retitled = card.replacingOccurrences(
                of: #""title"\s*:\s*"[^"]*""#, with: "\"title\": \"\(handTitle)\"", options: .regularExpression)
            #expect(retitled != card)
            try retitled.write(toFile: deck + "/" + editedPath, atomically: true, encoding: .utf8)
            try scratch.gitChecked(["add", "notes.txt", editedPath], in: deck)
            return handTitle
        }
        func expectKept(_ round: String, _ handTitle: String, expected: Set<String>) throws {
            #expect(try scratch.cardIDs(deck).isSuperset(of: expected), "\(round)")
            for id in expected where id != edited {
                #expect(
                    FileManager.default.fileExists(atPath: deck + "/cards/\(id.prefix(2))/\(id).json"),
                    "\(round): \(id)")
            }
            #expect(try String(contentsOfFile: deck + "/notes.txt", encoding: .utf8) == "my notes \(round)\n")
            #expect(
                try String(contentsOfFile: deck + "/" + editedPath, encoding: .utf8).contains(handTitle), "\(round)")
            let staged = try scratch.git(["diff", "--cached", "--name-only"], in: deck).stdout
            #expect(
                staged.split(separator: "\n").sorted() == [Substring(editedPath), "notes.txt"], "\(round): \(staged)")
            // Put back as it was for the next round: the edit dropped, the notes gone.
            try scratch.gitChecked(["reset", "-q"], in: deck)
            try scratch.gitChecked(["checkout", "-q", "--", editedPath], in: deck)
            try FileManager.default.removeItem(atPath: deck + "/notes.txt")
            try scratch.expectClean(deck)
        }

        // A write killed after main moved, by a version that moved main first: its flag there, the index and
        // files still as main's parent had them; then the user stages changes. The next write finishes it.
        #expect(try scratch.cards(["import", file], in: deck).status == 0)
        var expected = try scratch.cardIDs(deck)
        try scratch.gitChecked(["read-tree", "main^"], in: deck)
        try scratch.gitChecked(["clean", "-fdq", "cards"], in: deck)
        var title = try stageByHand("flag")
        try "pid 999999\n".write(toFile: deck + "/.git/cards-pending", atomically: true, encoding: .utf8)
        let add = try scratch.cards(["add", "--title", "Next", "--url", "https://n.example"], in: deck)
        #expect(add.status == 0, "\(add.stderr)")
        try expectKept("flag", title, expected: expected)

        // The flag lost: changes staged before the last write, recorded with its index; the next write's files
        // and index never written. fsck --repair brings the files along and keeps what was staged.
        title = try stageByHand("lost")
        #expect(try scratch.cards(["add", "--title", "Before", "--url", "https://b.example"], in: deck).status == 0)
        let savedIndex = try Data(contentsOf: URL(fileURLWithPath: deck + "/.git/index"))
        let savedRecord = try Data(contentsOf: URL(fileURLWithPath: deck + "/.git/cards-index-tree"))
        #expect(try scratch.cards(["import", file], in: deck).status == 0)
        expected = try scratch.cardIDs(deck)
        try savedIndex.write(to: URL(fileURLWithPath: deck + "/.git/index"))
        try savedRecord.write(to: URL(fileURLWithPath: deck + "/.git/cards-index-tree"))
        try scratch.gitChecked(["clean", "-fdq", "cards"], in: deck)
        let repair = try scratch.cards(["fsck", "--repair"], in: deck)
        #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
        try expectKept("lost", title, expected: expected)

        // A staged edit that takes a card back to what main's parent had is the user's, not a write left
        // behind: fsck reports nothing and --repair keeps it.
        let reverted = try #require(expected.sorted().last)
        let revertedPath = "cards/\(reverted.prefix(2))/\(reverted).json"
        #expect(try scratch.cards(["edit", reverted, "--title", "Changed"], in: deck).status == 0)
        try scratch.gitChecked(["checkout", "-q", "main^", "--", revertedPath], in: deck)
        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(!fsck.stderr.contains("behind"), "\(fsck.stderr)")
        #expect(try scratch.cards(["fsck", "--repair"], in: deck).status == 0)
        #expect(!(try String(contentsOfFile: deck + "/" + revertedPath, encoding: .utf8).contains("Changed")))
        #expect(try scratch.git(["diff", "--cached", "--name-only"], in: deck).stdout == revertedPath + "\n")
        try scratch.gitChecked(["reset", "-q", "--hard"], in: deck)

        // `git commit` run beside an add read the index before the add and wrote it back after (its own
        // commit then failed): the index lacks the card main has, its file is there. fsck names it, and
        // --repair stages it again, so the next `git commit` cannot delete it.
        let before = try Data(contentsOf: URL(fileURLWithPath: deck + "/.git/index"))
        let added = try scratch.cards(["add", "--title", "Beside git", "--url", "https://g.example"], in: deck)
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try before.write(to: URL(fileURLWithPath: deck + "/.git/index"))
        #expect(
            try scratch.git(["status", "--porcelain"], in: deck).stdout.contains("D  cards/\(id.prefix(2))/\(id).json"))
        let found = try scratch.cards(["fsck"], in: deck)
        #expect(found.status == 1 && found.stderr.contains(id), "\(found.stderr)")
        #expect(try scratch.cards(["fsck", "--repair"], in: deck).status == 0)
        try scratch.expectClean(deck)
    }
}

extension Scratch {
    /// The ids of the cards on `main`, read by the git CLI.
    func cardIDs(_ deck: String, at revision: String = "main") throws -> Set<String> {
        let result = try git(["ls-tree", "-r", "--name-only", revision, "cards/"], in: deck)
        return Set(
            result.stdout.split(separator: "\n").compactMap { line -> String? in
                guard line.hasSuffix(".json") else { return nil }
                return String(line.split(separator: "/").last?.dropLast(5) ?? "")
            })
    }

    /// The commit a revision names.
    func revParse(_ deck: String, _ revision: String) throws -> String {
        try git(["rev-parse", "--verify", "-q", revision], in: deck).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// Runs git and records a test issue when it fails.
    func gitChecked(_ arguments: [String], in directory: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let result = try git(arguments, in: directory)
        #expect(result.status == 0, "git \(arguments) failed: \(result.stderr)", sourceLocation: sourceLocation)
    }
}

/// How many processes have a file open (`/proc/*/fd`), for tests that wait for a child to open one.
enum LockFilesOpeners {
    static func count(_ path: String) -> Int {
        var target = stat()
        guard stat(path, &target) == 0 else { return 0 }
        var found = 0
        for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(pid) != nil {
            for fd in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [] {
                var info = stat()
                if stat("/proc/\(pid)/fd/\(fd)", &info) == 0 && info.st_ino == target.st_ino
                    && info.st_dev == target.st_dev
                {
                    found += 1
                }
            }
        }
        return found
    }
}
