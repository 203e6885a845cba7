import Foundation
import Testing

/// A `cards sync` that fails leaves the deck as it was (issue 32): the hand edits it committed first are
/// uncommitted hand edits again, `main` on its old commit, the index and `git status` as before, the
/// files byte for byte; a later sync, once the remote works, commits and pushes them. Unless a merge or
/// a push of the sync went through first, or another command committed on top of them: then they stay
/// committed, and the error says so.
@Suite("Failed syncs leave the deck as it was")
struct SyncFailureTests {
    /// Everything "as it was" is checked on.
    struct DeckState: Equatable {
        var main: String
        var gitStatus: String
        /// `git ls-files -s`: each entry's mode, object and path.
        var index: String
        /// Every file of the working tree, with its bytes.
        var files: [String: Data]
        var cardsStatus: String
    }

    static func state(_ scratch: Scratch, _ deck: String) throws -> DeckState {
        var files = try scratch.fingerprint(deck)
        files["<main>"] = nil
        files["<index>"] = nil
        return DeckState(
            main: try scratch.main(deck),
            gitStatus: try scratch.git(["status", "--porcelain"], in: deck).stdout,
            index: try scratch.git(["ls-files", "-s"], in: deck).stdout,
            files: files,
            cardsStatus: try scratch.cards(["status"], in: deck).stdout)
    }

    /// The hand edits: a card file edited, one deleted, and a new valid card file, the two written on
    /// one line (so that the files as committed, in canonical form, differ from them byte for byte).
    /// Returns the paths, in that order.
    @discardableResult
    static func handEdit(_ scratch: Scratch, _ deck: String) throws -> [String] {
        let paths = try scratch.cardFiles(deck).keys.sorted()
        let edited = paths[0]
        let deleted = paths[1]
        let text = try String(contentsOfFile: "\(deck)/\(edited)", encoding: .utf8)
        var card = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        card["title"] = "Edited by hand"
        let line = try JSONSerialization.data(withJSONObject: card)
        writeFileCloseOnExec("\(deck)/\(edited)", String(decoding: line, as: UTF8.self))
        try FileManager.default.removeItem(atPath: "\(deck)/\(deleted)")
        let id = "abababab-abab-4bab-8bab-abababababab"
        let new = "cards/ab/\(id).json"
        try FileManager.default.createDirectory(atPath: "\(deck)/cards/ab", withIntermediateDirectories: true)
        writeFileCloseOnExec(
            "\(deck)/\(new)",
            "{\"title\":\"New by hand\",\"id\":\"\(id)\",\"indexURL\":\"https://example.org/new\",\"color\":\"red\","
                + "\"platformName\":\"Example\",\"platformIcon\":\"example\",\"rank\":\"zz\"}")
        let status = try scratch.cards(["status"], in: deck).stdout
        #expect(status.contains("changed") && status.contains("deleted") && status.contains("new"), "\(status)")
        return [edited, deleted, new]
    }

    /// After a failed sync: exit 1, the hand edits said to be taken back, and the deck as `before`.
    static func expectTakenBack(
        _ result: RunResult, _ before: DeckState, _ scratch: Scratch, _ deck: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)", sourceLocation: sourceLocation)
        #expect(
            result.stderr.contains("The 3 hand edits the sync committed first (")
                && result.stderr.contains(") were taken back: they are uncommitted again, as before the sync."),
            "\(result.stderr)", sourceLocation: sourceLocation)
        let after = try state(scratch, deck)
        #expect(after.main == before.main, "main moved", sourceLocation: sourceLocation)
        #expect(after.gitStatus == before.gitStatus, "git status: \(after.gitStatus)", sourceLocation: sourceLocation)
        #expect(after.index == before.index, "the index: \(after.index)", sourceLocation: sourceLocation)
        #expect(after.files == before.files, "the files differ", sourceLocation: sourceLocation)
        #expect(after.cardsStatus == before.cardsStatus, "\(after.cardsStatus)", sourceLocation: sourceLocation)
    }

    /// A later sync, the remote working again, commits the hand edits and pushes them.
    static func expectSentLater(
        _ scratch: Scratch, _ deck: String, _ server: GitServer, _ paths: [String], committing: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try scratch.sync(deck)
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(
            result.stdout.hasPrefix(committing ? "Committed 3 hand edits (" : "Pushed main "), "\(result.stdout)",
            sourceLocation: sourceLocation)
        try scratch.expectConverged([deck], server, sourceLocation: sourceLocation)
        let shown = try scratch.git(["show", "main:\(paths[0])"], in: server.repository).stdout
        #expect(shown.contains("Edited by hand"), sourceLocation: sourceLocation)
        let tree = try scratch.git(["ls-tree", "-r", "--name-only", "main"], in: server.repository).stdout
        #expect(!tree.contains(paths[1]) && tree.contains(paths[2]), sourceLocation: sourceLocation)
    }

    @Test(
        "an unreachable remote (a closed port, a missing path): the hand edits are uncommitted again, as before",
        arguments: ["closed port", "missing path"], NetworkClient.allCases)
    func unreachable(_ place: String, _ client: NetworkClient) throws {
        let scratch = try Scratch.forSync()
        scratch.environment["CARDS_TRANSPORT"] = client.rawValue
        let server = try scratch.server(.path)
        let deck = try scratch.clone(server, "deck")
        let paths = try Self.handEdit(scratch, deck)
        // One edit staged by hand: its index entry goes back as the user left it.
        #expect(try scratch.git(["add", paths[0]], in: deck).status == 0)
        let url =
            place == "closed port"
            ? "git://127.0.0.1:\(try GitServer.freePort())/deck.git" : scratch.path("nowhere/deck.git")
        #expect(try scratch.git(["remote", "set-url", "origin", url], in: deck).status == 0)
        let before = try Self.state(scratch, deck)
        #expect(before.gitStatus.contains("M  \(paths[0])"), "\(before.gitStatus)")
        let remoteBefore = try server.main(scratch)
        let result = try scratch.sync(deck)
        #expect(result.stderr.hasPrefix("Error: fetching from origin"), "\(result.stderr)")
        try Self.expectTakenBack(result, before, scratch, deck)
        #expect(try server.main(scratch) == remoteBefore)
        // Again: the same failure, the same deck.
        try Self.expectTakenBack(try scratch.sync(deck), before, scratch, deck)
        #expect(try scratch.git(["remote", "set-url", "origin", server.url], in: deck).status == 0)
        try Self.expectSentLater(scratch, deck, server, paths)
    }

    @Test("a remote with an unrelated history is refused: the hand edits are uncommitted again, as before")
    func unrelatedHistory() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let deck = try scratch.clone(server, "deck")
        let other = scratch.path("other.git")
        #expect(try scratch.cards(["init", "--bare", other]).status == 0)
        let paths = try Self.handEdit(scratch, deck)
        #expect(try scratch.git(["remote", "set-url", "origin", other], in: deck).status == 0)
        let before = try Self.state(scratch, deck)
        let otherBefore = try scratch.git(["rev-parse", "main"], in: other).stdout
        let result = try scratch.sync(deck)
        #expect(result.stderr.contains("--allow-unrelated-histories"), "\(result.stderr)")
        // True as said: the commit of the hand edits is gone again.
        #expect(result.stderr.contains("nothing was changed"), "\(result.stderr)")
        try Self.expectTakenBack(result, before, scratch, deck)
        #expect(try scratch.git(["rev-parse", "main"], in: other).stdout == otherBefore)
        #expect(try scratch.git(["remote", "set-url", "origin", server.url], in: deck).status == 0)
        try Self.expectSentLater(scratch, deck, server, paths)
    }

    @Test(
        "a push the server's pre-receive hook refuses (the deck only ahead): the hand edits are uncommitted again",
        arguments: NetworkClient.allCases)
    func pushRefused(_ client: NetworkClient) throws {
        let scratch = try Scratch.forSync()
        scratch.environment["CARDS_TRANSPORT"] = client.rawValue
        let server = try scratch.server(.path)
        let deck = try scratch.clone(server, "deck")
        let paths = try Self.handEdit(scratch, deck)
        // The new file staged by hand: it stays in the index (git status "A ").
        #expect(try scratch.git(["add", paths[2]], in: deck).status == 0)
        try ServerRefusalTests.freeze(server.repository, count: scratch.path("hook-runs"))
        let before = try Self.state(scratch, deck)
        #expect(before.gitStatus.contains("A  \(paths[2])"), "\(before.gitStatus)")
        let remoteBefore = try server.main(scratch)
        let result = try scratch.sync(deck)
        #expect(result.stderr.contains("pre-receive hook"), "\(result.stderr)")
        try Self.expectTakenBack(result, before, scratch, deck)
        #expect(try server.main(scratch) == remoteBefore)
        try FileManager.default.removeItem(atPath: server.repository + "/hooks/pre-receive")
        try Self.expectSentLater(scratch, deck, server, paths)
    }

    @Test(
        "a push refused after the sync merged: the merge stays, with the hand edits committed in it, and a later sync pushes it"
    )
    func pushRefusedAfterMerge() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let a = try scratch.clone(server, "a")
        let b = try scratch.clone(server, "b")
        try scratch.addCard(b, "From B")
        #expect(try scratch.sync(b).status == 0)
        let paths = try Self.handEdit(scratch, a)
        try ServerRefusalTests.freeze(server.repository, count: scratch.path("hook-runs"))
        let remoteBefore = try server.main(scratch)
        let result = try scratch.sync(a)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("(the merge commit was made locally and is kept"), "\(result.stderr)")
        #expect(
            result.stderr.contains("The 3 hand edits the sync committed first (")
                && result.stderr.contains(") are in the merge."), "\(result.stderr)")
        #expect(!result.stderr.contains("taken back"), "\(result.stderr)")
        // As git's `pull` then a refused `push` leaves it: the merge, on the hand edits' commit.
        let parents = try scratch.git(["log", "-1", "--format=%P", "main"], in: a).stdout.split(separator: " ")
        #expect(parents.count == 2)
        let first = try scratch.git(["log", "-1", "--format=%s", "main^1"], in: a).stdout
        #expect(first == "Commit hand edits before sync with origin\n", "\(first)")
        #expect(try scratch.git(["status", "--porcelain"], in: a).stdout.isEmpty)
        #expect(try server.main(scratch) == remoteBefore)
        try FileManager.default.removeItem(atPath: server.repository + "/hooks/pre-receive")
        let later = try scratch.sync(a)
        #expect(later.status == 0, "\(later.stderr)")
        #expect(later.stdout.hasPrefix("Pushed main "), "\(later.stdout)")
        #expect(try scratch.sync(b).status == 0)
        try scratch.expectConverged([a, b], server)
        #expect(try scratch.git(["show", "main:\(paths[0])"], in: b).stdout.contains("Edited by hand"))
    }

    @Test("Ctrl-C during the push: the hand edits are uncommitted again, and the process dies of SIGINT")
    func interrupted() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let deck = try scratch.clone(server, "deck")
        let paths = try Self.handEdit(scratch, deck)
        // A hook that says it runs, then keeps the push waiting.
        let started = scratch.path("hook-started")
        let hook = server.repository + "/hooks/pre-receive"
        writeFileCloseOnExec(hook, "#!/bin/sh\ntouch '\(started)'\nsleep 20\nexit 1\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        let before = try Self.state(scratch, deck)
        let remoteBefore = try server.main(scratch)
        let child = try scratch.startCards(["sync"], in: deck)
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: started) && Date() < deadline { usleep(20_000) }
        child.signal(SIGINT)
        let result = child.wait(timeout: 20)
        #expect(result.ending == .signalled(SIGINT), "\(result.ending) \(result.stderr)")
        #expect(result.stderr.contains("interrupted"), "\(result.stderr)")
        try Self.expectTakenBack(
            RunResult(status: 1, stdout: result.stdout, stderr: result.stderr), before, scratch, deck)
        #expect(try server.main(scratch) == remoteBefore)
        try FileManager.default.removeItem(atPath: hook)
        try Self.expectSentLater(scratch, deck, server, paths)
    }

    @Test(
        "another command commits on top of the hand edits during the sync's network time: they stay committed, and the error says so"
    )
    func committedOnTopMeanwhile() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let deck = try scratch.clone(server, "deck")
        try Self.handEdit(scratch, deck)
        try ServerRefusalTests.freeze(server.repository, count: scratch.path("hook-runs"))
        nonisolated(unsafe) var slow: Result<RunResult, Error>?
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            slow = Result { try scratch.sync(deck, extraEnvironment: ["CARDS_TEST_DELAY_BEFORE_PUSH": "2"]) }
        }
        // A card added while the sync waits between its fetch and its push.
        let window = deck + "/.git/cards-test-push-window"
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: window) && Date() < deadline { usleep(10_000) }
        let added = try scratch.addCard(deck, "Added meanwhile")
        group.wait()
        let result = try #require(slow).get()
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("pre-receive hook"), "\(result.stderr)")
        #expect(
            result.stderr.contains(") stay committed: main moved on from them meanwhile (to "), "\(result.stderr)")
        #expect(!result.stderr.contains("taken back"), "\(result.stderr)")
        // Nothing lost: the card added on top, and the hand edits' commit under it.
        #expect(try scratch.cards(["show", added], in: deck).status == 0)
        let under = try scratch.git(["log", "-1", "--format=%s", "main~1"], in: deck).stdout
        #expect(under == "Commit hand edits before sync with origin\n", "\(under)")
        #expect(try scratch.git(["status", "--porcelain"], in: deck).stdout.isEmpty)
        try FileManager.default.removeItem(atPath: server.repository + "/hooks/pre-receive")
        #expect(try scratch.sync(deck).status == 0)
        try scratch.expectConverged([deck], server)
    }

    @Test("a dry run commits nothing: main, the index, git status and the files as they were")
    func dryRunCommitsNothing() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let deck = try scratch.clone(server, "deck")
        let paths = try Self.handEdit(scratch, deck)
        let before = try Self.state(scratch, deck)
        let plan = try scratch.sync(deck, ["--dry-run"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.hasPrefix("Would commit 3 hand edits first"), "\(plan.stdout)")
        #expect(try Self.state(scratch, deck) == before)
        try Self.expectSentLater(scratch, deck, server, paths)
    }
}

extension SyncFailureTests {
    @Test(
        "killed while taking the hand edits back: before main moved back, the commit stays whole; after, the hand edits are uncommitted (as committed); nothing lost, the next sync sends them",
        arguments: ["index", "main"])
    func killedWhileTakingBack(_ step: String) throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let deck = try scratch.clone(server, "deck")
        let paths = try Self.handEdit(scratch, deck)
        let before = try Self.state(scratch, deck)
        try ServerRefusalTests.freeze(server.repository, count: scratch.path("hook-runs"))
        let child = try scratch.startCards(
            ["sync"], in: deck, extraEnvironment: ["CARDS_TEST_PAUSE_IN_TAKE_BACK": step])
        let marker = deck + "/.git/cards-test-take-back"
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { usleep(20_000) }
        child.signal(SIGKILL)
        #expect(child.wait(timeout: 20).wasKilled)
        // The next command of ours finishes what the kill left (git's index lock, the flag).
        let repair = try scratch.cards(["fsck", "--repair"], in: deck)
        #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
        let status = try scratch.cards(["status"], in: deck).stdout
        if step == "index" {
            // main had not moved back: the commit of the hand edits stays, index and files as it has them.
            let subject = try scratch.git(["log", "-1", "--format=%s", "main"], in: deck).stdout
            #expect(subject == "Commit hand edits before sync with origin\n", "\(subject)")
            #expect(try scratch.git(["status", "--porcelain"], in: deck).stdout.isEmpty)
            #expect(status.hasPrefix("Nothing to commit"), "\(status)")
        } else {
            // main is back: every hand edit is there (the files as committed, in canonical form).
            #expect(try scratch.main(deck) == before.main)
            for change in ["changed", "deleted", "new"] { #expect(status.contains(change), "\(status)") }
            #expect(!FileManager.default.fileExists(atPath: "\(deck)/\(paths[1])"))
        }
        try FileManager.default.removeItem(atPath: server.repository + "/hooks/pre-receive")
        try Self.expectSentLater(scratch, deck, server, paths, committing: step == "main")
    }
}
