import Foundation
import Glibc
import Testing

/// Sync under faults: a network that drops mid-fetch and mid-push, a remote whose tree holds what a
/// deck never takes in, and the locks a killed sync leaves.
@Suite("Sync under faults")
struct ReliabilitySyncTests {
    /// Runs `cards sync` in `deck` with a time bound (libgit2 1.5 has no network timeouts: a hang is a failure).
    static func boundedSync(_ scratch: Scratch, _ deck: String, seconds: Double = 60) throws -> ChildProcess.Result {
        try scratch.startCards(["sync"], in: deck).wait(timeout: seconds)
    }

    /// The state a failed sync must leave: the deck's main, index and card files.
    static func localState(_ scratch: Scratch, _ deck: String) throws -> [String: Data] {
        try scratch.fingerprint(deck)
    }

    @Test("a connection cut mid-fetch or mid-push: exit 1, deck unchanged or fully merged, the next sync works")
    func networkCuts() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.git)
        let deck = try scratch.clone(server, "deck")
        let other = try scratch.clone(server, "other")
        let serverPort = try #require(Int(server.url.split(separator: ":").last?.split(separator: "/").first ?? ""))
        let proxy = try CuttingProxy(targetPort: serverPort)
        defer { proxy.stop() }
        try scratch.gitChecked(
            ["config", "remote.origin.url", "git://127.0.0.1:\(proxy.port)/deck.git"], in: deck)
        var attempts = 0
        var failures = 0
        var hangs = 0

        // The other device pushes 40 cards; the deck has one of its own: a sync fetches, merges, pushes.
        let batch = scratch.path("batch.jsonl")
        try (0..<40).map { "{\"title\": \"Remote \($0)\", \"indexURL\": \"https://remote.example/\($0)\"}" }
            .joined(separator: "\n").write(toFile: batch, atomically: true, encoding: .utf8)
        #expect(try scratch.cards(["import", batch], in: other).status == 0)
        #expect(try scratch.sync(other).status == 0)
        try scratch.addCard(deck, "Local before the cuts")

        for (phase, connection, direction) in [
            ("mid-fetch", 0, CuttingProxy.Direction.downstream), ("mid-push", 1, .upstream),
            ("push reply lost", 1, .downstream),
        ] {
            if phase != "mid-fetch" {
                // The deck gets ahead by 40 cards, so the push carries a real pack.
                try (0..<40).map { "{\"title\": \"\(phase) \($0)\", \"indexURL\": \"https://local.example/\($0)\"}" }
                    .joined(separator: "\n").write(toFile: batch, atomically: true, encoding: .utf8)
                #expect(try scratch.cards(["import", batch], in: deck).status == 0)
            }
            var bytes = 16
            var succeeded = false
            while !succeeded && bytes < 4_000_000 {
                attempts += 1
                let before = try Self.localState(scratch, deck)
                let mainBefore = try scratch.main(deck)
                let remoteBefore = try server.main(scratch)
                proxy.arm(CuttingProxy.Rule(connection: connection, direction: direction, bytes: bytes))
                let result = try Self.boundedSync(scratch, deck)
                let context = "\(phase), cut after \(bytes) bytes"
                if case .signalled = result.ending {
                    hangs += 1
                    Issue.record("\(context): sync hung and was killed")
                }
                if result.status == 0 {
                    succeeded = true
                } else {
                    failures += 1
                    #expect(
                        result.status == 1, "\(context): exit \(String(describing: result.ending)) \(result.stderr)")
                    let mainAfter = try scratch.main(deck)
                    if mainAfter == mainBefore {
                        #expect(try Self.localState(scratch, deck) == before, "\(context): the deck changed")
                    } else {
                        // Fully merged: a merge commit of our main and the remote's (or a fast-forward to it).
                        let parents = try scratch.git(["rev-list", "--parents", "-n", "1", "main"], in: deck).stdout
                        #expect(
                            parents.contains(mainBefore) || mainAfter == remoteBefore,
                            "\(context): main moved to something that is not the merge")
                    }
                    let remoteAfter = try server.main(scratch)
                    #expect(
                        remoteAfter == remoteBefore || remoteAfter == mainAfter,
                        "\(context): the remote's main is neither as it was nor the deck's")
                    let fsck = try scratch.cards(["fsck"], in: deck)
                    #expect(fsck.status == 0, "\(context): \(fsck.stderr)")
                    try scratch.expectClean(deck)
                }
                bytes = bytes * 8 / 5 + 7
            }
            #expect(succeeded, "\(phase): sync never got through")
            // The next sync, with nothing cut, has nothing left to do or finishes the job.
            proxy.arm(nil)
            let next = try scratch.sync(deck)
            #expect(next.status == 0, "\(phase): the next sync failed: \(next.stderr)")
            #expect(try scratch.main(deck) == server.main(scratch), "\(phase): deck and remote differ")
        }
        #expect(try scratch.sync(other).status == 0)
        try scratch.expectConverged([deck, other], server)
        let remoteFsck = try scratch.git(["fsck", "--no-dangling"], in: server.repository)
        #expect(remoteFsck.status == 0, "\(remoteFsck.stderr)")
        reportFigures(
            "network-cuts",
            ["attempts": attempts, "failedCleanly": failures - hangs, "hangs": hangs, "connectionsCut": proxy.cuts])
    }

    @Test("a remote whose tree holds links, a submodule and a 1 GB blob: taken as they came, not checked out, named")
    func hostileRemoteTree() throws {
        let scratch = try Scratch.forSync()
        let transport =
            Transport(rawValue: ProcessInfo.processInfo.environment["CARDS_HOSTILE_TRANSPORT"] ?? "git") ?? .git
        let server = try scratch.server(transport)
        let deck = try scratch.clone(server, "deck")
        let megabytes = environmentCount("CARDS_BIG_BLOB_MB", default: 1024)
        let tree = try HostileTree(scratch: scratch, deck: server.repository, bigBlobMegabytes: megabytes)
        let good = "9b000000-0000-4000-8000-000000000001"
        let hostile = try tree.commit(parent: "main", goodCard: good, dotGit: false)
        try scratch.gitChecked(["update-ref", "refs/heads/main", hostile], in: server.repository)
        let outside = HostileInputTests.listing(scratch.root).filter {
            !$0.key.hasPrefix("deck") && !$0.key.hasPrefix("server")
        }
        let (sync, peak) = try scratch.cardsPeakMemory(["sync"], in: deck)
        // Equal, but the deck now holds card files that are no valid cards (a link, a submodule): exit 1.
        #expect(sync.status == 1 && sync.stderr.contains("not a valid card"), "\(sync.stderr)")
        #expect((peak ?? 0) < 100 * 1024, "sync used \(peak ?? 0) KiB")
        for name in HostileTree.refusedPaths where !name.hasPrefix(".git") {
            #expect(sync.stdout.contains(name), "\(name): \(sync.stdout)")
        }
        #expect(sync.stdout.contains("not checked out"), "\(sync.stdout)")
        // A fast-forward to the remote's main, whole: nothing of it is dropped or pushed back changed.
        let files = try scratch.git(["ls-tree", "-r", "main"], in: deck).stdout
        #expect(files.contains(good))
        #expect(files.contains("120000") && files.contains("160000") && files.contains("big.bin"))
        #expect(try scratch.main(deck) == hostile && server.main(scratch) == hostile)
        for name in HostileTree.refusedPaths where !name.hasPrefix(".git") {
            var info = stat()
            #expect(lstat(deck + "/" + name, &info) != 0, "\(name) was checked out")
        }
        #expect(
            HostileInputTests.listing(scratch.root).filter { !$0.key.hasPrefix("deck") && !$0.key.hasPrefix("server") }
                == outside)
        try scratch.expectClean(deck)
        let fsck = try scratch.cards(["fsck"], in: deck)
        let said = fsck.stdout + fsck.stderr
        #expect(fsck.status == 1 && said.contains("cards/link") && !said.contains("big.bin"), "\(said)")
        reportFigures("hostile-remote", ["inputs": HostileTree.refusedPaths.count - 1, "bigBlobMB": megabytes])
    }

    @Test("a remote whose tree holds .git/… or ../… paths: refused with a message, nothing changes")
    func corruptRemoteTree() throws {
        let scratch = try Scratch.forSync()
        var tried = 0
        for variant in ["dotgit", "dotdot"] {
            let server = try scratch.server(.path, name: "server-\(variant)")
            let deck = try scratch.clone(server, "deck-\(variant)")
            let tree = try HostileTree(scratch: scratch, deck: server.repository, bigBlobMegabytes: 1)
            let bad: String
            if variant == "dotgit" {
                bad = try tree.commit(parent: "main", goodCard: "9c000000-0000-4000-8000-000000000001", dotGit: true)
            } else {
                bad = try tree.dotDotCommit(parent: "main")
            }
            try scratch.gitChecked(["update-ref", "refs/heads/main", bad], in: server.repository)
            let before = try scratch.fingerprint(deck)
            let sync = try scratch.sync(deck)
            tried += 1
            #expect(sync.status == 1, "\(variant): \(sync.stdout)")
            #expect(sync.stderr.contains("refused") && sync.stderr.contains("nothing changed"), "\(sync.stderr)")
            #expect(try scratch.fingerprint(deck) == before, "\(variant): the deck changed")
            #expect(!FileManager.default.fileExists(atPath: scratch.root + "/escape.txt"))
            #expect(!FileManager.default.fileExists(atPath: deck + "/.git/hooks/post-checkout"))
        }
        reportFigures("hostile-remote-corrupt", ["inputs": tried])
    }

    @Test("locks a killed sync leaves (tracking ref here, the ref of a remote on this disk) do not block the next")
    func staleSyncLocks() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let deck = try scratch.clone(server, "deck")
        try scratch.addCard(deck, "To push")
        let locks = [
            deck + "/.git/refs/remotes/origin/main.lock", deck + "/.git/FETCH_HEAD.lock",
            server.repository + "/refs/heads/main.lock",
        ]
        for path in locks {
            writeFileCloseOnExec(path, "0000000000000000000000000000000000000000\n")
            // Written by a process that died a few seconds ago.
            var times = [timespec(tv_sec: time(nil) - 5, tv_nsec: 0), timespec(tv_sec: time(nil) - 5, tv_nsec: 0)]
            utimensat(AT_FDCWD, path, &times, 0)
        }
        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(fsck.status == 1 && fsck.stderr.contains("refs/remotes/origin/main.lock"), "\(fsck.stderr)")
        let sync = try scratch.sync(deck)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try scratch.main(deck) == server.main(scratch))
        for path in locks { #expect(!FileManager.default.fileExists(atPath: path), "\(path) is still there") }
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
        reportFigures("stale-sync-locks", ["inputs": locks.count])
    }
}

extension HostileTree {
    /// A commit whose root tree has an entry named `..` holding `escape.txt`: checked out naively, it
    /// would land outside the deck. Git itself will not make such a tree, so it is written raw.
    func dotDotCommit(parent: String) throws -> String {
        let blob = try Self.hashObject(scratch, deck, Data("escaped\n".utf8))
        let inner = try mktree(["100644 blob \(blob)\tescape.txt"])
        var raw = Data("40000 ..\0".utf8)
        raw.append(Self.binary(inner))
        let rootEntries = try scratch.git(["ls-tree", parent], in: deck).stdout.split(separator: "\n")
        for line in rootEntries {
            let parts = line.split(separator: "\t", maxSplits: 1)
            let fields = parts[0].split(separator: " ")
            let mode = fields[0] == "040000" ? "40000" : String(fields[0])
            raw.append(Data("\(mode) \(parts[1])\0".utf8))
            raw.append(Self.binary(String(fields[2])))
        }
        let root = try scratch.run(
            "/usr/bin/git", ["hash-object", "-t", "tree", "--literally", "-w", "--stdin"], in: deck, input: raw
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let parentCommit = try scratch.revParse(deck, parent)
        return try scratch.run("/usr/bin/git", ["commit-tree", root, "-p", parentCommit, "-m", "dotdot"], in: deck)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func binary(_ hex: String) -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            data.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return data
    }
}
