import Glibc
import TestSupport
import Foundation
import Testing

/// `cards clone` from servers set up the usual ways.
@Suite("Clone")
struct CloneTests {
    @Test("a clone from a path where there is no repository says so, and leaves nothing behind")
    func missingLocalRemote() throws {
        let scratch = try Scratch()
        let missing = scratch.path("nowhere.git")
        let target = scratch.path("copy")
        let result = try scratch.cards(["clone", missing, target])
        #expect(result.status == 1)
        #expect(result.stderr.contains("there is no repository at \(missing)"), "\(result.stderr)")
        #expect(!result.stderr.contains("server"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("a server made with `git init --bare` whose HEAD names master clones once a deck synced main into it")
    func remoteHeadOnUnbornMaster() throws {
        let scratch = try Scratch()
        let server = scratch.path("server.git")
        try scratch.git(["init", "-q", "--bare", server], in: scratch.root)
        try scratch.git(["symbolic-ref", "HEAD", "refs/heads/master"], in: server)
        let deck = try scratch.sampleDeck()
        #expect(try scratch.cards(["remote", "add", "origin", server], in: deck).status == 0)
        #expect(try scratch.cards(["sync"], in: deck).status == 0)
        for (index, url) in [server, "file://" + server].enumerated() {
            let clone = scratch.path("clone\(index)")
            let result = try scratch.cards(["clone", url, clone])
            #expect(result.status == 0, "\(url): \(result.stderr)")
            #expect(try scratch.revParse(clone, "main") == (try scratch.revParse(deck, "main")))
            #expect(try scratch.cards(["export"], in: clone).stdout == (try scratch.cards(["export"], in: deck).stdout))
            #expect(
                try scratch.git(["rev-parse", "--abbrev-ref", "main@{upstream}"], in: clone).stdout == "origin/main\n")
            try scratch.expectClean(clone)
            #expect(try scratch.cards(["sync"], in: clone).status == 0)
            let undo = try scratch.cards(["undo"], in: clone)
            #expect(undo.status == 1 && undo.stderr.contains("nothing to undo"), "undo must not revert the clone")
        }
    }

    @Test(
        "relative paths to a remote on this machine: stored whole by clone and remote add; written by git, counted from the deck"
    )
    func relativeLocalRemotes() throws {
        let scratch = try Scratch()
        try scratch.git(["init", "-q", "--bare", "server.git"], in: scratch.root)
        let deck = try scratch.sampleDeck()
        // Typed from the deck's cards folder: counted from there, as any path argument is, and stored whole.
        let added = try scratch.cards(["remote", "add", "origin", "../../server.git"], in: deck + "/cards")
        #expect(added.status == 0, "\(added.stderr)")
        let stored = try scratch.git(["config", "remote.origin.url"], in: deck).stdout
        #expect(stored.hasPrefix("/") && stored.hasSuffix("/server.git\n"), "\(stored)")
        #expect(try scratch.cards(["sync"], in: deck).status == 0)
        // git clone stores the whole path; so does cards clone, so the clone syncs from any folder.
        let clone = try scratch.cards(["clone", "server.git", "copy"], in: scratch.root)
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(try scratch.git(["config", "remote.origin.url"], in: scratch.path("copy")).stdout == stored)
        #expect(try scratch.cards(["sync"], in: scratch.path("copy/cards")).status == 0)
        // Without a folder, as git clone names it: the URL's last name, less .git.
        let named = try scratch.cards(["clone", "file://" + scratch.path("server.git/")], in: scratch.root)
        #expect(named.status == 0 && named.stdout.contains("into \(scratch.path("server"))"), "\(named.stderr)")
        // --deck names it as for init, before or after the command; a second folder that differs is refused.
        let option = try scratch.cards(["clone", "server.git", "--deck", "by-option"], in: scratch.root)
        #expect(option.status == 0 && FileManager.default.fileExists(atPath: scratch.path("by-option/deck.json")))
        let both = try scratch.cards(["--deck", "one", "clone", "server.git", "two"], in: scratch.root)
        #expect(both.status == 64 && both.stderr.contains("two folders for clone"), "\(both.stderr)")
        let nameless = try scratch.cards(["clone", "https://example.invalid/"], in: scratch.root)
        #expect(nameless.status == 64 && nameless.stderr.contains("no folder name"), "\(nameless.stderr)")
        // A relative URL written by git (or by hand) means what git takes it to mean: from the deck's
        // folder (a bare deck's: the repository itself), whatever the current folder.
        try scratch.git(["config", "remote.origin.url", "../server.git"], in: deck)
        let bare = scratch.path("bare")
        #expect(try scratch.cards(["init", "--bare", bare]).status == 0)
        try scratch.git(["remote", "add", "origin", "../server.git"], in: bare)
        for (index, (place, folder)) in [(deck, deck + "/cards"), (deck, scratch.root), (bare, scratch.root)]
            .enumerated()
        {
            #expect(try scratch.git(["fetch", "-q", "origin"], in: place).status == 0, "git agrees on \(place)")
            let title = "Card \(index)"
            let add = try scratch.cards(
                ["--deck", place, "add", "--title", title, "--url", "https://\(index).example"], in: folder)
            #expect(add.status == 0, "\(add.stderr)")
            // The bare deck was made apart from the server's: joining the two is asked for.
            let sync = try scratch.cards(["--deck", place, "sync", "--allow-unrelated-histories"], in: folder)
            #expect(sync.status == 0, "sync of \(place) from \(folder): \(sync.stderr)")
            let pushed = try scratch.git(["log", "-3", "--format=%s", "main"], in: scratch.path("server.git")).stdout
            #expect(pushed.contains(title), "\(pushed)")
        }
        // Said when added, not at the first sync: a remote with a working tree, a path with no repository yet.
        let fromWorkingTree = try scratch.cards(["clone", deck, scratch.path("copy2")])
        #expect(fromWorkingTree.status == 0 && fromWorkingTree.stderr.contains("has a working tree"))
        let nowhere = try scratch.cards(["remote", "add", "usb", "../nothere.git"], in: deck)
        #expect(nowhere.status == 0 && nowhere.stderr.contains("no repository at"), "\(nowhere.stderr)")
        #expect(try scratch.cards(["remote", "add", "usb2", scratch.path("server.git")], in: deck).stderr.isEmpty)
        try FileManager.default.createDirectory(atPath: scratch.path("plain"), withIntermediateDirectories: true)
        let plain = try scratch.cards(["remote", "add", "plain", scratch.path("plain")], in: deck)
        #expect(plain.stderr.contains("is not a git repository"), "\(plain.stderr)")
        // A relative path to nowhere: the message shows where it was looked for.
        try scratch.git(["config", "remote.origin.url", "../nowhere.git"], in: deck)
        let missing = try scratch.cards(["sync"], in: deck + "/cards")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nowhere.git (../nowhere.git from the deck's folder)"), "\(missing.stderr)")
    }

    @Test(
        "a clone stopped by Ctrl-C leaves nothing under its name; one killed leaves a hidden folder the next clone removes"
    )
    func interruptedClone() throws {
        let scratch = try Scratch()
        // Big enough that a clone takes a while (its checkout writes 6,000 files).
        let remote = scratch.path("big.git")
        #expect(try scratch.cards(["init", "--bare", remote]).status == 0)
        var random = SplitMix64(seed: 7)
        let lines = (0..<6_000).map { index in
            "{\"id\": \"\(random.uuid())\", \"title\": \"Card \(index)\", \"indexURL\": \"https://e.example/\(index)\"}"
        }
        let file = scratch.path("cards.jsonl")
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try scratch.cards(["--deck", remote, "import", file]).status == 0)
        func leftovers() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: scratch.root)) ?? []).filter {
                $0.contains(".cards-clone-")
            }
        }
        var stopped = 0
        for (attempt, delay) in [0.1, 0.4, 1.0].enumerated() {
            let target = scratch.path("copy\(attempt)")
            let child = try scratch.startCards(["clone", remote, target], in: scratch.root)
            usleep(UInt32(delay * 1_000_000))
            child.signal(SIGINT)
            let result = child.wait()
            if result.ending == .signalled(SIGINT) {
                stopped += 1
                #expect(!FileManager.default.fileExists(atPath: target), "half a deck under \(target)")
                #expect(result.stderr.contains("interrupted; nothing was cloned"), "\(result.stderr)")
            } else {
                // Done before the signal, or it came after the deck was whole: a whole deck.
                #expect(result.status == 0, "\(result.stderr)")
                #expect(try scratch.cards(["fsck"], in: target).status == 0)
            }
            #expect(leftovers().isEmpty, "after a delay of \(delay) s: \(leftovers())")
        }
        #expect(stopped > 0, "no clone was interrupted: the deck is too small for this machine")
        // Killed outright: the name stays free (or, killed once the deck was whole and renamed, holds it
        // whole), and the next clone into it clears the hidden folder.
        let target = scratch.path("killed")
        let child = try scratch.startCards(["clone", remote, target], in: scratch.root)
        usleep(200_000)
        child.signal(SIGKILL)
        let killed = child.wait()
        if FileManager.default.fileExists(atPath: target) {
            #expect(try scratch.cards(["fsck"], in: target).status == 0, "a whole deck or none")
        } else {
            #expect(killed.wasKilled)
            let again = try scratch.cards(["clone", remote, target])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(leftovers().isEmpty, "\(leftovers())")
            #expect(try scratch.cards(["fsck"], in: target).status == 0)
        }
    }

    @Test(
        "a clone into an empty folder killed at any moment: refused as unfinished (never taken for a deck), and cloning again finishes"
    )
    func killedCloneInPlace() throws {
        let scratch = try Scratch()
        let (deck, server) = try scratch.sampleDeckOnServer()
        let expected = try scratch.cards(["export"], in: deck).stdout
        var unfinished = 0
        for attempt in 0..<16 {
            let folder = scratch.path("here\(attempt)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try "mine\n".write(toFile: folder + "/../mine-\(attempt).txt", atomically: true, encoding: .utf8)
            let child = try scratch.startCards(["clone", server, "."], in: folder)
            usleep(UInt32(attempt) * 3_000)
            child.signal(SIGKILL)
            _ = child.wait()
            let list = try scratch.cards(["list"], in: folder)
            if list.status != 0 {
                // Never a half deck that commands would work on (fsck --repair would make deletions of it).
                #expect(
                    list.stderr.contains("stopped before it was complete") || list.stderr.contains("not a deck"),
                    "attempt \(attempt): \(list.stderr)")
                if list.stderr.contains("stopped before it was complete") { unfinished += 1 }
                let again = try scratch.cards(["clone", server, "."], in: folder)
                let left = (try? FileManager.default.subpathsOfDirectory(atPath: folder).prefix(12)) ?? []
                #expect(
                    again.status == 0, "attempt \(attempt): \(list.stderr) then \(again.stderr); left: \(Array(left))")
            }
            #expect(try scratch.cards(["export"], in: folder).stdout == expected, "attempt \(attempt)")
            #expect(try scratch.cards(["fsck"], in: folder).status == 0, "attempt \(attempt)")
        }
        // How many attempts were stopped mid-clone depends on timing; each such one was checked above.
        _ = unfinished
    }

    @Test(
        "a folder whose clone mark names a running process is said to be being cloned; once that process is gone, it is a stopped clone that cloning again replaces"
    )
    func cloneMarkOfRunningProcess() throws {
        let scratch = try Scratch()
        let (_, server) = try scratch.sampleDeckOnServer()
        let folder = scratch.path("here")
        #expect(try scratch.cards(["clone", server, folder]).status == 0)
        let expected = try scratch.cards(["export"], in: folder).stdout
        let sleeper = try ChildProcess(
            "/bin/sleep", ["600"], directory: folder, environment: [:], scratchDirectory: scratch.root)
        defer {
            sleeper.signal(SIGKILL)
            _ = sleeper.wait()
        }
        let mark = "\(folder)/.git/cards-clone-incomplete"
        try "pid \(sleeper.pid)\n\(server)\n".write(toFile: mark, atomically: true, encoding: .utf8)
        let busy = try scratch.cards(["list"], in: folder)
        #expect(busy.status == 1)
        #expect(busy.stderr.contains("is being cloned by process \(sleeper.pid)"), "\(busy.stderr)")
        sleeper.signal(SIGKILL)
        _ = sleeper.wait()
        let stopped = try scratch.cards(["list"], in: folder)
        #expect(stopped.status == 1)
        #expect(stopped.stderr.contains("stopped before it was complete"), "\(stopped.stderr)")
        #expect(stopped.stderr.contains("cards clone \(server) \(folder)"), "\(stopped.stderr)")
        let again = try scratch.cards(["clone", server, folder])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try scratch.cards(["export"], in: folder).stdout == expected)
        #expect(!FileManager.default.fileExists(atPath: mark))
    }

    @Test(
        "a stopped clone whose git helpers still write in the folder (index-pack outlives a killed git fetch) is removed only once they are gone, and cloning again finishes"
    )
    func stoppedCloneWithLingeringGitHelpers() throws {
        let scratch = try Scratch()
        let (deck, server) = try scratch.sampleDeckOnServer()
        let folder = scratch.path("here")
        #expect(try scratch.cards(["clone", server, folder]).status == 0)
        let gone = try ChildProcess(
            "/bin/true", [], directory: folder, environment: [:], scratchDirectory: scratch.root)
        _ = gone.wait()
        try "pid \(gone.pid)\n\(server)\n".write(
            toFile: "\(folder)/.git/cards-clone-incomplete", atomically: true, encoding: .utf8)
        // Named as git's helper is: what `cards` looks for is a git process working in the folder.
        let helper = scratch.path("git-index-pack")
        try """
        #!/bin/sh
        end=$(( $(date +%s) + 2 ))
        while [ "$(date +%s)" -lt "$end" ]; do
          mkdir -p .git/objects/ab 2>/dev/null && : > .git/objects/ab/straggler 2>/dev/null
          sleep 0.01
        done
        """.write(toFile: helper, atomically: true, encoding: .utf8)
        chmod(helper, 0o755)
        let lingering = try ChildProcess(
            helper, [], directory: folder, environment: [:], scratchDirectory: scratch.root)
        defer {
            lingering.signal(SIGKILL)
            _ = lingering.wait()
        }
        usleep(100_000)
        let again = try scratch.cards(["clone", server, "."], in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/.git/objects/ab/straggler"))
        #expect(try scratch.cards(["export"], in: folder).stdout == scratch.cards(["export"], in: deck).stdout)
        #expect(try scratch.cards(["fsck"], in: folder).status == 0)
    }

    @Test("a clone into an empty folder that is there (the current one) fills that very folder")
    func cloneIntoExistingEmptyFolder() throws {
        let scratch = try Scratch()
        let (deck, server) = try scratch.sampleDeckOnServer()
        let folder = scratch.path("here")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        var before = stat()
        #expect(stat(folder, &before) == 0)
        let clone = try scratch.cards(["clone", server, "."], in: folder)
        #expect(clone.status == 0, "\(clone.stderr)")
        var after = stat()
        #expect(stat(folder, &after) == 0)
        #expect(after.st_ino == before.st_ino, "the same folder, not one put in its place")
        #expect(try scratch.cards(["export"], in: folder).stdout == (try scratch.cards(["export"], in: deck).stdout))
        // Refused (not a deck): the folder is left as it was, empty.
        let other = scratch.path("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)
        let notADeck = try scratch.cards(["clone", scratch.path("missing.git"), "."], in: other)
        #expect(notADeck.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: other).isEmpty)
    }

    @Test(
        "CARDS_NETWORK_TIMEOUT stops a clone and a sync from a server that accepts and never answers (git, http, ssh)")
    func silentServerTimesOut() throws {
        let scratch = try Scratch()
        let port = try GitServer.freePort()
        // Accepts every connection and never says a word, for as long as the test runs.
        let silent = try ChildProcess(
            "/usr/bin/python3",
            [
                "-c",
                "import socket,time\ns=socket.socket()\ns.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
                    + "s.bind(('127.0.0.1',\(port)))\ns.listen(8)\nheld=[]\nwhile True: held.append(s.accept())",
            ], directory: scratch.root, environment: [:], scratchDirectory: scratch.root)
        defer {
            silent.signal(SIGKILL)
            _ = silent.wait()
        }
        usleep(500_000)
        let timeout = ["CARDS_NETWORK_TIMEOUT": "2"]
        // Run under timeout(1): were the limit ignored, the test fails instead of waiting for ever.
        func cards(_ arguments: [String], in directory: String? = nil, transport: String = "git") throws -> RunResult {
            try scratch.run(
                "/usr/bin/timeout", ["30", Binaries.cards] + arguments, in: directory,
                extraEnvironment: timeout.merging(["CARDS_TRANSPORT": transport]) { $1 })
        }
        let target = scratch.path("never")
        let clone = try cards(["clone", "git://127.0.0.1:\(port)/deck.git", target])
        #expect(clone.status == 1 && clone.stderr.contains("gave up after 2 s"), "\(clone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        let deck = try scratch.sampleDeck()
        for (name, url, transport) in [
            ("http", "http://127.0.0.1:\(port)/deck.git", "git"),
            ("ssh", "ssh://git@127.0.0.1:\(port)/deck.git", "git"),
            // libgit2's own transport: its timeout (`RemoteCallbacks`) told as git's is.
            ("libgit2", "http://127.0.0.1:\(port)/deck.git", "libgit2"),
        ] {
            #expect(try scratch.cards(["remote", "add", name, url], in: deck).status == 0)
            let started = Date()
            let sync = try cards(["sync", name], in: deck, transport: transport)
            #expect(sync.status == 1 && sync.stderr.contains("gave up after 2 s"), "\(name): \(sync.stderr)")
            // A timeout is told as one (`.timedOut`), not as a URL to check.
            #expect(!sync.stderr.contains("check the URL"), "\(name): \(sync.stderr)")
            #expect(Date().timeIntervalSince(started) < 15, "\(name) took \(Date().timeIntervalSince(started)) s")
        }
        // Values no timer takes: no trap, a day at most.
        let server = scratch.path("server.git")
        try scratch.gitChecked(["init", "-q", "--bare", "-b", "main", server], in: scratch.root)
        #expect(try scratch.cards(["remote", "add", "origin", server], in: deck).status == 0)
        for value in ["inf", "1e300"] {
            let sync = try scratch.cards(
                ["sync", "origin"], in: deck, extraEnvironment: ["CARDS_NETWORK_TIMEOUT": value])
            #expect(sync.status == 0, "\(value): \(sync.stderr)")
        }
    }
}

extension Scratch {
    /// The sample deck, synced to a new bare server made with `git init --bare -b main`: (deck, server).
    func sampleDeckOnServer() throws -> (deck: String, server: String) {
        let deck = try sampleDeck()
        let server = path("server.git")
        try git(["init", "-q", "--bare", "-b", "main", server], in: root)
        #expect(try cards(["remote", "add", "origin", server], in: deck).status == 0)
        #expect(try cards(["sync"], in: deck).status == 0)
        return (deck, server)
    }
}
