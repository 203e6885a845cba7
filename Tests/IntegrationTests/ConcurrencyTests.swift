import Foundation
import Glibc
import Testing

/// Several `cards` processes writing one deck at the same moment lose nothing.
@Suite("Concurrent writers")
struct ConcurrencyTests {
    @Test("two add loops started together, 50 each: 100 cards, 100 commits, status clean")
    func twoWriters() throws {
        let scratch = try Scratch()
        let deck = scratch.path("deck")
        #expect(try scratch.cards(["init", deck]).status == 0)
        let scripts = (1...2).map { writer in
            #"for i in $(seq 1 50); do "$CARDS" add --title "Writer \#(writer) card $i" --url "https://w\#(writer).example/$i" >/dev/null 2>&1 || echo "failed \#(writer) $i"; done"#
        }
        for output in try Self.together(scratch, scripts, in: deck) {
            #expect(output.isEmpty, "a writer failed: \(output)")
        }
        let list = try scratch.cards(["list"], in: deck).stdout.split(separator: "\n")
        #expect(list.count == 100)
        #expect(try scratch.commits(deck).count == 101)
        try scratch.expectClean(deck)
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
    }

    @Test("cards status beside a loop of adds, edits and deletes never takes a write in progress for hand edits")
    func statusBesideWriters() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let writer =
            #"for i in $(seq 1 40); do id=$("$CARDS" add --title "W $i" --url "https://w.example/$i") || echo "add failed"; "$CARDS" edit "$id" --title "W $i edited" >/dev/null || echo "edit failed"; "$CARDS" delete "$id" >/dev/null || echo "delete failed"; done; touch .git/writer-done"#
        let reader =
            #"while [ ! -e .git/writer-done ]; do out=$("$CARDS" status 2>&1); case "$out" in "Nothing to commit"*) ;; *) echo "$out";; esac; done"#
        let outputs = try Self.together(scratch, [writer, reader], in: deck)
        #expect(outputs[0].isEmpty, "a write failed: \(outputs[0])")
        #expect(outputs[1].isEmpty, "status saw hand edits: \(outputs[1].prefix(600))")
        try scratch.expectClean(deck)
    }

    /// Runs each of `scripts` under /bin/sh in `deck` at the same time, with `$CARDS` set, and returns
    /// their standard outputs. (Separate processes, not `&` and `wait` in one shell: the test runner's
    /// blocked signals, which a child inherits, can keep a shell's `wait` from ever seeing SIGCHLD.)
    static func together(_ scratch: Scratch, _ scripts: [String], in deck: String) throws -> [String] {
        var processes: [(Process, Pipe)] = []
        for script in scripts {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script]
            process.currentDirectoryURL = URL(fileURLWithPath: deck)
            var env = scratch.environment
            env["CARDS"] = Binaries.cards
            process.environment = env
            let pipe = Pipe()
            process.standardOutput = pipe
            processes.append((process, pipe))
        }
        for (process, _) in processes { try process.run() }
        return processes.map { process, pipe in
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
    }

    @Test(
        "git commit by hand beside cards add: no card is dropped by our publish; one a later hand commit of git's stale index deleted comes back with restore"
    )
    func handCommitsBesideAdds() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        // git commit reads HEAD, then takes index.lock and commits the index: our commit must not slip in
        // between so that git's commit, on top of ours, takes an index without our card.
        let outputs = try Self.together(
            scratch,
            [
                #"for i in $(seq 1 100); do "$CARDS" add --title "Card $i" --url "https://c.example/$i" 2>/dev/null; done"#,
                #"for i in $(seq 1 100); do git commit -q --allow-empty -m "by hand $i" >/dev/null 2>&1; done"#,
            ], in: deck)
        let added = outputs[0].split(separator: "\n").map(String.init)
        #expect(added.count >= 50, "most adds succeed: \(added.count)")
        // git's own race remains: a `git commit` that read the index before an add and took the lock after
        // it writes the index it read back (its commit then fails), and the next `git commit` commits that
        // index, deleting the card. That deletion is a commit of the user's: the card is in history and
        // comes back with `cards restore`; fsck --repair first stages the files main has again.
        #expect(try scratch.cards(["fsck", "--repair"], in: deck).status == 0)
        let onMain = try scratch.cardIDs(deck)
        for id in added where !onMain.contains(id) {
            let restored = try scratch.cards(["restore", id], in: deck)
            #expect(restored.status == 0, "\(id) was added, then neither on main nor restorable: \(restored.stderr)")
        }
        #expect(try scratch.cardIDs(deck).isSuperset(of: added))
        try scratch.expectClean(deck)
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
    }

    @Test(
        "a card deleted and restored by another process while it is shown or edited: an answer or an error, never a crash"
    )
    func deleteAndRestoreBesideReaders() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = try #require(try scratch.cardIDs(deck).sorted().first)
        let outputs = try Self.together(
            scratch,
            [
                #"for i in $(seq 1 60); do "$CARDS" delete \#(id) >/dev/null 2>&1; "$CARDS" restore \#(id) >/dev/null 2>&1; done"#,
                """
                for i in $(seq 1 60); do
                  "$CARDS" show \(id) >/dev/null 2>&1; echo "show $?"
                  "$CARDS" edit \(id) --title "Edit $i" >/dev/null 2>&1; echo "edit $?"
                done
                """,
            ], in: deck)
        let endings = outputs[1].split(separator: "\n")
        #expect(endings.count == 120)
        // 0 or 1 (a clear error); 128 and above is a signal: a runtime trap is SIGILL (132) or SIGTRAP (133).
        let crashed = endings.filter { line in (Int(line.split(separator: " ").last ?? "") ?? 255) > 1 }
        #expect(crashed.isEmpty, "\(crashed)")
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
    }
}

extension ConcurrencyTests {
    @Test(
        "a publish that fails (main.lock held past the timeout) puts everything back: hand edits being committed are kept, no flag left"
    )
    func failedPublishPutsBack() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = try #require(try scratch.cardIDs(deck).sorted().first)
        let path = deck + "/cards/\(id.prefix(2))/\(id).json"
        let card = try String(contentsOfFile: path, encoding: .utf8)
        let edited = card.replacingOccurrences(
            of: #""title"\s*:\s*"[^"]*""#, with: "\"title\": \"Edited by hand\"", options: .regularExpression)
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        let main = try scratch.revParse(deck, "main")
        let holder = try ChildProcess(
            "/bin/sh", ["-c", "exec 3>.git/refs/heads/main.lock; exec sleep 600"], directory: deck, environment: [:],
            scratchDirectory: scratch.root)
        defer {
            holder.signal(SIGKILL)
            _ = holder.wait()
        }
        usleep(300_000)
        let other = try #require(try scratch.cardIDs(deck).sorted().last)
        for arguments in [
            ["commit"], ["edit", other, "--color", "red"], ["add", "--title", "New", "--url", "https://n.example"],
        ] {
            let result = try scratch.cards(arguments, in: deck, extraEnvironment: ["CARDS_LOCK_TIMEOUT": "1"])
            #expect(
                result.status == 1 && result.stderr.contains("nothing was changed"), "\(arguments): \(result.stderr)")
            #expect(try scratch.revParse(deck, "main") == main)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == edited, "\(arguments): the hand edit is gone")
            #expect(!FileManager.default.fileExists(atPath: deck + "/.git/cards-pending"), "\(arguments): flag left")
            #expect(!FileManager.default.fileExists(atPath: deck + "/.git/index.lock"), "\(arguments)")
        }
        holder.signal(SIGKILL)
        _ = holder.wait()
        try FileManager.default.removeItem(atPath: deck + "/.git/refs/heads/main.lock")
        let commit = try scratch.cards(["commit"], in: deck)
        #expect(
            commit.status == 0 && commit.stdout.contains("Committed 1 hand edit"), "\(commit.stdout)\(commit.stderr)")
        try scratch.expectClean(deck)
    }

    @Test(
        "an index libgit2 must write (version 4, which the patch leaves alone): writes keep git's index.lock to the end, and the index follows"
    )
    func indexVersionFour() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        try scratch.gitChecked(["update-index", "--index-version", "4"], in: deck)
        let added = try scratch.cards(["add", "--title", "Four", "--url", "https://four.example"], in: deck)
        #expect(added.status == 0, "\(added.stderr)")
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try scratch.cards(["edit", id, "--color", "red"], in: deck).status == 0)
        #expect(try scratch.cards(["delete", id], in: deck).status == 0)
        #expect(try scratch.cards(["undo"], in: deck).status == 0)
        try scratch.expectClean(deck)
        #expect(!FileManager.default.fileExists(atPath: deck + "/.git/index.lock"))
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
    }
}
