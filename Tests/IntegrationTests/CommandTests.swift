import CardModel
import Foundation
import Testing

/// Every command run as the built binary against a real deck: output, exit status, the commit it
/// made (as the git CLI sees it), and a clean `git status` and `git fsck --strict` after each.
@Suite("Commands against a real deck")
struct CommandTests {
    @Test("init creates a deck git can read, with the merge driver registered")
    func initCreatesDeck() throws {
        let scratch = try Scratch()
        let deck = scratch.path("mine")
        let result = try scratch.cards(["init", deck, "--name", "My cards"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Created deck"))
        #expect(try scratch.commits(deck).count == 1)
        let show = try scratch.git(["show", "main:deck.json"], in: deck).stdout
        #expect(show == "{\n  \"format\": 1,\n  \"name\": \"My cards\"\n}\n")
        #expect(try scratch.git(["config", "merge.cards.driver"], in: deck).stdout.contains("cards merge-driver"))
        #expect(try scratch.git(["config", "pull.rebase"], in: deck).stdout == "false\n")
        #expect(try scratch.git(["show", "main:.gitattributes"], in: deck).stdout.contains("merge=cards"))
        #expect(try scratch.git(["log", "-1", "--format=%B"], in: deck).stdout.contains("Op: init"))
        try scratch.expectClean(deck)
        // A second init in the same place refuses and changes nothing.
        let again = try scratch.cards(["init", deck])
        #expect(again.status == 1)
        #expect(again.stderr.hasPrefix("Error: ") && again.stderr.contains("already a git repository"))
        #expect(try scratch.commits(deck).count == 1)
        // The global --deck names the folder too; two different folders are a usage error.
        let other = scratch.path("other")
        let viaOption = try scratch.cards(["--deck", other, "init"])
        #expect(viaOption.status == 0, "\(viaOption.stderr)")
        #expect(try scratch.commits(other).count == 1)
        let both = try scratch.cards(["--deck", other, "init", scratch.path("third")])
        #expect(both.status == 64 && both.stderr.contains("two folders for init"), "\(both.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("third")))
        // $CARDS_DECK names it too, as for every other command; a folder given to init goes first.
        let fromEnvironment = try scratch.cards(
            ["init"], in: scratch.root, extraEnvironment: ["CARDS_DECK": scratch.path("env")])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        #expect(try scratch.commits(scratch.path("env")).count == 1)
        let given = try scratch.cards(
            ["init", scratch.path("given")], in: scratch.root, extraEnvironment: ["CARDS_DECK": scratch.path("env")])
        #expect(given.status == 0 && FileManager.default.fileExists(atPath: scratch.path("given/.git")))
        #expect(try scratch.cards(["--deck", "", "list"]).status == 64)
        // Two spellings of one folder are one folder.
        let spelled = try scratch.cards(["--deck", "./fourth/", "init", "fourth"], in: scratch.root)
        #expect(spelled.status == 0, "\(spelled.stderr)")
        #expect(try scratch.commits(scratch.path("fourth")).count == 1)
        let dotted = try scratch.cards(["--deck", "fifth/../sixth", "init", scratch.path("sixth")], in: scratch.root)
        #expect(dotted.status == 0, "\(dotted.stderr)")
        #expect(try scratch.commits(scratch.path("sixth")).count == 1)
    }

    @Test("init --from the sample, --bare, and list/show/export")
    func initFromSample() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let sampleFiles = try FileManager.default.subpathsOfDirectory(atPath: Binaries.sampleRepo + "/cards").filter {
            $0.hasSuffix(".json")
        }
        #expect(sampleFiles.count >= 12 && sampleFiles.count <= 20)
        let list = try scratch.cards(["list"], in: deck)
        #expect(list.status == 0)
        #expect(list.stdout.split(separator: "\n").count == sampleFiles.count)
        let json = try scratch.cards(["list", "--json"], in: deck)
        let array = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(array?.count == sampleFiles.count)
        // Each card's file in the deck equals the sample's bytes (the sample is canonical).
        for file in sampleFiles {
            let ours = FileManager.default.contents(atPath: deck + "/cards/" + file)
            let theirs = FileManager.default.contents(atPath: Binaries.sampleRepo + "/cards/" + file)
            #expect(ours == theirs, "\(file) differs from the sample")
        }
        let export = try scratch.cards(["export"], in: deck)
        #expect(export.stdout == json.stdout)
        #expect(try scratch.commits(deck).count == 2)
        try scratch.expectClean(deck)

        let bare = scratch.path("bare.git")
        #expect(try scratch.cards(["init", "--bare", bare, "--from", Binaries.sampleRepo]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: bare + "/cards"))
        let bareList = try scratch.cards(["--deck", bare, "list", "--json"])
        #expect(bareList.stdout == json.stdout)
        let id = try scratch.cards(["--deck", bare, "add", "--title", "Server card", "--url", "https://example.org"])
            .stdout
        #expect(id.count == 37)
        #expect(try scratch.git(["--git-dir", bare, "fsck", "--strict"], in: scratch.root).status == 0)
    }

    @Test(
        "every flush mode (per-file fsyncs, one fsync on a journal, none) commits the same deck, clean for git",
        arguments: ["strict", "ordered-unchecked", "0"])
    func flushModes(_ mode: String) throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let bare = scratch.path("bare.git")
        #expect(try scratch.cards(["init", "--bare", bare, "--from", Binaries.sampleRepo]).status == 0)
        for folder in [deck, bare] {
            let env = ["CARDS_FSYNC": mode]
            let add = try scratch.cards(
                ["add", "--title", "Flushed", "--url", "https://flush.example"], in: folder, extraEnvironment: env)
            #expect(add.status == 0, "\(mode): \(add.stderr)")
            let id = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let edit = try scratch.cards(["edit", id, "--title", "Flushed again"], in: folder, extraEnvironment: env)
            #expect(edit.status == 0, "\(mode): \(edit.stderr)")
            #expect(try scratch.cards(["delete", id], in: folder, extraEnvironment: env).status == 0)
            #expect(try scratch.cards(["undo"], in: folder, extraEnvironment: env).status == 0)
            let show = try scratch.cards(["show", id], in: folder)
            #expect(show.stdout.contains("Flushed again"), "\(mode): \(show.stdout)")
            #expect(try scratch.git(["fsck", "--strict"], in: folder).status == 0)
        }
        // The reflog (a bare deck keeps none, as git's bare repositories): every move of main logged.
        let log = try scratch.git(["reflog", "-n", "4", "main"], in: deck).stdout
        #expect(log.split(separator: "\n").count == 4, "\(mode): reflog of main: \(log)")
        #expect(log.contains("cards: Undo"), "\(mode): \(log)")
        try scratch.expectClean(deck)
    }

    @Test("add, edit, move, delete, show: one commit each, with trailers git reads")
    func addEditMoveDelete() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let before = try scratch.commits(deck).count

        let add = try scratch.cards(
            [
                "add", "--title", "Octocat on GitHub", "--url", "https://github.com/octocat", "--platform", "GitHub",
                "--icon", "github", "--color", "#1f2328",
            ],
            in: deck)
        #expect(add.status == 0, "\(add.stderr)")
        let id = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: id) != nil && id == id.lowercased())
        #expect(add.stdout == id + "\n", "add prints the id alone")
        let path = CardID.path(for: id)
        #expect(
            try scratch.git(["log", "-1", "--format=%B"], in: deck).stdout.contains(
                "Add card \"Octocat on GitHub\"\n\nCard-Id: \(id)\nOp: add"))
        #expect(try scratch.git(["show", "--name-only", "--format=", "main"], in: deck).stdout == path + "\n")
        #expect(try scratch.commits(deck).count == before + 1)
        try scratch.expectClean(deck)

        let show = try scratch.cards(["show", String(id.prefix(6)), "--json"], in: deck)
        #expect(show.status == 0)
        #expect(
            show.stdout
                == String(decoding: FileManager.default.contents(atPath: deck + "/" + path) ?? Data(), as: UTF8.self))

        let edit = try scratch.cards(
            ["edit", String(id.prefix(8)), "--title", "The Octocat", "--color", "purple"], in: deck)
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(
            try scratch.git(["log", "-1", "--format=%s"], in: deck).stdout.contains(
                "Edit card \"The Octocat\": color, title"))
        #expect(try scratch.commits(deck).count == before + 2)
        try scratch.expectClean(deck)

        // A no-op edit makes no commit.
        let noop = try scratch.cards(["edit", id, "--title", "The Octocat"], in: deck)
        #expect(noop.status == 0)
        #expect(try scratch.commits(deck).count == before + 2)

        // Move to the top: only this card's file changes, and it lists first.
        let move = try scratch.cards(["move", id, "--top"], in: deck)
        #expect(move.status == 0, "\(move.stderr)")
        #expect(try scratch.git(["show", "--name-only", "--format=", "main"], in: deck).stdout == path + "\n")
        #expect(try scratch.cards(["list"], in: deck).stdout.hasPrefix(String(id.prefix(8))))
        try scratch.expectClean(deck)

        let delete = try scratch.cards(["delete", String(id.prefix(5))], in: deck)
        #expect(delete.status == 0)
        #expect(!FileManager.default.fileExists(atPath: deck + "/" + path))
        #expect(try scratch.git(["log", "-1", "--format=%B"], in: deck).stdout.contains("Op: delete"))
        #expect(try scratch.commits(deck).count == before + 4)
        try scratch.expectClean(deck)
    }

    @Test("add and edit take typed text without its surrounding spaces, and a colour in any case")
    func typedValues() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = try scratch.cards(
            ["add", "--title", "  Spaced  ", "--url", " https://s.example ", "--color", "#ABCDEF"], in: deck
        ).stdout.trimmingCharacters(in: .newlines)
        var card = try scratch.cards(["show", id, "--json"], in: deck).stdout
        #expect(
            card.contains("\"title\": \"Spaced\"") && card.contains("\"indexURL\": \"https://s.example\""), "\(card)")
        #expect(card.contains("\"color\": \"#abcdef\""), "\(card)")
        #expect(try scratch.cards(["edit", id, "--color", "Red", "--platform", " Web "], in: deck).status == 0)
        card = try scratch.cards(["show", id, "--json"], in: deck).stdout
        #expect(card.contains("\"color\": \"red\"") && card.contains("\"platformName\": \"Web\""), "\(card)")
    }

    @Test("add --after puts the card right after another; move --before/--after/--bottom")
    func ordering() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let ids = try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").map { String($0.prefix(8)) }
        let added = try scratch.cards(
            ["add", "--title", "Between", "--url", "https://example.org", "--after", ids[2]], in: deck
        ).stdout
        var order = try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").map { String($0.prefix(8)) }
        #expect(order[3] == String(added.prefix(8)))
        #expect(try scratch.cards(["move", ids[0], "--bottom"], in: deck).status == 0)
        order = try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").map { String($0.prefix(8)) }
        #expect(order.last == ids[0])
        #expect(try scratch.cards(["move", ids[0], "--before", ids[1]], in: deck).status == 0)
        order = try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").map { String($0.prefix(8)) }
        #expect(order.first == ids[0])
        #expect(try scratch.cards(["move", ids[0], "--after", ids[5]], in: deck).status == 0)
        order = try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").map { String($0.prefix(8)) }
        #expect(order.firstIndex(of: ids[0]) == (order.firstIndex(of: ids[5]) ?? -1) + 1)
        // A move to where the card already is makes no commit, whichever neighbour names the place.
        let commits = try scratch.commits(deck)
        for arguments in [["move", ids[0], "--after", ids[5]], ["move", ids[5], "--before", ids[0]]] {
            let again = try scratch.cards(arguments, in: deck)
            #expect(again.status == 0 && again.stdout.contains("already there"), "\(arguments): \(again.stdout)")
        }
        #expect(try scratch.commits(deck) == commits)
        try scratch.expectClean(deck)
    }

    @Test(
        "cards that share a rank (two devices moved cards to one place): a card moved or added between them goes there")
    func orderingBetweenTiedRanks() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        func order() throws -> [String] {
            try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").map { String($0.prefix(8)) }
        }
        let ids = try order()
        // Three cards tied as a merge of moves leaves them: after ids[0], by id among themselves.
        let rank = try #require(
            try scratch.cards(["show", ids[0], "--json"], in: deck).stdout.split(separator: "\n")
                .first { $0.contains("\"rank\"") }?.split(separator: "\"").dropLast().last.map(String.init))
        for id in ids[1...3] {
            #expect(try scratch.cards(["edit", id, "--set", "rank=\"\(rank)\""], in: deck).status == 0)
        }
        let tied = try order()
        #expect(Set(tied[0...3]) == Set(ids[0...3]))
        let mover = ids[8]
        #expect(try scratch.cards(["move", mover, "--after", tied[1]], in: deck).status == 0)
        var now = try order()
        #expect(now.firstIndex(of: mover) == (now.firstIndex(of: tied[1]) ?? -9) + 1, "\(now)")
        #expect(Array(now.prefix(5)) == [tied[0], tied[1], mover, tied[2], tied[3]], "the tie's order kept around it")
        #expect(try scratch.cards(["move", mover, "--before", tied[1]], in: deck).status == 0)
        now = try order()
        #expect(now.firstIndex(of: mover) == (now.firstIndex(of: tied[1]) ?? -9) - 1, "\(now)")
        let added = try scratch.cards(
            ["add", "--title", "Added", "--url", "https://a.example", "--after", tied[0]], in: deck
        ).stdout
        now = try order()
        #expect(now.firstIndex(of: String(added.prefix(8))) == 1, "\(now)")
        // A first card ranked "0", before which no rank sorts: --top and --before it still get there.
        let first = now[0]
        #expect(try scratch.cards(["edit", first, "--set", "rank=\"0\""], in: deck).status == 0)
        #expect(try scratch.cards(["move", ids[9], "--top"], in: deck).status == 0)
        now = try order()
        #expect(Array(now.prefix(2)) == [ids[9], first], "\(now)")
        #expect(try scratch.cards(["move", ids[10], "--before", first], in: deck).status == 0)
        now = try order()
        #expect(Array(now.prefix(3)) == [ids[9], ids[10], first], "\(now)")
        // Ranks "0", "00", "000" at the top, nothing fits between any two: --top keeps their order after it.
        for (card, rank) in zip(now.prefix(3), ["0", "00", "000"]) {
            #expect(try scratch.cards(["edit", card, "--set", "rank=\"\(rank)\""], in: deck).status == 0)
        }
        let top3 = Array(try order().prefix(3))
        #expect(try scratch.cards(["move", ids[11], "--top"], in: deck).status == 0)
        let afterTop = try order()
        #expect(Array(afterTop.prefix(4)) == [ids[11]] + top3, "\(afterTop)")
        try scratch.expectClean(deck)
    }

    @Test("log, log -n, log --json agree with git log")
    func log() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        _ = try scratch.cards(["add", "--title", "One", "--url", "https://one.example"], in: deck)
        let log = try scratch.cards(["log"], in: deck)
        let gitLog = try scratch.git(["log", "--format=%h %s"], in: deck).stdout.split(separator: "\n")
        let ours = log.stdout.split(separator: "\n")
        #expect(ours.count == gitLog.count)
        for (line, gitLine) in zip(ours, gitLog) {
            let parts = gitLine.split(separator: " ", maxSplits: 1)
            #expect(line.hasPrefix(parts[0]) && line.hasSuffix(parts[1]))
        }
        #expect(try scratch.cards(["log", "-n", "1"], in: deck).stdout.split(separator: "\n").count == 1)
        // The value attached, as git takes it; a second -n is still one too many.
        #expect(try scratch.cards(["log", "-n2"], in: deck).stdout.split(separator: "\n").count == 2)
        let twice = try scratch.cards(["log", "-n1", "-n", "2"], in: deck)
        #expect(twice.status == 64 && twice.stderr.contains("'-n' given more than once"), "\(twice.stderr)")
        let json = try scratch.cards(["log", "--json", "-n", "2"], in: deck)
        let entries = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(entries?.count == 2)
        #expect(entries?.first?["op"] as? String == "add")
        #expect(
            (entries?.first?["commit"] as? String)
                == (try scratch.git(["rev-parse", "main"], in: deck).stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)))
    }

    @Test("status and commit record hand edits, canonically")
    func handEdits() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        #expect(try scratch.cards(["status"], in: deck).stdout.contains("Nothing to commit"))
        let first = try scratch.cards(["list", "--json"], in: deck)
        let cards = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [[String: Any]] ?? []
        let id = try #require(cards.first?["id"] as? String)
        let path = deck + "/" + CardID.path(for: id)
        // Hand edit: change the title, in non-canonical formatting.
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        object["title"] = "Edited by hand"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        let status = try scratch.cards(["status"], in: deck)
        #expect(status.stdout.contains("changed") && status.stdout.contains(CardID.path(for: id)))
        let commit = try scratch.cards(["commit", "-m", "Fix my title"], in: deck)
        #expect(commit.status == 0, "\(commit.stderr)")
        #expect(
            try scratch.git(["log", "-1", "--format=%B"], in: deck).stdout.contains(
                "Fix my title\n\nCard-Id: \(id)\nOp: commit"))
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.hasSuffix("\n  \"title\": \"Edited by hand\"\n}\n"), "written back canonically")
        try scratch.expectClean(deck)
        #expect(try scratch.cards(["commit"], in: deck).stdout.contains("Nothing to commit"))
        // Only the formatting changed: reformatted, written back as main has it, no commit.
        let commits = try scratch.commits(deck)
        let pretty = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted])
        try pretty.write(to: URL(fileURLWithPath: path))
        #expect(try scratch.cards(["status"], in: deck).stdout.contains("reformatted \(CardID.path(for: id))"))
        try scratch.git(["init", "-q", "--bare", scratch.path("server.git")], in: scratch.root)
        #expect(try scratch.cards(["remote", "add", "origin", scratch.path("server.git")], in: deck).status == 0)
        let dryRun = try scratch.cards(["sync", "--dry-run"], in: deck)
        #expect(dryRun.status == 0 && dryRun.stdout.contains("Would push"), "\(dryRun.stdout)\(dryRun.stderr)")
        #expect(!dryRun.stdout.contains("hand edit"), "nothing to commit first: \(dryRun.stdout)")
        let reformatted = try scratch.cards(["commit"], in: deck)
        #expect(reformatted.status == 0, "\(reformatted.stderr)")
        let wroteBack = "Wrote back 1 reformatted card file as the deck has it (only the formatting differed).\n"
        #expect(reformatted.stdout == wroteBack)
        #expect(try scratch.commits(deck) == commits)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == written)
        try scratch.expectClean(deck)
    }

    @Test("status and commit go by the working tree against main, whatever git's index says")
    func indexSaysOtherwise() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let path = try scratch.git(["ls-files", "cards"], in: deck).stdout.split(separator: "\n")[0]
        let file = String(path.split(separator: "/").last ?? "")
        // Moved with git into a wrong folder, then back by hand: on disk as in main, "deleted" in the index.
        try FileManager.default.createDirectory(atPath: deck + "/cards/00", withIntermediateDirectories: true)
        #expect(try scratch.git(["mv", String(path), "cards/00/"], in: deck).status == 0)
        try FileManager.default.moveItem(atPath: deck + "/cards/00/" + file, toPath: deck + "/" + path)
        let status = try scratch.cards(["status"], in: deck)
        #expect(status.stdout.contains("Nothing to commit"), "\(status.stdout)")
        let commits = try scratch.commits(deck)
        #expect(try scratch.cards(["commit"], in: deck).status == 0)
        #expect(try scratch.commits(deck) == commits)
        #expect(FileManager.default.fileExists(atPath: deck + "/" + path), "the card file stays")
        // Untracked in the index only: the same.
        try scratch.gitChecked(["reset", "-q"], in: deck)
        try scratch.gitChecked(["rm", "-q", "--cached", "deck.json", String(path)], in: deck)
        #expect(try scratch.cards(["status"], in: deck).stdout.contains("Nothing to commit"))
        #expect(try scratch.cards(["commit"], in: deck).status == 0)
        #expect(try scratch.commits(deck) == commits)
    }

    @Test("a card file in the wrong folder is named with the path it belongs at; another name, as not a card file")
    func misplacedCardFile() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = "0c0ffee0-0000-4000-8000-00000000abcd"
        let card = "{\"id\": \"\(id)\", \"title\": \"T\", \"indexURL\": \"https://t.example\"}\n"
        try FileManager.default.createDirectory(atPath: deck + "/cards/11", withIntermediateDirectories: true)
        try card.write(toFile: deck + "/cards/11/\(id).json", atomically: true, encoding: .utf8)
        try card.write(toFile: deck + "/cards/11/notes.json", atomically: true, encoding: .utf8)
        let status = try scratch.cards(["status"], in: deck).stdout
        #expect(status.contains("cards/11/\(id).json: in the wrong folder: card \(id) belongs at cards/0c/\(id).json"))
        #expect(status.contains("cards/11/notes.json: not a card file name"), "\(status)")
        #expect(try scratch.cards(["commit"], in: deck).status == 1)
    }

    @Test("deck.json edited by hand: status shows it, commit records it, sync takes it; deleted or broken, refused")
    func deckDescriptionHandEdit() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let server = scratch.path("server.git")
        try scratch.git(["init", "-q", "--bare", server], in: scratch.root)
        #expect(try scratch.cards(["remote", "add", "origin", server], in: deck).status == 0)
        let description = deck + "/deck.json"
        try "{\"format\": 1, \"name\": \"Renamed\"}\n".write(toFile: description, atomically: true, encoding: .utf8)
        #expect(try scratch.cards(["status"], in: deck).stdout.contains("changed     deck.json"))
        let committed = try scratch.cards(["commit"], in: deck)
        #expect(committed.status == 0, "\(committed.stderr)")
        #expect(try scratch.git(["log", "-1", "--format=%s"], in: deck).stdout == "Commit hand edits to deck.json\n")
        try scratch.expectClean(deck)
        // Undone like any change of this device's, then made again.
        let original = try scratch.git(["show", "main~1:deck.json"], in: deck).stdout
        let undo = try scratch.cards(["undo"], in: deck)
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try String(contentsOfFile: description, encoding: .utf8) == original)
        try "{\"format\": 1, \"name\": \"Renamed\"}\n".write(toFile: description, atomically: true, encoding: .utf8)
        #expect(try scratch.cards(["commit"], in: deck).status == 0)
        try scratch.expectClean(deck)
        // Before a sync too: the edit is committed, then sent.
        try "{\"format\": 1, \"name\": \"Again\"}\n".write(toFile: description, atomically: true, encoding: .utf8)
        let sync = try scratch.cards(["sync"], in: deck)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try scratch.git(["show", "main:deck.json"], in: server).stdout.contains("Again"))
        for (content, problem) in [
            (nil, "deleted, but a deck needs it"), ("nope", "not a deck description"),
            ("{\"format\": 2, \"name\": \"Future\"}", "not a deck description"),
            ("{\"format\": 1, \"name\": \"\"}", "not a deck description"),
            ("{\"format\": 1, \"name\": \"Two\\nlines\"}", "not a deck description"),
        ] {
            if let content {
                try content.write(toFile: description, atomically: true, encoding: .utf8)
            } else {
                try FileManager.default.removeItem(atPath: description)
            }
            let commits = try scratch.commits(deck)
            #expect(try scratch.cards(["status"], in: deck).stdout.contains("invalid     deck.json: \(problem)"))
            let refused = try scratch.cards(["commit"], in: deck)
            #expect(refused.status == 1 && refused.stderr.contains("deck.json: \(problem)"), "\(refused.stderr)")
            let fsck = try scratch.cards(["fsck"], in: deck)
            #expect(fsck.status == 1 && fsck.stderr.contains("deck.json"), "\(fsck.stderr)")
            #expect(try scratch.commits(deck) == commits)
            try scratch.git(["checkout", "--", "deck.json"], in: deck)
        }
        try scratch.expectClean(deck)
    }

    @Test(
        "a working tree of 2,500 cards, writes flushed: each commit patches the index; git and cards agree with it, and no side file is left"
    )
    func bigIndexPatched() throws {
        let scratch = try Scratch()
        let deck = scratch.path("big")
        let flushed = ["CARDS_FSYNC": "1"]
        #expect(try scratch.cards(["init", deck], extraEnvironment: flushed).status == 0)
        let lines = (0..<2_500).map { "{\"title\":\"Card \($0)\",\"indexURL\":\"https://example.org/\($0)\"}" }
        try lines.joined(separator: "\n").write(toFile: scratch.path("cards.jsonl"), atomically: true, encoding: .utf8)
        let imported = try scratch.cards(["import", scratch.path("cards.jsonl")], in: deck, extraEnvironment: flushed)
        #expect(imported.status == 0, "\(imported.stderr)")
        let ids = try scratch.cardIDs(deck).sorted()
        #expect(ids.count == 2_500)
        func path(_ id: String) -> String { CardID.path(for: id) }
        // Side files an earlier version kept beside the index: the next commit removes them.
        try Data(repeating: 1, count: 4_096).write(to: URL(fileURLWithPath: deck + "/.git/index.cards-spare"))
        try Data(repeating: 2, count: 1_024).write(to: URL(fileURLWithPath: deck + "/.git/index.cards-sha1"))
        for (position, id) in ids.prefix(4).enumerated() {
            let edit = try scratch.cards(
                ["edit", id, "--title", "Edited \(position)"], in: deck, extraEnvironment: flushed)
            #expect(edit.status == 0, "\(edit.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: deck + "/.git/index.cards-spare"))
        #expect(!FileManager.default.fileExists(atPath: deck + "/.git/index.cards-sha1"))
        // An edited card's entry carries its file's stat data: git's plumbing, which trusts stat data
        // and refreshes nothing, takes that file as the index says (the last edit's may be racily
        // clean, and smudged for git to look again).
        let stale = try scratch.git(["diff-files", "--name-only"], in: deck).stdout
        #expect(!stale.contains(path(ids[1])), "\(stale)")
        // A hand edit is found by git and by cards.
        let handEdited = deck + "/" + path(ids[3])
        let text = try String(contentsOfFile: handEdited, encoding: .utf8)
        try text.replacingOccurrences(of: "Edited 3", with: "By hand").write(
            toFile: handEdited, atomically: false, encoding: .utf8)
        for id in ids[10..<13] {
            #expect(try scratch.cards(["delete", id], in: deck, extraEnvironment: flushed).status == 0)
        }
        #expect(try scratch.cards(["status"], in: deck).stdout.contains(path(ids[3])))
        #expect(try scratch.git(["status", "--porcelain"], in: deck).stdout == " M \(path(ids[3]))\n")
        #expect(try scratch.cards(["commit", "-m", "By hand"], in: deck, extraEnvironment: flushed).status == 0)
        try scratch.expectClean(deck)
        // Cards near the end of the index. git reads an index without checking its checksum; `git
        // fsck` checks it.
        for (position, id) in ids.suffix(3).enumerated() {
            let edit = try scratch.cards(
                ["edit", id, "--title", "Late \(position)"], in: deck, extraEnvironment: flushed)
            #expect(edit.status == 0, "\(edit.stderr)")
            let fsck = try scratch.git(["fsck", "--no-dangling", "--connectivity-only"], in: deck)
            #expect(fsck.status == 0, "\(fsck.stderr)")
        }
        try scratch.expectClean(deck)
        #expect(try scratch.git(["ls-files"], in: deck).stdout.split(separator: "\n").count == 2_497 + 2)
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
    }

    @Test("import JSON array and JSON Lines, export round trip")
    func importExport() throws {
        let scratch = try Scratch()
        let deck = scratch.path("deck")
        #expect(try scratch.cards(["init", deck]).status == 0)
        let lines = """
            {"title": "First", "indexURL": "https://first.example", "platformName": "Web"}
            {"title": "Second", "indexURL": "mailto:me@example.org", "color": "red", "futureField": {"nested": [1, 2]}}

            """
        try lines.write(toFile: scratch.path("in.jsonl"), atomically: true, encoding: .utf8)
        let result = try scratch.cards(["import", scratch.path("in.jsonl")], in: deck)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("2 added"))
        #expect(try scratch.commits(deck).count == 2)
        let export = try scratch.cards(["export"], in: deck).stdout
        let exported = try JSONSerialization.jsonObject(with: Data(export.utf8)) as? [[String: Any]] ?? []
        #expect(exported.map { $0["title"] as? String } == ["First", "Second"])
        #expect((exported.last?["futureField"] as? [String: Any]) != nil, "unknown fields kept")
        try scratch.expectClean(deck)
        // Re-importing the export changes nothing and makes no commit.
        try export.write(toFile: scratch.path("out.json"), atomically: true, encoding: .utf8)
        let again = try scratch.cards(["import", scratch.path("out.json")], in: deck)
        #expect(again.stdout.contains("2 unchanged"))
        #expect(try scratch.commits(deck).count == 2)
        // From standard input.
        let stdin = try scratch.cards(
            ["import", "-"], in: deck,
            input: Data("[{\"title\": \"Third\", \"indexURL\": \"https://third.example\"}]".utf8))
        #expect(stdin.status == 0, "\(stdin.stderr)")
        #expect(try scratch.commits(deck).count == 3)
        // Bad files: the place named as an editor shows it (items and lines from 1), nothing imported.
        let bad: [(String, String, String)] = [
            (
                "items.json", "[{\"title\": \"A\", \"indexURL\": \"https://a.example\"}, {\"title\": \" \"}]",
                "item 2: title"
            ),
            (
                "lines.jsonl",
                "{\"title\": \"A\", \"indexURL\": \"https://a.example\"}\n{\"title\": \"A\" \"indexURL\": 1}\n",
                "line 2, column 15: "
            ),
            (
                "id.jsonl", "{\"id\": \"dup00000-0000\", \"title\": \"A\", \"indexURL\": \"https://a.example\"}",
                "is not a UUID"
            ),
        ]
        for (file, content, mention) in bad {
            try content.write(toFile: scratch.path(file), atomically: true, encoding: .utf8)
            let refused = try scratch.cards(["import", scratch.path(file)], in: deck)
            #expect(refused.status == 1 && refused.stderr.contains(mention), "\(file): \(refused.stderr)")
        }
        // An uppercase id is the same card, written lowercase.
        let upper = try #require(exported.first?["id"] as? String).uppercased()
        let sameCard = "{\"id\": \"\(upper)\", \"title\": \"First again\", \"indexURL\": \"https://first.example\"}"
        let before = try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").map { $0.prefix(8) }
        let updated = try scratch.cards(["import", "-"], in: deck, input: Data(sameCard.utf8))
        #expect(updated.status == 0 && updated.stdout.contains("1 updated"), "\(updated.stdout)\(updated.stderr)")
        // ... updated with the fields given; those left out keep the deck's values, its place too.
        let shown = try scratch.cards(["show", upper.lowercased(), "--json"], in: deck).stdout
        let card = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any] ?? [:]
        #expect(card["title"] as? String == "First again")
        #expect(
            card["platformName"] as? String == "Web" && card["rank"] as? String == exported.first?["rank"] as? String)
        #expect(try scratch.cards(["list"], in: deck).stdout.split(separator: "\n").map { $0.prefix(8) } == before)
        // Only what changes, by id: the rest is the deck's; a new id needs a whole card.
        let colourOnly = "{\"id\": \"\(upper.lowercased())\", \"color\": \"red\"}"
        let recoloured = try scratch.cards(["import", "-"], in: deck, input: Data(colourOnly.utf8))
        #expect(recoloured.status == 0 && recoloured.stdout.contains("1 updated"), "\(recoloured.stderr)")
        let after = try scratch.cards(["show", upper.lowercased(), "--json"], in: deck).stdout
        #expect(after.contains("\"color\": \"red\"") && after.contains("\"title\": \"First again\""), "\(after)")
        let unknown = "{\"id\": \"00000000-0000-4000-8000-00000000beef\", \"color\": \"red\"}"
        let refusedNew = try scratch.cards(["import", "-"], in: deck, input: Data(unknown.utf8))
        #expect(refusedNew.status == 1, "\(refusedNew.stdout)")
        #expect(refusedNew.stderr.contains("title: is missing") && refusedNew.stderr.contains("no card"))
        // A card made without platform fields comes back from an export as it was: nothing to import.
        let exportedAgain = try scratch.cards(["export"], in: deck).stdout
        #expect(!exportedAgain.contains("\"platformIcon\": \"\""), "left out, as add leaves them out")
        let roundTrip = try scratch.cards(["import", "-"], in: deck, input: Data(exportedAgain.utf8))
        #expect(roundTrip.stdout.contains("0 added, 0 updated"), "\(roundTrip.stdout)")
        let empty = try scratch.cards(["import", "-"], in: deck, input: Data("\n".utf8))
        #expect(empty.status == 0 && empty.stdout.contains("Nothing to import"), "\(empty.stdout)")
        #expect(try scratch.commits(deck).count == 5)
    }

    @Test("fsck passes on a good deck; help and --version")
    func fsckHelpVersion() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(fsck.status == 0 && fsck.stdout.contains("consistent"))
        let version = try scratch.cards(["--version"])
        #expect(
            version.status == 0 && version.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil)
        let help = try scratch.cards(["--help"])
        #expect(help.status == 0)
        for section in ["OVERVIEW:", "USAGE:", "OPTIONS:", "SUBCOMMANDS:"] { #expect(help.stdout.contains(section)) }
        for command in [
            "init", "add", "edit", "move", "delete", "show", "list", "undo", "restore", "log", "status", "commit",
            "import", "export", "fsck",
        ] {
            let sub = try scratch.cards(["help", command])
            #expect(sub.status == 0 && sub.stdout.contains("USAGE: cards \(command)"), "help \(command)")
            let flag = try scratch.cards([command, "--help"])
            #expect(flag.stdout == sub.stdout, "\(command) --help")
        }
    }
}

/// The main job a newcomer runs first.
@Suite("The demo")
struct DemoTests {
    @Test("cards demo tells the whole story and ends with two identical decks")
    func demoRuns() throws {
        let scratch = try Scratch(identity: false)
        let result = try scratch.cards(["demo", "--sample", Binaries.sampleRepo])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        for line in [
            "init --bare", "clone", "swipe", "sync", "Merged origin/main", "conflict: title", "resolve",
            "Both decks are now identical", "Done.",
        ] {
            #expect(result.stdout.contains(line), "the demo did not show '\(line)'")
        }
        #expect(!result.stderr.contains("Error"))
    }

    @Test("Ctrl-C during the demo stops it, removes its temporary folder and ends as the signal would")
    func demoInterrupted() throws {
        let scratch = try Scratch(identity: false)
        let temporary = scratch.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let child = try scratch.startCards(
            ["demo", "--sample", Binaries.sampleRepo], in: scratch.root, extraEnvironment: ["TMPDIR": temporary])
        func demoFolders() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []).filter {
                $0.hasPrefix("cards-demo-")
            }
        }
        // Interrupted once a device has been cloned: the folder holds decks by then.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline,
            !demoFolders().contains(where: { FileManager.default.fileExists(atPath: "\(temporary)/\($0)/laptop") })
        {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(!demoFolders().isEmpty, "the demo never made its folder")
        child.signal(SIGINT)
        let result = child.wait(timeout: 60)
        #expect(result.ending == .signalled(SIGINT), "\(result.ending) \(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("the demo was interrupted; its folder is removed"), "\(result.stderr)")
        #expect(demoFolders().isEmpty, "left behind: \(demoFolders())")
    }
}
