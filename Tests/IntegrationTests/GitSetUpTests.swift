import Foundation
import TestSupport
import Testing

/// The git settings a developer has, as git takes them: `init.defaultBranch`, SHA-256 repositories,
/// `receive.denyCurrentBranch=updateInstead`; and undo, redo and settings that read well.
@Suite("Git set-ups: init.defaultBranch, SHA-256, updateInstead; redo; settings")
struct GitSetUpTests {
    @Test("cards init names its first branch by init.defaultBranch; a plain git clone of the bare deck checks it out")
    func defaultBranch() throws {
        let scratch = try Scratch()
        #expect(try scratch.git(["config", "--global", "init.defaultBranch", "trunk"], in: scratch.root).status == 0)
        let server = scratch.path("server.git")
        #expect(try scratch.cards(["init", "--bare", server, "--from", Binaries.sampleRepo]).status == 0)
        #expect(try scratch.git(["symbolic-ref", "HEAD"], in: server).stdout == "refs/heads/trunk\n")
        let deck = scratch.path("deck")
        #expect(try scratch.cards(["clone", server, deck]).status == 0)
        #expect(try scratch.cards(["add", "--title", "T", "--url", "https://t.example"], in: deck).status == 0)
        let synced = try scratch.cards(["sync"], in: deck)
        #expect(synced.status == 0, "\(synced.stderr)")
        let plain = scratch.path("plain")
        let cloned = try scratch.git(["clone", "-q", server, plain], in: scratch.root)
        #expect(cloned.status == 0 && !cloned.stderr.contains("warning"), "\(cloned.stderr)")
        #expect(FileManager.default.fileExists(atPath: plain + "/deck.json"))
        #expect(try scratch.git(["log", "-1", "--format=%s"], in: plain).stdout.contains("\"T\""))
        let local = scratch.path("local")
        #expect(try scratch.cards(["init", local]).status == 0)
        #expect(try scratch.git(["branch", "--show-current"], in: local).stdout == "trunk\n")
        #expect(try scratch.cards(["add", "--title", "L", "--url", "https://l.example"], in: local).status == 0)
        try scratch.expectClean(local)
        // The way back a message gives names the deck's branch, and works as given.
        try FileManager.default.removeItem(atPath: local + "/deck.json")
        let status = try scratch.cards(["status"], in: local).stdout
        let back = try #require(status.range(of: "`git checkout trunk -- deck.json`"), "\(status)")
        let line = String(status[back].dropFirst().dropLast())
        #expect(try scratch.run("/bin/sh", ["-c", line], in: local).status == 0, "\(line)")
        try scratch.expectClean(local)
        // Where git reads its global config (GIT_CONFIG_GLOBAL), and `git -c` (GIT_CONFIG_COUNT…).
        let other = scratch.path("other.gitconfig")
        try "[init]\n\tdefaultBranch = elsewhere\n".write(toFile: other, atomically: true, encoding: .utf8)
        for (name, environment) in [
            ("global", ["GIT_CONFIG_GLOBAL": other]),
            (
                "command-line",
                ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "init.defaultBranch", "GIT_CONFIG_VALUE_0": "elsewhere"]
            ),
        ] {
            let deck = scratch.path("deck-\(name)")
            #expect(try scratch.cards(["init", deck], extraEnvironment: environment).status == 0)
            let branch = try scratch.run("/usr/bin/git", ["branch", "--show-current"], in: deck).stdout
            let gitsOwn = scratch.path("git-\(name)")
            #expect(
                try scratch.run("/usr/bin/git", ["init", "-q", gitsOwn], extraEnvironment: environment).status == 0)
            let gits = try scratch.run("/usr/bin/git", ["branch", "--show-current"], in: gitsOwn).stdout
            #expect(branch == "elsewhere\n" && gits == branch, "\(name): cards \(branch), git \(gits)")
        }
    }

    @Test("a SHA-256 repository is refused as such, nothing written")
    func sha256() throws {
        let scratch = try Scratch()
        let repository = scratch.path("sha256")
        #expect(try scratch.git(["init", "-q", "--object-format=sha256", repository], in: scratch.root).status == 0)
        let before = try scratch.fingerprint(repository)
        for arguments in [["list"], ["add", "--title", "X", "--url", "https://x.example"], ["fsck"]] {
            let result = try scratch.cards(arguments, in: repository)
            #expect(result.status == 1)
            #expect(result.stderr.contains("SHA-256 repositories are not supported yet"), "\(result.stderr)")
        }
        #expect(try scratch.fingerprint(repository) == before)
    }

    @Test(
        "a remote on this machine with a working tree and receive.denyCurrentBranch=updateInstead: pushed as git pushes"
    )
    func updateInstead() throws {
        let scratch = try Scratch()
        let origin = try scratch.sampleDeck("origin")
        #expect(try scratch.git(["config", "receive.denyCurrentBranch", "updateInstead"], in: origin).status == 0)
        let laptop = scratch.path("laptop")
        #expect(try scratch.cards(["clone", origin, laptop]).status == 0)
        let id = try scratch.cards(["add", "--title", "Pushed", "--url", "https://p.example"], in: laptop)
        #expect(id.status == 0)
        let synced = try scratch.cards(["sync"], in: laptop)
        #expect(synced.status == 0, "\(synced.stderr)")
        // The remote's working tree was brought along by git: the card is there, and git sees no change.
        let shown = try scratch.cards(["show", id.stdout.trimmingCharacters(in: .newlines)], in: origin)
        #expect(shown.status == 0 && shown.stdout.contains("Pushed"), "\(shown.stderr)")
        try scratch.expectClean(origin)
        // Without the setting, refused before anything, as git refuses it.
        #expect(try scratch.git(["config", "--unset", "receive.denyCurrentBranch"], in: origin).status == 0)
        #expect(try scratch.cards(["add", "--title", "Not", "--url", "https://n.example"], in: laptop).status == 0)
        let refused = try scratch.cards(["sync"], in: laptop)
        #expect(refused.status == 1 && refused.stderr.contains("has a working tree"), "\(refused.stderr)")
    }

    @Test("undoing an undo redoes it; subjects without quotes in quotes; the undo stack goes on after a redo")
    func redo() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let cards = try scratch.cards(["list", "--json"], in: deck).stdout
        #expect(try scratch.cards(["undo"], in: deck).status == 0)
        #expect(try scratch.cards(["list"], in: deck).stdout.isEmpty)
        let redone = try scratch.cards(["undo", "HEAD"], in: deck)
        #expect(redone.status == 0 && redone.stdout.hasPrefix("Redid: Import 16 cards"), "\(redone.stdout)")
        #expect(try scratch.cards(["list", "--json"], in: deck).stdout == cards)
        let subjects = try scratch.git(["log", "-2", "--format=%s"], in: deck).stdout
        #expect(subjects == "Redo: Import 16 cards from sample-repo\nUndo: Import 16 cards from sample-repo\n")
        // Redone, the import is this device's newest operation again.
        let again = try scratch.cards(["undo"], in: deck)
        #expect(again.status == 0 && again.stdout.contains("Undid: Import 16 cards"), "\(again.stdout)")
        #expect(try scratch.cards(["list"], in: deck).stdout.isEmpty)
        try scratch.expectClean(deck)
    }

    @Test("settings that mean nothing are refused naming the variable, nothing written")
    func invalidSettings() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let before = try scratch.commits(deck)
        for (name, value) in [("CARDS_LOCK_TIMEOUT", "soon"), ("CARDS_LOCK_TIMEOUT", "-3"), ("CARDS_FSYNC", "maybe")] {
            let result = try scratch.cards(
                ["add", "--title", "X", "--url", "https://x.example"], in: deck, extraEnvironment: [name: value])
            #expect(result.status == 1 && result.stderr.contains("\(name)='\(value)'"), "\(result.stderr)")
        }
        #expect(try scratch.git(["config", "cards.fsync", "sometimes"], in: deck).status == 0)
        let configured = try scratch.cards(["list"], in: deck)
        #expect(configured.status == 1 && configured.stderr.contains("cards.fsync 'sometimes'"), "\(configured.stderr)")
        #expect(try scratch.git(["config", "cards.fsync", "strict"], in: deck).status == 0)
        #expect(try scratch.cards(["list"], in: deck, extraEnvironment: ["CARDS_LOCK_TIMEOUT": "inf"]).status == 0)
        #expect(try scratch.commits(deck) == before)
    }
}
