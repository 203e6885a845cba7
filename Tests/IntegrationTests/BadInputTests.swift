import Foundation
import Testing

/// Bad input: one clear error line naming the culprit, exit 1 (64 for usage), the deck unchanged.
@Suite("Bad input gets a clear error and changes nothing")
struct BadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var status: Int32
        var mentions: [String]
        var testDescription: String { name }
    }

    static let ambiguousA = "aaaa0000-0000-4000-8000-000000000001"
    static let ambiguousB = "aaaa1111-0000-4000-8000-000000000002"

    static let cases: [Case] = [
        Case(
            name: "invalid URL", arguments: ["add", "--title", "X", "--url", "ftp://files.example"], status: 1,
            mentions: ["indexURL (--url):", "ftp://files.example"]),
        Case(
            name: "URL with no scheme", arguments: ["add", "--title", "X", "--url", "github.com/me"], status: 1,
            mentions: ["indexURL (--url):"]),
        Case(
            name: "empty title", arguments: ["add", "--title", "   ", "--url", "https://a.example"], status: 1,
            mentions: ["title"]),
        Case(
            name: "too-long title",
            arguments: ["add", "--title", String(repeating: "x", count: 201), "--url", "https://a.example"], status: 1,
            mentions: ["title", "200"]),
        Case(
            name: "bad colour", arguments: ["add", "--title", "X", "--url", "https://a.example", "--color", "#12345g"],
            status: 1, mentions: ["color", "#12345g"]),
        Case(
            name: "bad icon", arguments: ["add", "--title", "X", "--url", "https://a.example", "--icon", "Git Hub"],
            status: 1, mentions: ["platformIcon (--icon):"]),
        Case(
            name: "unknown id", arguments: ["show", "ffffffff-ffff-4fff-8fff-ffffffffffff"], status: 1,
            mentions: ["ffffffff-ffff-4fff-8fff-ffffffffffff"]),
        Case(name: "unknown prefix", arguments: ["edit", "fffff", "--title", "Y"], status: 1, mentions: ["fffff"]),
        Case(
            name: "ambiguous prefix", arguments: ["delete", "aaaa"], status: 1,
            mentions: ["aaaa", ambiguousA, ambiguousB]),
        Case(name: "path-like id", arguments: ["show", "../../etc/passwd"], status: 1, mentions: ["../../etc/passwd"]),
        Case(
            name: "path-like --id",
            arguments: ["add", "--title", "X", "--url", "https://a.example", "--id", "../../etc/passwd"], status: 1,
            mentions: ["../../etc/passwd"]),
        Case(
            name: "id set by --set", arguments: ["edit", ambiguousA, "--set", "id=\"x\""], status: 1, mentions: ["id"]),
        Case(
            name: "--set with bad JSON", arguments: ["edit", ambiguousA, "--set", "pinned=yes please"], status: 64,
            mentions: ["pinned", "not JSON"]),
        Case(
            name: "mistyped option", arguments: ["add", "--titel", "X"], status: 64,
            mentions: ["--titel", "did you mean '--title'?"]),
        Case(
            name: "mistyped global option", arguments: ["--dekc", "d", "list"], status: 64,
            mentions: ["--dekc", "did you mean '--deck'?"]),
        Case(
            name: "--deck twice", arguments: ["--deck", "a", "--deck=b", "list"], status: 64,
            mentions: ["'--deck' given more than once"]),
        Case(name: "missing value", arguments: ["add", "--title"], status: 64, mentions: ["--title"]),
        Case(
            name: "missing required option", arguments: ["add", "--url", "https://a.example"], status: 64,
            mentions: ["--title"]),
        Case(name: "unknown command", arguments: ["frobnicate"], status: 64, mentions: ["frobnicate"]),
        Case(name: "mistyped command", arguments: ["lsit"], status: 64, mentions: ["lsit", "did you mean 'list'?"]),
        Case(
            name: "--deck with no command (its value taken for the folder)", arguments: ["--deck", "list"], status: 64,
            mentions: ["no command after '--deck list'"]),
        Case(
            name: "another tool's word", arguments: ["remove", ambiguousA], status: 64,
            mentions: ["remove", "did you mean 'delete'?"]),
        Case(
            name: "mistyped subcommand", arguments: ["remote", "ad", "origin", "file:///tmp/x"], status: 64,
            mentions: ["'ad'", "did you mean 'add'?"]),
        Case(
            name: "edit with nothing to change", arguments: ["edit", ambiguousA], status: 64,
            mentions: ["nothing to change", "--title", "--set"]),
        Case(
            name: "move with two positions", arguments: ["move", ambiguousA, "--top", "--bottom"], status: 64,
            mentions: ["exactly one"]),
        Case(name: "log -n not a number", arguments: ["log", "-n", "ten"], status: 64, mentions: ["ten"]),
        Case(name: "log -n without a value", arguments: ["log", "-n"], status: 64, mentions: ["'-n <n>'"]),
        Case(name: "log -n with a word attached", arguments: ["log", "-nten"], status: 64, mentions: ["ten"]),
        Case(
            name: "import of a missing file", arguments: ["import", "/nonexistent/cards.json"], status: 1,
            mentions: ["/nonexistent/cards.json"]),
        Case(
            name: "undo on a fresh deck is refused with a reason", arguments: ["restore", "bbbb"], status: 1,
            mentions: ["bbbb"]),
    ]

    @Test("each bad command fails clearly and leaves the deck as it was", arguments: cases)
    func badCommand(_ item: Case) throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        for id in [Self.ambiguousA, Self.ambiguousB] {
            #expect(
                try scratch.cards(["add", "--title", "Twin", "--url", "https://twin.example", "--id", id], in: deck)
                    .status == 0)
        }
        let before = try scratch.fingerprint(deck)
        let result = try scratch.cards(item.arguments, in: deck)
        #expect(result.status == item.status, "exit \(result.status), stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
        for word in item.mentions {
            #expect(result.stderr.contains(word), "the error should name '\(word)': \(result.stderr)")
        }
        if !item.mentions.contains(where: { $0.hasPrefix("did you mean") }) {
            #expect(!result.stderr.contains("did you mean"), "no near name to suggest: \(result.stderr)")
        }
        if item.status == 64 {
            #expect(result.stderr.contains("Usage: cards"))
            #expect(result.stderr.contains("--help"))
        } else {
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 || item.name == "ambiguous prefix", "one line: \(result.stderr)")
        }
        #expect(try scratch.fingerprint(deck) == before, "the deck changed")
    }

    @Test("a working tree on another branch, or detached: writes and status refused naming it, nothing changed")
    func otherCheckout() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = try #require(try scratch.cardIDs(deck).sorted().first)
        for (checkout, named) in [
            (["checkout", "-q", "-b", "side"], "branch side"), (["checkout", "-q", "--detach"], "HEAD is detached"),
        ] {
            try scratch.git(checkout, in: deck)
            let before = try scratch.fingerprint(deck)
            let main = try scratch.revParse(deck, "main")
            for arguments in [["edit", id, "--title", "Elsewhere"], ["status"], ["commit"], ["undo"]] {
                let result = try scratch.cards(arguments, in: deck)
                #expect(result.status == 1, "\(arguments): \(result.stdout)")
                #expect(result.stderr.contains(named) && result.stderr.contains("git switch main"), "\(result.stderr)")
            }
            let fsck = try scratch.cards(["fsck"], in: deck)
            #expect(fsck.status == 1 && (fsck.stdout + fsck.stderr).contains(named), "\(fsck.stdout)")
            #expect(try scratch.fingerprint(deck) == before && (try scratch.revParse(deck, "main")) == main)
        }
        try scratch.git(["checkout", "-q", "main"], in: deck)
        #expect(try scratch.cards(["edit", id, "--title", "Back"], in: deck).status == 0)
        try scratch.expectClean(deck)
        // A second worktree on main too: each would take the other's new cards for hand deletions.
        let other = scratch.path("other")
        try scratch.git(["worktree", "add", "-q", "--force", other, "main"], in: deck)
        for (here, there) in [(deck, other), (other, deck)] {
            let before = try scratch.revParse(deck, "main")
            let refused = try scratch.cards(["add", "--title", "Twice", "--url", "https://t.example"], in: here)
            #expect(refused.status == 1, "\(refused.stdout)")
            let named = "main is also checked out in the worktree at \(there)"
            #expect(refused.stderr.contains(named), "\(refused.stderr)")
            #expect(try scratch.revParse(deck, "main") == before)
        }
        // Detached there, cards works here again; a worktree whose folder is gone is no longer in the way.
        try scratch.git(["switch", "-q", "--detach"], in: other)
        #expect(try scratch.cards(["edit", id, "--title", "Again"], in: deck).status == 0)
        // And there, it says where main is (git would not switch to main there).
        let there = try scratch.cards(["edit", id, "--title", "There"], in: other)
        #expect(there.status == 1 && there.stderr.contains("checked out in the worktree at \(deck)"), "\(there.stderr)")
        #expect(there.stderr.contains("cards --deck \(deck)"))
        try scratch.git(["switch", "-q", "--ignore-other-worktrees", "main"], in: other)
        try FileManager.default.removeItem(atPath: other)
        #expect(try scratch.cards(["edit", id, "--title", "Once more"], in: deck).status == 0)
        try scratch.expectClean(deck)
    }

    @Test("--deck after the command, ~ in --deck=, and a $CARDS_DECK that names no deck said to be it")
    func deckOptionPlaces() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let expected = try scratch.cards(["list"], in: deck).stdout
        #expect(try scratch.cards(["list", "--deck", deck]).stdout == expected)
        #expect(try scratch.cards(["list", "--deck=" + deck]).stdout == expected)
        let home = try scratch.cards(["--deck=~/deck", "list"], extraEnvironment: ["HOME": scratch.root])
        #expect(home.status == 0 && home.stdout == expected, "\(home.stderr)")
        let twice = try scratch.cards(["--deck", deck, "list", "--deck", deck])
        #expect(twice.status == 64 && twice.stderr.contains("'--deck' given more than once"))
        let missing = try scratch.cards(["list", "--deck"])
        #expect(missing.status == 64 && missing.stderr.contains("missing value for '--deck <dir>'"))
        // A value that looks like the option is still a value of the option before it.
        let added = try scratch.cards(["add", "--title", "--deck", "--url", "https://x.example", "--deck", deck])
        #expect(added.status == 0, "\(added.stderr)")
        let environment = try scratch.cards(["list"], extraEnvironment: ["CARDS_DECK": scratch.path("nowhere")])
        #expect(environment.status == 1, "\(environment.stderr)")
        #expect(environment.stderr.hasPrefix("Error: $CARDS_DECK: "), "\(environment.stderr)")
    }

    @Test("a bare deck with main checked out in a worktree of its own: writes and pushes into it refused")
    func bareDeckWithWorktree() throws {
        let scratch = try Scratch()
        let (remote, clones) = try scratch.remoteAndClones(["clone"])
        let clone = clones[0]
        let worktree = scratch.path("wt")
        #expect(try scratch.git(["worktree", "add", "-q", worktree, "main"], in: remote).status == 0)
        let main = try scratch.revParse(remote, "main")
        let write = try scratch.cards(["--deck", remote, "add", "--title", "X", "--url", "https://x.example"])
        #expect(
            write.status == 1 && write.stderr.contains("checked out in the worktree at \(worktree)"), "\(write.stderr)")
        #expect(try scratch.cards(["add", "--title", "Y", "--url", "https://y.example"], in: clone).status == 0)
        let push = try scratch.cards(["sync"], in: clone)
        #expect(push.status == 1 && push.stderr.contains("is checked out in \(worktree)"), "\(push.stderr)")
        #expect(try scratch.revParse(remote, "main") == main)
        // A gitdir written relative (git 2.48's worktree.useRelativePaths) names the same worktree.
        let administrative = try FileManager.default.contentsOfDirectory(atPath: remote + "/worktrees")[0]
        try "../../../wt/.git\n".write(
            toFile: remote + "/worktrees/\(administrative)/gitdir", atomically: true, encoding: .utf8)
        let relative = try scratch.cards(["--deck", remote, "add", "--title", "Z", "--url", "https://z.example"])
        #expect(relative.status == 1 && relative.stderr.contains("worktree at"), "\(relative.stderr)")
        #expect(try scratch.revParse(remote, "main") == main)
    }

    @Test("list on an empty deck: nothing on standard output, a hint on standard error")
    func listEmptyDeck() throws {
        let scratch = try Scratch()
        #expect(try scratch.cards(["init", scratch.path("empty")]).status == 0)
        let list = try scratch.cards(["list"], in: scratch.path("empty"))
        #expect(list.status == 0 && list.stdout.isEmpty)
        #expect(list.stderr.contains("no cards yet") && list.stderr.contains("cards add"), "\(list.stderr)")
        let json = try scratch.cards(["list", "--json"], in: scratch.path("empty"))
        #expect(json.status == 0 && json.stdout == "[]\n" && json.stderr.isEmpty, "\(json.stdout)")
    }

    @Test("a folder that is not a deck, and a git repository that is not one")
    func notADeck() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path("plain"), withIntermediateDirectories: true)
        let plain = try scratch.cards(["list"], in: scratch.path("plain"))
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("not a deck") && plain.stderr.contains("cards init"))
        try FileManager.default.createDirectory(atPath: scratch.path("repo"), withIntermediateDirectories: true)
        try scratch.git(["init", "-q"], in: scratch.path("repo"))
        let repo = try scratch.cards([
            "--deck", scratch.path("repo"), "add", "--title", "X", "--url", "https://x.example",
        ])
        #expect(repo.status == 1)
        #expect(repo.stderr.contains("not a deck") && repo.stderr.contains("cards init <folder>"), "\(repo.stderr)")
        #expect(try scratch.git(["rev-list", "--all"], in: scratch.path("repo")).stdout.isEmpty)
        let initThere = try scratch.cards(["--deck", scratch.path("repo"), "init"])
        #expect(initThere.status == 1 && initThere.stderr.contains("is already a git repository"))
        // --deck names a deck's own folder: one inside a deck or a repository says so, and which.
        let deck = try scratch.sampleDeck()
        let inside = try scratch.cards(["--deck", deck + "/cards", "list"])
        #expect(inside.status == 1)
        #expect(inside.stderr.contains("is inside the deck at \(deck)"))
        #expect(inside.stderr.contains("use the deck's folder"))
        let missingInside = try scratch.cards(["--deck", deck + "/cardz", "list"])
        #expect(missingInside.stderr.contains("does not exist, and would be inside the deck at \(deck)"))
        let fileInside = try scratch.cards(["--deck", deck + "/deck.json", "list"])
        #expect(fileInside.stderr.contains("deck.json is inside the deck at \(deck)"), "\(fileInside.stderr)")
        try FileManager.default.createDirectory(atPath: scratch.path("repo/sub"), withIntermediateDirectories: true)
        let inRepo = try scratch.cards(["--deck", scratch.path("repo/sub"), "list"])
        #expect(inRepo.status == 1 && inRepo.stderr.contains("inside the git repository at"), "\(inRepo.stderr)")
        // ... where a deck may be made, as the message says (a deck in a dotfiles repository, say), when
        // asked for: a repository nested in another is not made by accident.
        #expect(inRepo.stderr.contains("cards init --nested"), "\(inRepo.stderr)")
        let unasked = try scratch.cards(["init", scratch.path("repo/sub")])
        #expect(unasked.status == 1 && unasked.stderr.contains("--nested"), "\(unasked.stderr)")
        #expect(try scratch.cards(["init", "--nested", scratch.path("repo/sub")]).status == 0)
        #expect(try scratch.cards(["--deck", scratch.path("repo/sub"), "list"]).status == 0)
        let missing = try scratch.cards(["--deck", scratch.path("nowhere"), "list"])
        #expect(missing.status == 1 && missing.stderr.contains("does not exist"), "\(missing.stderr)")
        // A deck is never made inside another: the outer one would show broken card files.
        for nested in [deck + "/cards", deck + "/new", deck + "/cards/sub"] {
            let made = try scratch.cards(["init", nested])
            #expect(made.status == 1 && made.stderr.contains("inside the deck at \(deck)"), "\(made.stderr)")
            #expect(!FileManager.default.fileExists(atPath: nested + "/.git"))
        }
        let bareNested = try scratch.cards(["init", "--bare", deck + "/server.git"])
        #expect(bareNested.status == 1 && !FileManager.default.fileExists(atPath: deck + "/server.git"))
        let cloned = try scratch.cards(["clone", deck, deck + "/copy"])
        #expect(cloned.status == 1 && cloned.stderr.contains("inside the deck at \(deck)"), "\(cloned.stderr)")
        #expect(!FileManager.default.fileExists(atPath: deck + "/copy"))
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
        try scratch.expectClean(deck)
    }

    @Test("no git identity configured: a clear error telling how to set one, nothing left behind, the retry works")
    func noIdentity() throws {
        let scratch = try Scratch(identity: false)
        let deck = scratch.path("deck")
        // git detects an identity from the system where it can (a host name with a domain); cards asks
        // git then. On a host where git cannot, both refuse.
        let gitKnows = try scratch.run("/usr/bin/git", ["var", "GIT_AUTHOR_IDENT"], in: scratch.root).status == 0
        try #require(!gitKnows, "git detects an identity on this host; the refusal cannot be tested here")
        let result = try scratch.cards(["init", deck])
        #expect(result.status == 1)
        #expect(result.stderr.contains("user.name") && result.stderr.contains("CARDS_AUTHOR_NAME"))
        #expect(!FileManager.default.fileExists(atPath: deck), "the failed init left \(deck) behind")
        // An existing empty folder (with --from) is left empty, and the same command works once there
        // is an identity.
        try FileManager.default.createDirectory(atPath: deck, withIntermediateDirectories: true)
        let fromSample = try scratch.cards(["init", deck, "--from", Binaries.sampleRepo])
        #expect(fromSample.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: deck).isEmpty, "the failed init left files")
        let retried = try scratch.cards(
            ["init", deck, "--from", Binaries.sampleRepo],
            extraEnvironment: ["CARDS_AUTHOR_NAME": "Env Person", "CARDS_AUTHOR_EMAIL": "env@example.invalid"])
        #expect(retried.status == 0, "\(retried.stderr)")
        let withEnv = try scratch.cards(
            ["init", scratch.path("deck2")],
            extraEnvironment: ["CARDS_AUTHOR_NAME": "Env Person", "CARDS_AUTHOR_EMAIL": "env@example.invalid"])
        #expect(withEnv.status == 0, "\(withEnv.stderr)")
        #expect(
            try scratch.git(["log", "-1", "--format=%an <%ae>"], in: scratch.path("deck2")).stdout
                == "Env Person <env@example.invalid>\n")
    }

    @Test("an identity git cleans (angle brackets) is written as git writes it; one of punctuation only is refused")
    func unwritableIdentity() throws {
        let scratch = try Scratch(identity: false)
        let withEnv = ["CARDS_AUTHOR_EMAIL": "ada@example.invalid"]
        let cleaned = scratch.path("deck-cleaned")
        let made = try scratch.cards(
            ["init", cleaned], extraEnvironment: withEnv.merging(["CARDS_AUTHOR_NAME": "Ada <ada@home>"]) { $1 })
        #expect(made.status == 0, "\(made.stderr)")
        #expect(
            try scratch.git(["log", "-1", "--format=%an <%ae>"], in: cleaned).stdout
                == "Ada ada@home <ada@example.invalid>\n")
        let deck = scratch.path("deck-dots")
        let result = try scratch.cards(
            ["init", deck], extraEnvironment: withEnv.merging(["CARDS_AUTHOR_NAME": "..."]) { $1 })
        #expect(result.status == 1)
        #expect(result.stderr.contains("\"...\""), "the name is not named: \(result.stderr)")
        #expect(result.stderr.contains("user.name") && result.stderr.contains("CARDS_AUTHOR_NAME"))
        #expect(!FileManager.default.fileExists(atPath: deck), "the failed init left \(deck) behind")
    }

    @Test("init on a path that is a file: refused, the file left as it was")
    func initOnAFile() throws {
        let scratch = try Scratch()
        let file = scratch.path("notes.txt")
        writeFileCloseOnExec(file, "precious\n")
        let result = try scratch.cards(["init", file])
        #expect(result.status == 1)
        #expect(result.stderr.contains("exists and is not a folder"), "\(result.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "precious\n")
    }

    @Test("a bad card file in the deck: list names it and lists the rest, commit refuses it, nothing deletes it")
    func badCardFile() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let count = try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").count
        let badID = "0bad0bad-0000-4000-8000-000000000000"
        let relative = "cards/0b/\(badID).json"
        try FileManager.default.createDirectory(atPath: deck + "/cards/0b", withIntermediateDirectories: true)
        try "{ this is not json".write(toFile: deck + "/" + relative, atomically: true, encoding: .utf8)
        // Hand edit not committed: status names it, commit refuses, the file stays.
        let status = try scratch.cards(["status"], in: deck)
        #expect(status.stdout.contains("invalid") && status.stdout.contains(relative))
        let commit = try scratch.cards(["commit"], in: deck)
        #expect(commit.status == 1)
        #expect(commit.stderr.contains(relative))
        #expect(FileManager.default.fileExists(atPath: deck + "/" + relative))
        // Committed behind our back with git: list still lists the rest and names the bad file.
        try scratch.git(["add", relative], in: deck)
        try scratch.git(["commit", "-q", "-m", "bad file from elsewhere"], in: deck)
        let list = try scratch.cards(["list"], in: deck)
        #expect(list.status == 0)
        #expect(list.stdout.split(separator: "\n").count == count)
        #expect(list.stderr.contains(relative))
        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(fsck.status == 1 && fsck.stderr.contains(relative))
        // Other commands keep working and never delete it.
        #expect(
            try scratch.cards(["add", "--title", "Still works", "--url", "https://ok.example"], in: deck).status == 0)
        #expect(FileManager.default.fileExists(atPath: deck + "/" + relative))
        #expect(try scratch.git(["cat-file", "-e", "main:\(relative)"], in: deck).status == 0)
    }

    @Test("a git merge stopped on conflicts: writes refused naming `git merge --abort`, fsck says so, nothing written")
    func unfinishedGitMerge() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        // Two branches change the same line of a plain file: `git merge` by hand stops on it.
        writeFileCloseOnExec(deck + "/notes.txt", "base\n")
        try scratch.git(["add", "notes.txt"], in: deck)
        try scratch.git(["commit", "-q", "-m", "notes"], in: deck)
        try scratch.git(["checkout", "-q", "-b", "other"], in: deck)
        writeFileCloseOnExec(deck + "/notes.txt", "theirs\n")
        try scratch.git(["commit", "-q", "-am", "theirs"], in: deck)
        try scratch.git(["checkout", "-q", "main"], in: deck)
        writeFileCloseOnExec(deck + "/notes.txt", "ours\n")
        try scratch.git(["commit", "-q", "-am", "ours"], in: deck)
        #expect(try scratch.git(["merge", "-q", "other"], in: deck).status != 0)
        let before = try scratch.revParse(deck, "main")
        for arguments in [["add", "--title", "During a merge", "--url", "https://m.example"], ["commit"], ["sync"]] {
            let result = try scratch.cards(arguments, in: deck)
            #expect(result.status == 1, "cards \(arguments[0]): \(result.stderr)")
            #expect(
                result.stderr.contains("git merge is unfinished") && result.stderr.contains("git merge --abort"),
                "cards \(arguments[0]): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"))
        }
        #expect(try scratch.revParse(deck, "main") == before)
        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(fsck.status == 1 && fsck.stderr.contains("git merge is unfinished"), "\(fsck.stderr)")
        // Once git's merge is abandoned, the same command works.
        try scratch.git(["merge", "--abort"], in: deck)
        #expect(
            try scratch.cards(["add", "--title", "After the merge", "--url", "https://m.example"], in: deck).status == 0
        )
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
    }

    @Test("a card file that breaks a rule, a 10 MB file and invalid UTF-8 are named and refused")
    func hostileFiles() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        try FileManager.default.createDirectory(atPath: deck + "/cards/0c", withIntermediateDirectories: true)
        let ruleID = "0c000000-0000-4000-8000-000000000001"
        let rule =
            "{\"id\": \"\(ruleID)\", \"title\": \"\", \"indexURL\": \"x.example\", \"color\": \"bleu\", \"rank\": \"a0\"}"
        try rule.write(toFile: deck + "/cards/0c/\(ruleID).json", atomically: true, encoding: .utf8)
        let bigID = "0c000000-0000-4000-8000-000000000002"
        try Data(repeating: 0x20, count: 10 * 1024 * 1024).write(
            to: URL(fileURLWithPath: deck + "/cards/0c/\(bigID).json"))
        let utfID = "0c000000-0000-4000-8000-000000000003"
        var bytes = Data("{\"id\": \"\(utfID)\", \"title\": \"bad ".utf8)
        bytes.append(contentsOf: [0xff, 0xfe])
        bytes.append(Data("\", \"indexURL\": \"https://x.example\", \"color\": \"blue\", \"rank\": \"a0\"}".utf8))
        try bytes.write(to: URL(fileURLWithPath: deck + "/cards/0c/\(utfID).json"))
        let status = try scratch.cards(["status"], in: deck)
        #expect(status.status == 0)
        for id in [ruleID, bigID, utfID] {
            #expect(status.stdout.contains("invalid     cards/0c/\(id).json"), "\(id) not named: \(status.stdout)")
        }
        // Every fault of a file named at once: its title, its URL and its colour.
        for field in ["title:", "indexURL:", "color:"] {
            #expect(status.stdout.contains(field), "\(field) not named: \(status.stdout)")
        }
        let before = try scratch.commits(deck)
        let commit = try scratch.cards(["commit"], in: deck)
        #expect(commit.status == 1)
        for id in [ruleID, bigID, utfID] { #expect(commit.stderr.contains(id)) }
        for field in ["title:", "indexURL:", "color:"] {
            #expect(commit.stderr.contains(field), "\(field) not named: \(commit.stderr)")
        }
        #expect(try scratch.commits(deck) == before)
        for id in [ruleID, bigID, utfID] {
            #expect(FileManager.default.fileExists(atPath: deck + "/cards/0c/\(id).json"))
        }
    }

    @Test("a card edited by hand is not overwritten by a command on that card")
    func handEditProtected() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = try #require(try scratch.cards(["list"], in: deck).stdout.split(separator: " ").first.map(String.init))
        let full = try scratch.cards(["show", id, "--json"], in: deck).stdout
        let path = try #require(
            FileManager.default.subpathsOfDirectory(atPath: deck + "/cards").first {
                $0.contains(id) && $0.hasSuffix(".json")
            })
        try full.replacingOccurrences(of: "\"title\": \"", with: "\"title\": \"HAND ").write(
            toFile: deck + "/cards/" + path, atomically: true, encoding: .utf8)
        let edit = try scratch.cards(["edit", id, "--color", "red"], in: deck)
        #expect(edit.status == 1)
        #expect(edit.stderr.contains("hand edits") && edit.stderr.contains("cards commit"))
        #expect(try String(contentsOfFile: deck + "/cards/" + path, encoding: .utf8).contains("HAND "))
    }

    @Test(
        "a cut-short or missing git index: writes refuse before committing; fsck names it and --repair makes it again")
    func damagedIndex() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let index = deck + "/.git/index"
        for damage in ["cut short", "missing"] {
            let commits = try scratch.commits(deck)
            if damage == "missing" {
                try FileManager.default.removeItem(atPath: index)
            } else {
                #expect(truncate(index, 100) == 0)
            }
            let add = try scratch.cards(["add", "--title", "X", "--url", "https://x.example"], in: deck)
            #expect(add.status == 1 && add.stderr.contains("nothing was changed"), "\(damage): \(add.stderr)")
            #expect(add.stderr.contains("`cards fsck --repair`"), "\(add.stderr)")
            #expect(try scratch.commits(deck) == commits, "\(damage): no commit made")
            let fsck = try scratch.cards(["fsck"], in: deck)
            #expect(fsck.status == 1 && fsck.stderr.contains(".git/index: "), "\(damage): \(fsck.stderr)")
            let repair = try scratch.cards(["fsck", "--repair"], in: deck)
            #expect(repair.status == 0 && repair.stdout.contains("made the index"), "\(damage): \(repair.stdout)")
            try scratch.expectClean(deck)
            #expect(try scratch.cards(["add", "--title", "X", "--url", "https://x.example"], in: deck).status == 0)
            try scratch.expectClean(deck)
        }
    }

    @Test("a shallow clone, a damaged pack and a remote named with '/' are said with what to do")
    func damagedRepositoriesSaidPlainly() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        #expect(try scratch.cards(["add", "--title", "A", "--url", "https://a.example"], in: deck).status == 0)
        let slash = try scratch.cards(["remote", "add", "origin/main", scratch.path("x.git")], in: deck)
        #expect(slash.status == 1 && slash.stderr.contains("no '/' in a remote's name"), "\(slash.stderr)")
        let shallow = scratch.path("shallow")
        try scratch.gitChecked(
            ["clone", "-q", "--depth", "1", "-b", "main", "file://" + deck, shallow], in: scratch.root)
        // log shows what the clone has; what needs the rest of the history says how to get it.
        let log = try scratch.cards(["log"], in: shallow)
        #expect(log.status == 0 && log.stdout.contains("Add card \"A\""), "\(log.stdout)\(log.stderr)")
        #expect(log.stderr.contains("shallow clone") && log.stderr.contains("`git fetch --unshallow`"), "\(log.stderr)")
        let restore = try scratch.cards(["restore", "deadbeef"], in: shallow)
        #expect(restore.status == 1 && restore.stderr.contains("`git fetch --unshallow`"), "\(restore.stderr)")
        // Every byte of the packs flipped here and there: the commit cannot be read.
        let packs = deck + "/.git/objects/pack"
        for name in try FileManager.default.contentsOfDirectory(atPath: packs) where name.hasSuffix(".pack") {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: packs + "/" + name)))
            for index in stride(from: 200, to: bytes.count - 40, by: 97) { bytes[index] ^= 0x55 }
            try Data(bytes).write(to: URL(fileURLWithPath: packs + "/" + name))
        }
        let list = try scratch.cards(["list"], in: deck)
        #expect(list.status == 1 && list.stderr.contains("`git fsck` names"), "\(list.stderr)")
    }

    @Test(
        "a card whose object is damaged is said to be unreadable, with what names the damage, not to be fixed by hand")
    func damagedCardObjectSaidAsSuch() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        // The pack's last object (a card blob: the import writes blobs last) damaged near its end.
        let packs = deck + "/.git/objects/pack"
        let names = try FileManager.default.contentsOfDirectory(atPath: packs).filter { $0.hasSuffix(".pack") }
        let biggest = try #require(
            names.max {
                ((try? FileManager.default.attributesOfItem(atPath: packs + "/" + $0)[.size] as? Int) ?? 0)
                    < ((try? FileManager.default.attributesOfItem(atPath: packs + "/" + $1)[.size] as? Int) ?? 0)
            })
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: packs + "/" + biggest)))
        for index in (bytes.count - 30)..<(bytes.count - 26) { bytes[index] = 0xFF }
        try Data(bytes).write(to: URL(fileURLWithPath: packs + "/" + biggest))
        let list = try scratch.cards(["list"], in: deck)
        #expect(list.status == 0 && list.stdout.split(separator: "\n").count == 15, "\(list.stdout)")
        #expect(list.stderr.contains("could not be read and was skipped"), "\(list.stderr)")
        #expect(list.stderr.contains("`cards fsck` names it") && !list.stderr.contains("not a valid card"))
        let export = try scratch.cards(["export"], in: deck)
        #expect(export.status == 1 && export.stderr.contains("could not be read and was not exported"))
        #expect(try scratch.cards(["fsck"], in: deck).status == 1)
    }

    @Test(
        "status lists committed invalid files as they come and go (remembered with their tree, judged again as they change)"
    )
    func committedInvalidFilesFollowMain() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = try #require(try scratch.cardIDs(deck).sorted().first)
        let path = "cards/\(id.prefix(2))/\(id).json"
        func listed() throws -> [String] {
            try scratch.cards(["status"], in: deck).stdout.split(separator: "\n")
                .filter { $0.hasPrefix("invalid") && $0.hasSuffix("(committed)") }
                .map { String($0.split(separator: " ", omittingEmptySubsequences: true)[1].dropLast()) }
        }
        #expect(try listed().isEmpty)
        let original = try String(contentsOfFile: deck + "/" + path, encoding: .utf8)
        try "{\"broken\": true}".write(toFile: deck + "/" + path, atomically: true, encoding: .utf8)
        try scratch.gitChecked(["commit", "-q", "-am", "broken"], in: deck)
        #expect(try listed() == [path])
        // A folder where a card file belongs, and a file of the wrong name, committed by hand.
        try FileManager.default.createDirectory(atPath: deck + "/cards/ab/extra", withIntermediateDirectories: true)
        try "x".write(toFile: deck + "/cards/ab/extra/x.json", atomically: true, encoding: .utf8)
        try "y".write(toFile: deck + "/cards/ab/notes.txt", atomically: true, encoding: .utf8)
        try scratch.gitChecked(["add", "cards"], in: deck)
        try scratch.gitChecked(["commit", "-q", "-m", "odd files"], in: deck)
        #expect(try listed() == ["cards/ab/extra", "cards/ab/notes.txt", path].sorted())
        // Fixed by hand: gone.
        try original.write(toFile: deck + "/" + path, atomically: true, encoding: .utf8)
        try scratch.gitChecked(["rm", "-rq", "cards/ab"], in: deck)
        try scratch.gitChecked(["commit", "-q", "-am", "fixed"], in: deck)
        #expect(try listed().isEmpty)
        // What it remembers damaged or from another tree: judged whole again.
        try "{\"broken\": 1}".write(toFile: deck + "/" + path, atomically: true, encoding: .utf8)
        try scratch.gitChecked(["commit", "-q", "-am", "broken again"], in: deck)
        try "cards-invalid 1 nonsense\n".write(toFile: deck + "/.git/cards-invalid", atomically: true, encoding: .utf8)
        #expect(try listed() == [path])
        // `cards` itself a file, then a folder again: judged by what it is now.
        try original.write(toFile: deck + "/" + path, atomically: true, encoding: .utf8)
        try scratch.gitChecked(["commit", "-q", "-am", "fixed"], in: deck)
        let cards = try scratch.git(["rev-parse", "main:cards"], in: deck).stdout.trimmingCharacters(in: .newlines)
        try scratch.gitChecked(["rm", "-rq", "--cached", "cards"], in: deck)
        let blob = try scratch.run("/usr/bin/git", ["hash-object", "-w", "--stdin"], in: deck, input: Data("x".utf8))
            .stdout
            .trimmingCharacters(in: .newlines)
        try scratch.gitChecked(["update-index", "--add", "--cacheinfo", "100644,\(blob),cards"], in: deck)
        try scratch.gitChecked(["commit", "-q", "-m", "cards a file"], in: deck)
        #expect(try listed() == ["cards"])
        try scratch.gitChecked(["rm", "-q", "--cached", "cards"], in: deck)
        try scratch.gitChecked(["read-tree", "--prefix=cards/", cards], in: deck)
        try scratch.gitChecked(["commit", "-q", "-m", "cards a folder again"], in: deck)
        #expect(try listed().isEmpty)
        // A card whose object is missing for a while (a loose object moved away): said while it is, and
        // not remembered once it is back.
        try (original.replacingOccurrences(of: "\"rank\"", with: "\"zz\": 1, \"rank\""))
            .write(toFile: deck + "/" + path, atomically: true, encoding: .utf8)
        try scratch.gitChecked(["commit", "-q", "-am", "by hand"], in: deck)
        let edited = try scratch.git(["rev-parse", "main:" + path], in: deck).stdout.trimmingCharacters(in: .newlines)
        let object = deck + "/.git/objects/\(edited.prefix(2))/\(edited.dropFirst(2))"
        try FileManager.default.moveItem(atPath: object, toPath: object + ".away")
        let missing = try scratch.cards(["status"], in: deck).stdout
        #expect(missing.contains("could not be read") && missing.contains("`git fsck`"), "\(missing)")
        try FileManager.default.moveItem(atPath: object + ".away", toPath: object)
        #expect(try listed().isEmpty)
    }

    @Test("a missing index: a sync's fast-forward refuses too, before main moves")
    func missingIndexFastForward() throws {
        let scratch = try Scratch()
        let (_, clones) = try scratch.remoteAndClones(["a", "b"])
        let (a, b) = (clones[0], clones[1])
        #expect(try scratch.cards(["add", "--title", "New", "--url", "https://n.example"], in: b).status == 0)
        #expect(try scratch.cards(["sync"], in: b).status == 0)
        let before = try scratch.revParse(a, "main")
        try FileManager.default.removeItem(atPath: a + "/.git/index")
        let sync = try scratch.cards(["sync"], in: a)
        #expect(sync.status == 1 && sync.stderr.contains("`cards fsck --repair`"), "\(sync.stdout)\(sync.stderr)")
        #expect(try scratch.revParse(a, "main") == before, "main did not move")
        #expect(try scratch.cards(["fsck", "--repair"], in: a).status == 0)
        #expect(try scratch.cards(["sync"], in: a).status == 0)
        try scratch.expectClean(a)
    }

    @Test("edit --unset refuses what only resolve or a new card can change, and a field both set and taken out")
    func unsetRefusals() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = try #require(try scratch.cardIDs(deck).sorted().first)
        for (arguments, message) in [
            (["--unset", "conflicts"], "`cards resolve`"), (["--unset", "id"], "never changes"),
            (["--set", "pinned=true", "--unset", "pinned"], "both set (--set) and taken out (--unset)"),
            (["--platform", "X", "--unset", "platformName"], "platformName is both set and taken out"),
            (["--unset", "rank"], "`cards move` changes it"),
        ] {
            let result = try scratch.cards(["edit", id] + arguments, in: deck)
            #expect(result.status == 1 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(try scratch.cards(["edit", id, "--unset", ""], in: deck).status == 64)
        let null = try scratch.cards(["edit", id, "--set", "conflicts=null"], in: deck)
        #expect(null.status == 64 && null.stderr.contains("`cards resolve`"), "\(null.stderr)")
    }
}

extension BadInputTests {
    @Test("output that cannot be written (a full disk, a closed descriptor) is an error, a closed pipe is not")
    func unwritableOutput() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        func shell(_ line: String) throws -> RunResult {
            try scratch.run("/bin/sh", ["-c", line], in: deck, extraEnvironment: ["CARDS": Binaries.cards])
        }
        for command in ["export", "list", "log"] {
            let full = try shell("\"$CARDS\" \(command) > /dev/full")
            #expect(full.status == 1, "\(command) > /dev/full: \(full.status) \(full.stderr)")
            #expect(
                full.stderr.contains("could not write to standard output: No space left on device"), "\(full.stderr)")
            let closed = try shell("\"$CARDS\" \(command) >&-")
            #expect(
                closed.status == 1 && closed.stderr.contains("Bad file descriptor"), "\(command) >&-: \(closed.stderr)")
        }
        // An add whose id cannot be printed: made all the same, and said so.
        let before = try scratch.cardIDs(deck).count
        let add = try shell("\"$CARDS\" add --title 'Full' --url https://full.example > /dev/full")
        #expect(add.status == 1 && add.stderr.contains("`cards log -n 1`"), "\(add.stderr)")
        #expect(try scratch.cardIDs(deck).count == before + 1)
        // A reader that stops early (`| head`, `| true`) closes the pipe: the usual quiet success.
        let piped = try shell("{ \"$CARDS\" export; echo \"status $?\" >&2; } | true")
        #expect(piped.stderr == "status 0\n", "\(piped.stderr)")
    }
}

extension BadInputTests {
    @Test("too few file descriptors (`ulimit -n`): the error says so, and never calls the deck damaged or detached")
    func fileDescriptorLimit() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        var said = 0
        for limit in 4...9 {
            for command in ["list", "add --title 'Limit \(limit)' --url https://l.example"] {
                let result = try scratch.run(
                    "/bin/sh", ["-c", "ulimit -n \(limit); \"$CARDS\" \(command)"], in: deck,
                    extraEnvironment: ["CARDS": Binaries.cards])
                guard result.status != 0 else { continue }
                #expect(!result.stderr.contains("damaged:") && !result.stderr.contains("detached"), "\(result.stderr)")
                #expect(result.stderr.contains("Too many open files") || result.stderr.contains("limit of open files"))
                if result.stderr.contains("limit of open files") { said += 1 }
            }
        }
        #expect(said > 0, "no run hit the limit where git reads")
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
    }
}
