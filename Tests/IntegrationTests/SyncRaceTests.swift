import Foundation
import Testing

/// Pushes the remote refuses, devices syncing at the same moment, and the remote commands.
@Suite("Sync races, refusals and remotes")
struct SyncRaceTests {
    /// Makes the served repository's pre-receive hook move main itself during the next `count` pushes (a
    /// commit of the same tree on top, as a push landing between the advertisement and the update would):
    /// receive-pack's own compare-and-swap then fails, and the push is refused as the remote having moved.
    static func raceNextPushes(_ server: GitServer, _ count: Int) throws {
        let counter = server.repository + "/races-left"
        try "\(count)\n".write(toFile: counter, atomically: true, encoding: .utf8)
        let hook = server.repository + "/hooks/pre-receive"
        // Outside the push's quarantine, as another push would write.
        let script = """
            #!/bin/sh
            left=$(cat '\(counter)')
            if [ "$left" -gt 0 ]; then
              echo $((left - 1)) > '\(counter)'
              unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
              old=$(git rev-parse refs/heads/main)
              new=$(git commit-tree -p "$old" -m "Landed meanwhile" "$old^{tree}")
              git update-ref refs/heads/main "$new" "$old"
            fi
            exit 0

            """
        try FileManager.default.createDirectory(atPath: server.repository + "/hooks", withIntermediateDirectories: true)
        try script.write(toFile: hook, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
    }

    @Test(
        "a push the remote refuses because it moved is retried after a new fetch; after 5 a clear error",
        arguments: NetworkClient.allCases)
    func serverSideRace(_ client: NetworkClient) throws {
        let scratch = try Scratch.forSync()
        scratch.environment["CARDS_TRANSPORT"] = client.rawValue
        let server = try scratch.server(.git)
        let deck = try scratch.clone(server, "deck")
        try scratch.addCard(deck, "Raced twice")
        try Self.raceNextPushes(server, 2)
        let retried = try scratch.sync(deck)
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stdout.contains("(origin moved meanwhile: fetched 3 times.)"), "\(retried.stdout)")
        try scratch.expectConverged([deck], server)

        try scratch.addCard(deck, "Raced always")
        try Self.raceNextPushes(server, 100)
        let local = try scratch.main(deck)
        let failed = try scratch.sync(deck)
        #expect(failed.status == 1)
        #expect(
            failed.stderr.contains("origin (\(server.url)) kept moving: 5 pushes in a row were refused"),
            "\(failed.stderr)")
        #expect(try String(contentsOfFile: server.repository + "/races-left", encoding: .utf8) == "95\n")
        // The deck keeps its commits (with merges of what landed meanwhile); the remote's main is not ours.
        let remote = try server.main(scratch)
        #expect(try scratch.git(["merge-base", "--is-ancestor", local, "main"], in: deck).status == 0)
        #expect(remote != (try scratch.main(deck)))
        try scratch.expectClean(deck)
    }

    @Test(
        "the remote moves between fetch and push: the refused push (client side) is retried with a merge",
        arguments: [Transport.path, .git])
    func remoteMovesBeforePush(_ transport: Transport) throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(transport)
        let a = try scratch.clone(server, "a")
        let b = try scratch.clone(server, "b")
        try scratch.addCard(a, "Slow A")
        try scratch.addCard(b, "Quick B")
        nonisolated(unsafe) var slow: Result<RunResult, Error>?
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            slow = Result { try scratch.sync(a, extraEnvironment: ["CARDS_TEST_DELAY_BEFORE_PUSH": "1"]) }
        }
        // B pushes while A waits between its fetch and its push.
        let window = a + "/.git/cards-test-push-window"
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: window) && Date() < deadline { usleep(10_000) }
        let quick = try scratch.sync(b)
        #expect(quick.status == 0, "\(quick.stderr)")
        group.wait()
        let result = try #require(slow).get()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Merged origin/main"), "\(result.stdout)")
        #expect(result.stdout.contains("(origin moved meanwhile: fetched 2 times.)"), "\(result.stdout)")
        #expect(try scratch.sync(b).status == 0)
        try scratch.expectConverged([a, b], server)
        #expect(try scratch.cardFiles(a).count == 18)
    }

    @Test("one device pushes while the other syncs, at the same moment, 10 rounds")
    func pushWhileOtherSyncs() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let a = try scratch.clone(server, "a")
        let b = try scratch.clone(server, "b")
        for round in 0..<10 {
            try scratch.addCard(a, "Round \(round)")
            let (ra, rb) = try Self.together(scratch, a, b)
            #expect(ra.status == 0, "round \(round) A: \(ra.stderr)")
            #expect(rb.status == 0, "round \(round) B: \(rb.stderr)")
            // B may have fetched before A's push landed: one more sync brings it level.
            #expect(try scratch.sync(b).status == 0)
            try scratch.expectConverged([a, b], server)
        }
        #expect(try scratch.cardFiles(b).count == 26)
    }

    @Test(
        "two devices change and sync at the same moment, 10 rounds: both end equal to the remote, no commit lost",
        arguments: [Transport.path, .git])
    func concurrentDevices(_ transport: Transport) throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(transport)
        let a = try scratch.clone(server, "a")
        let b = try scratch.clone(server, "b")
        var made: [String] = []
        var retried = 0
        for round in 0..<10 {
            try scratch.addCard(a, "A \(round)")
            try scratch.addCard(b, "B \(round)")
            made += [try scratch.main(a), try scratch.main(b)]
            let (ra, rb) = try Self.together(scratch, a, b)
            #expect(ra.status == 0, "round \(round) A: \(ra.stdout)\(ra.stderr)")
            #expect(rb.status == 0, "round \(round) B: \(rb.stdout)\(rb.stderr)")
            // Both were ahead of the remote: whoever pushed second merged (at once, or after a refusal).
            #expect(ra.stdout.contains("Merged origin/main") || rb.stdout.contains("Merged origin/main"))
            if ra.stdout.contains("moved meanwhile") || rb.stdout.contains("moved meanwhile") { retried += 1 }
            // Whoever pushed first is now behind the other's merge: a second sync of each is quiet.
            #expect(try scratch.sync(a).status == 0)
            #expect(try scratch.sync(b).status == 0)
            try scratch.expectConverged([a, b], server)
        }
        let remote = try server.main(scratch)
        for commit in made {
            let kept = try scratch.git(
                ["--git-dir", server.repository, "merge-base", "--is-ancestor", commit, remote], in: scratch.root)
            #expect(kept.status == 0, "commit \(commit) is not in the remote's history")
        }
        #expect(try scratch.cardFiles(a).count == 36)
        // How often a push lost the race and was retried (printed, as it depends on timing).
        print("concurrent devices over \(transport): \(retried) of 10 rounds had a refused push that was retried")
    }

    /// Runs `cards sync` in two decks at the same moment; returns both results.
    static func together(_ scratch: Scratch, _ a: String, _ b: String) throws -> (RunResult, RunResult) {
        let group = DispatchGroup()
        nonisolated(unsafe) var first: Result<RunResult, Error>?
        nonisolated(unsafe) var second: Result<RunResult, Error>?
        DispatchQueue.global().async(group: group) { first = Result { try scratch.sync(a) } }
        DispatchQueue.global().async(group: group) { second = Result { try scratch.sync(b) } }
        group.wait()
        return (try #require(first).get(), try #require(second).get())
    }

    @Test("remote add, list and remove agree with git remote -v; the default remote")
    func remoteCommands() throws {
        let scratch = try Scratch.forSync()
        let deck = try scratch.sampleDeck()
        let none = try scratch.sync(deck)
        #expect(
            none.status == 1
                && none.stderr.contains("no remote to sync with; add one with `cards remote add origin URL`"))
        #expect(
            try scratch.cards(["remote", "add", "backup", "/srv/backup.git"], in: deck).stdout
                == "Added remote backup (/srv/backup.git).\n")
        #expect(
            try scratch.cards(["remote", "add", "origin", "ssh://git@example.invalid/deck.git"], in: deck).status == 0)
        let list = try scratch.cards(["remote", "list"], in: deck)
        #expect(list.stdout == "backup\t/srv/backup.git\norigin\tssh://git@example.invalid/deck.git\n")
        let git = try scratch.git(["remote", "-v"], in: deck).stdout
        #expect(
            git.contains("backup\t/srv/backup.git (fetch)")
                && git.contains("origin\tssh://git@example.invalid/deck.git (push)"))
        #expect(
            try scratch.git(["config", "remote.origin.fetch"], in: deck).stdout
                == "+refs/heads/*:refs/remotes/origin/*\n")
        let duplicate = try scratch.cards(["remote", "add", "origin", "/elsewhere"], in: deck)
        #expect(duplicate.status == 1 && duplicate.stderr.contains("already a remote named origin"))
        let badName = try scratch.cards(["remote", "add", "no good", "/x"], in: deck)
        #expect(badName.status == 1 && badName.stderr.contains("'no good' cannot name a remote"), "\(badName.stderr)")
        let missing = try scratch.sync(deck, ["nosuch"])
        #expect(missing.status == 1 && missing.stderr.contains("no remote named nosuch"), "\(missing.stderr)")
        #expect(try scratch.cards(["remote", "remove", "origin"], in: deck).stdout == "Removed remote origin.\n")
        #expect(try scratch.cards(["remote", "remove", "origin"], in: deck).status == 1)
        #expect(try scratch.cards(["remote", "add", "other", "/srv/other.git"], in: deck).status == 0)
        let ambiguous = try scratch.sync(deck)
        #expect(ambiguous.status == 1 && ambiguous.stderr.contains("none is named origin"), "\(ambiguous.stderr)")
        // The group alone lists, as `git remote` does.
        let listed = try scratch.cards(["remote"], in: deck)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == "backup\t/srv/backup.git\nother\t/srv/other.git\n", "\(listed.stdout)")
        #expect(try scratch.cards(["remote", "--deck", deck]).stdout == listed.stdout, "--deck after the group")
        #expect(try scratch.cards(["remote", "frob"], in: deck).status == 64)
        #expect(try scratch.cards(["sync", "--policy", "maybe"], in: deck).status == 64)
        #expect(try scratch.cards(["help", "sync"]).stdout.contains("USAGE: cards sync [<remote>]"))
        // Clone into a folder that is not empty is refused and leaves it alone.
        let full = scratch.path("full")
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        try "mine\n".write(toFile: full + "/note.txt", atomically: true, encoding: .utf8)
        let clone = try scratch.cards(["clone", deck, full])
        #expect(clone.status == 1 && clone.stderr.contains("not an empty folder"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: full) == ["note.txt"])
    }

    @Test(
        "a local repository with a working tree: taken from (fast-forward), but a sync that would push there is refused before anything is merged"
    )
    func nonBareLocalRemote() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let other = try scratch.clone(server, "other")
        let deck = try scratch.clone(server, "deck")
        #expect(try scratch.cards(["remote", "add", "other", other], in: deck).status == 0)
        // Only the other deck moved: taking its change needs no push, and works.
        try scratch.addCard(other, "Only there")
        let ahead = try scratch.main(other)
        let dryRun = try scratch.sync(deck, ["other", "--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        let taken = try scratch.sync(deck, ["other"])
        #expect(taken.status == 0, "\(taken.stderr)")
        #expect(try scratch.main(deck) == ahead)
        // Diverged: the sync would merge and then push; refused before the merge.
        try scratch.addCard(deck, "Not pushed")
        try scratch.addCard(other, "Only there too")
        let before = try scratch.main(other)
        let ours = try scratch.main(deck)
        for arguments in [["other", "--dry-run"], ["other"]] {
            let result = try scratch.sync(deck, arguments)
            #expect(result.status == 1)
            #expect(
                result.stderr.contains("has a working tree with the branch checked out; a remote on this machine must be a bare"),
                "\(result.stderr)")
            #expect(try scratch.main(other) == before)
            #expect(try scratch.main(deck) == ours)
        }
        // Only this deck moved: the push it needs is refused too.
        try scratch.cards(["remote", "add", "fresh", try scratch.clone(server, "fresh")], in: deck)
        let pushOnly = try scratch.sync(deck, ["fresh"])
        #expect(pushOnly.status == 1 && pushOnly.stderr.contains("has a working tree"), "\(pushOnly.stderr)")
        // A push that would also delete most cards: the working tree is what is said (a flag to allow the
        // mass delete would not make that remote take a push).
        let ids = try scratch.cardIDs(deck)
        #expect(try scratch.cards(["delete"] + ids.dropFirst(2), in: deck).status == 0)
        for arguments in [["fresh", "--dry-run"], ["fresh"]] {
            let massive = try scratch.sync(deck, arguments)
            #expect(massive.status == 1 && massive.stderr.contains("has a working tree"), "\(massive.stderr)")
            #expect(!massive.stderr.contains("--allow-mass-delete"), "\(massive.stderr)")
        }
    }
}
