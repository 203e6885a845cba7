import Foundation
import Testing

/// undo and restore bring cards back exactly, through real commits.
@Suite("Undo and restore")
struct HistoryTests {
    @Test("undo after delete brings the card back with the same id and bytes")
    func undoDelete() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = try #require(try scratch.cards(["list"], in: deck).stdout.split(separator: " ").first.map(String.init))
        let original = try scratch.cards(["show", id, "--json"], in: deck).stdout
        let blob = try scratch.git(["rev-parse", "main:cards/\(id.prefix(2))"], in: deck).stdout
        // Not deleted yet (the sample came in by one import, which names none of its cards): said so.
        let live = try scratch.cards(["restore", String(id.prefix(8))], in: deck)
        #expect(live.status == 1 && live.stderr.contains("is in the deck, not deleted"), "\(live.stderr)")
        #expect(try scratch.cards(["delete", id], in: deck).status == 0)
        // Named once it is gone: said to be deleted, with the way back.
        for arguments in [
            ["show", id], ["edit", id, "--title", "X"], ["delete", id],
            ["add", "--title", "X", "--url", "https://x.example", "--after", id],
        ] {
            let gone = try scratch.cards(arguments, in: deck)
            #expect(gone.status == 1, "\(arguments)")
            #expect(gone.stderr.contains("was deleted; `cards restore \(id)"), "\(gone.stderr)")
            #expect(gone.stderr.contains("` brings it back"), "\(gone.stderr)")
        }
        let never = try scratch.cards(["show", "00000000-0000-4000-8000-00000000beef"], in: deck)
        #expect(never.status == 1 && !never.stderr.contains("was deleted"), "a full id history never had")
        let undo = try scratch.cards(["undo"], in: deck)
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stdout.contains("Delete card"))
        #expect(try scratch.cards(["show", id, "--json"], in: deck).stdout == original)
        #expect(
            try scratch.git(["rev-parse", "main:cards/\(id.prefix(2))"], in: deck).stdout == blob,
            "same tree as before the delete")
        #expect(try scratch.git(["log", "-1", "--format=%B"], in: deck).stdout.contains("Op: undo"))
        try scratch.expectClean(deck)
    }

    @Test("escape sequences in a commit subject or a file name from elsewhere are shown, never sent to the terminal")
    func controlCharactersShown() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let subject = "Subject \u{1B}[31mRED\u{1B}[0m \u{1B}]52;c;aGVsbG8=\u{07} \u{9B}2J end"
        #expect(try scratch.git(["commit", "--allow-empty", "-q", "-m", subject], in: deck).status == 0)
        try FileManager.default.createDirectory(atPath: deck + "/cards/zz", withIntermediateDirectories: true)
        try "{}".write(toFile: deck + "/cards/zz/evil\u{1B}[2J.json", atomically: true, encoding: .utf8)
        #expect(try scratch.git(["add", "-A"], in: deck).status == 0)
        #expect(try scratch.git(["commit", "-q", "-m", "hand"], in: deck).status == 0)
        for arguments in [["log", "-n", "2"], ["fsck"], ["list"], ["status"]] {
            let run = try scratch.cards(arguments, in: deck)
            let all = run.stdout + run.stderr
            #expect(!all.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" }, "\(arguments)")
            if arguments != ["status"] { #expect(all.contains("\\x1B"), "\(arguments): \(all)") }
        }
        let log = try scratch.cards(["log", "-n", "2"], in: deck).stdout
        #expect(log.contains("Subject \\x1B[31mRED\\x1B[0m \\x1B]52;c;aGVsbG8=\\x07 \\x9B2J end"), "\(log)")
        // JSON output escapes them as JSON does, unchanged.
        let json = try scratch.cards(["log", "-n", "2", "--json"], in: deck).stdout
        #expect(json.contains("\\u001b[31mRED"), "\(json)")
    }

    @Test("undo walks back: add, then edit, undone in reverse order")
    func undoSequence() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let start = try scratch.cards(["export"], in: deck).stdout
        let id = try scratch.cards(["add", "--title", "Temp", "--url", "https://temp.example"], in: deck).stdout
            .trimmingCharacters(in: .newlines)
        #expect(try scratch.cards(["edit", id, "--title", "Temp 2"], in: deck).status == 0)
        #expect(try scratch.cards(["undo"], in: deck).status == 0)
        #expect(try scratch.cards(["show", id, "--json"], in: deck).stdout.contains("\"title\": \"Temp\""))
        #expect(try scratch.cards(["undo"], in: deck).status == 0)
        #expect(try scratch.cards(["export"], in: deck).stdout == start)
        // Then the import; then nothing.
        #expect(try scratch.cards(["undo"], in: deck).status == 0)
        #expect(try scratch.cards(["export"], in: deck).stdout == "[]\n")
        let nothing = try scratch.cards(["undo"], in: deck)
        #expect(nothing.status == 1 && nothing.stderr.contains("nothing to undo"))
        try scratch.expectClean(deck)
    }

    @Test("restore finds a card deleted 20 commits ago")
    func restoreOld() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = try #require(try scratch.cards(["list"], in: deck).stdout.split(separator: " ").first.map(String.init))
        let original = try scratch.cards(["show", id, "--json"], in: deck).stdout
        #expect(try scratch.cards(["delete", id], in: deck).status == 0)
        for index in 0..<20 {
            #expect(
                try scratch.cards(
                    ["add", "--title", "Filler \(index)", "--url", "https://filler.example/\(index)"], in: deck
                ).status == 0)
        }
        let notHere = try scratch.cards(["show", id], in: deck)
        #expect(notHere.status == 1)
        let restore = try scratch.cards(["restore", id], in: deck)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try scratch.cards(["show", id, "--json"], in: deck).stdout == original)
        #expect(try scratch.git(["log", "-1", "--format=%B"], in: deck).stdout.contains("Op: restore"))
        let twice = try scratch.cards(["restore", id], in: deck)
        #expect(twice.status == 1 && twice.stderr.contains("not deleted"))
        try scratch.expectClean(deck)
    }

    @Test("restore by a prefix of an imported card deleted with git rm: found in its folder's history, restored")
    func restoreByPrefixAfterPlainGitDelete() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = try #require(try scratch.cardIDs(deck).sorted().first)
        let original = try scratch.cards(["show", id, "--json"], in: deck).stdout
        // No trailer names it: the sample is imported, and git rm writes none.
        try scratch.gitChecked(["rm", "-q", "cards/\(id.prefix(2))/\(id).json"], in: deck)
        try scratch.gitChecked(["commit", "-q", "-m", "plain delete"], in: deck)
        #expect(try scratch.cards(["add", "--title", "After", "--url", "https://after.example"], in: deck).status == 0)
        let restore = try scratch.cards(["restore", String(id.prefix(8))], in: deck)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try scratch.cards(["show", id, "--json"], in: deck).stdout == original)
        let unknown = try scratch.cards(["restore", "0000000f"], in: deck)
        #expect(
            unknown.status == 1 && unknown.stderr.contains("no card id in this deck's history"), "\(unknown.stderr)")
        try scratch.expectClean(deck)
    }

    @Test("restore by a prefix two cards in history share, one of them in the deck: the deleted one is restored")
    func restoreByPrefixOfLiveAndDeleted() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let live = "65130000-0000-4000-8000-000000000001"
        let gone = "65130000-0000-4000-8000-000000000002"
        for (id, title) in [(live, "Live"), (gone, "Gone")] {
            #expect(
                try scratch.cards(["add", "--id", id, "--title", title, "--url", "https://x.example/"], in: deck)
                    .status == 0)
        }
        #expect(try scratch.cards(["delete", gone], in: deck).status == 0)
        let restore = try scratch.cards(["restore", "6513"], in: deck)
        #expect(restore.status == 0 && restore.stdout.contains(gone), "\(restore.stdout)\(restore.stderr)")
        // Both in the deck now: the prefix names two cards, neither deleted.
        let again = try scratch.cards(["restore", "6513"], in: deck)
        #expect(again.status == 1 && again.stderr.contains("matches 2 cards"), "\(again.stderr)")
    }

    @Test("unknown fields in a hand-written card survive an edit of another field, byte for byte in meaning")
    func unknownFieldsSurviveEdit() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = "5eed0000-0000-4000-8000-00000000abcd"
        let text = """
            {"id": "\(id)", "title": "Hand written", "indexURL": "https://hand.example", "color": "teal",
             "rank": "a0V", "platformName": "", "platformIcon": "",
             "futureField": {"z": [1, 2.50, {"deep": null}], "a": "é/ü"}, "pinned": true}
            """
        try FileManager.default.createDirectory(atPath: deck + "/cards/5e", withIntermediateDirectories: true)
        try text.write(toFile: deck + "/cards/5e/\(id).json", atomically: true, encoding: .utf8)
        #expect(try scratch.cards(["commit"], in: deck).status == 0)
        #expect(try scratch.cards(["edit", id, "--title", "Edited title"], in: deck).status == 0)
        let card = try scratch.cards(["show", id, "--json"], in: deck).stdout
        let object = try #require(try JSONSerialization.jsonObject(with: Data(card.utf8)) as? [String: Any])
        #expect(object["title"] as? String == "Edited title")
        #expect(object["pinned"] as? Bool == true)
        let future = try #require(object["futureField"] as? [String: Any])
        #expect(future["a"] as? String == "é/ü")
        #expect(card.contains("2.50"), "number text kept as written")
        #expect(card.contains("\"deep\": null"))
        // Fields taken out with --unset (an unknown one, an optional one); the ones a card needs stay.
        #expect(
            try scratch.cards(["edit", id, "--unset", "futureField", "--unset", "platformName"], in: deck).status == 0)
        let unset = try scratch.cards(["show", id, "--json"], in: deck).stdout
        #expect(
            !unset.contains("futureField") && !unset.contains("platformName") && unset.contains("pinned"), "\(unset)")
        let required = try scratch.cards(["edit", id, "--unset", "color"], in: deck)
        #expect(required.status == 1 && required.stderr.contains("a card needs its color"), "\(required.stderr)")
        let null = try scratch.cards(["edit", id, "--set", "platformIcon=null"], in: deck)
        #expect(null.status == 64 && null.stderr.contains("use --unset platformIcon"), "\(null.stderr)")
        try scratch.expectClean(deck)
    }
}

extension HistoryTests {
    @Test("undo reverts only this device's operations, never what came from a clone or a sync")
    func undoIsLocal() throws {
        let scratch = try Scratch()
        let (remote, clones) = try scratch.remoteAndClones(["clone"])
        let deck = clones[0]
        let before = try scratch.fingerprint(deck)
        let nothing = try scratch.cards(["undo"], in: deck)
        #expect(nothing.status == 1 && nothing.stderr.contains("nothing to undo"))
        #expect(try scratch.fingerprint(deck) == before)
        let id = try scratch.cards(["add", "--title", "Mine", "--url", "https://mine.example"], in: deck).stdout
        let undo = try scratch.cards(["undo"], in: deck)
        #expect(undo.status == 0 && undo.stdout.contains("Add card"))
        #expect(try scratch.cards(["show", id.trimmingCharacters(in: .newlines)], in: deck).status == 1)
        #expect(try scratch.cards(["undo"], in: deck).status == 1)
        // A sync that fast-forwards brings another device's commits onto this line: still not ours.
        let other = scratch.path("other")
        #expect(try scratch.cards(["clone", remote, other]).status == 0)
        let mine = try scratch.cards(["add", "--title", "Mine 2", "--url", "https://mine2.example"], in: deck).stdout
            .trimmingCharacters(in: .newlines)
        #expect(try scratch.cards(["sync"], in: deck).status == 0)
        let fastForward = try scratch.cards(["sync"], in: other)
        #expect(fastForward.stdout.contains("Fast-forwarded"), "\(fastForward.stdout)")
        let untouched = try scratch.fingerprint(other)
        let refused = try scratch.cards(["undo"], in: other)
        #expect(refused.status == 1 && refused.stderr.contains("nothing to undo"), "\(refused.stdout)")
        #expect(try scratch.fingerprint(other) == untouched)
        let theirs = try scratch.cards(["add", "--title", "Theirs", "--url", "https://theirs.example"], in: other)
            .stdout.trimmingCharacters(in: .newlines)
        #expect(try scratch.cards(["sync"], in: other).status == 0)
        #expect(try scratch.cards(["sync"], in: deck).stdout.contains("Fast-forwarded"))
        // This device's last own operation is undone; the card that came in stays.
        let undoMine = try scratch.cards(["undo"], in: deck)
        #expect(undoMine.status == 0 && undoMine.stdout.contains("Mine 2"), "\(undoMine.stdout)")
        #expect(try scratch.cards(["show", mine], in: deck).status == 1)
        #expect(try scratch.cards(["show", theirs], in: deck).status == 0)
        // The reflog names the fast-forward as git does.
        let reflog = try scratch.git(["reflog", "-1", "--format=%gs", "main@{1}"], in: deck).stdout
        #expect(reflog == "merge origin/main: Fast-forward\n", "\(reflog)")
        // The remote, a bare deck made by cards init --from: its own last change is the import, not any
        // of the commits pushed into it since (a bare repository keeps no reflog: the commits say).
        let pushed = try scratch.cards(["--deck", remote, "undo"])
        #expect(pushed.status == 0 && pushed.stdout.contains("Import 16 cards"), "\(pushed.stdout)\(pushed.stderr)")
        #expect(try scratch.cards(["--deck", remote, "show", theirs]).status == 0)
        // A bare repository made by git: nothing made there yet, then its own change.
        let bare = scratch.path("bare")
        try scratch.git(["clone", "-q", "--bare", remote, bare], in: scratch.root)
        let nothingYet = try scratch.cards(["--deck", bare, "undo"])
        #expect(nothingYet.status == 1 && nothingYet.stderr.contains("nothing to undo"), "\(nothingYet.stdout)")
        let own = try scratch.cards(["--deck", bare, "add", "--title", "Own", "--url", "https://own.example"])
        #expect(own.status == 0)
        // Undone again and again there (an undo must not leave a reflog behind that hides the rest).
        let ownID = own.stdout.trimmingCharacters(in: .newlines)
        #expect(try scratch.cards(["--deck", bare, "edit", ownID, "--color", "red"]).status == 0)
        #expect(try scratch.cards(["--deck", bare, "undo"]).stdout.contains("Edit card"))
        #expect(!FileManager.default.fileExists(atPath: bare + "/logs/refs/heads/main"))
        let bareUndo = try scratch.cards(["--deck", bare, "undo"])
        #expect(bareUndo.status == 0 && bareUndo.stdout.contains("\"Own\""), "\(bareUndo.stdout)")
        // Each commit names the deck it was made in; a clone is another deck.
        let device = try scratch.git(["config", "cards.device"], in: bare).stdout
        #expect(try scratch.git(["log", "-1", "--format=%B"], in: bare).stdout.contains("\nDevice: \(device)"))
        #expect(try scratch.git(["config", "cards.device"], in: other).stdout != device)
    }

    @Test("a change of this device's that another device merged (and this one fast-forwarded to) is still undone here")
    func undoAfterAnotherDevicesMerge() throws {
        let scratch = try Scratch()
        let (remote, clones) = try scratch.remoteAndClones(["a", "b"])
        let (a, b) = (clones[0], clones[1])
        let ids = try scratch.cards(["list"], in: a).stdout.split(separator: "\n").map { String($0.prefix(8)) }
        #expect(try scratch.cards(["edit", ids[0], "--title", "Edited on A"], in: a).status == 0)
        #expect(try scratch.cards(["edit", ids[1], "--title", "Edited on B"], in: b).status == 0)
        #expect(try scratch.cards(["sync"], in: a).status == 0)
        #expect(try scratch.cards(["sync"], in: b).stdout.contains("Merged"))
        #expect(try scratch.cards(["sync"], in: a).stdout.contains("Fast-forwarded"))
        let undo = try scratch.cards(["undo"], in: a)
        #expect(undo.status == 0 && undo.stdout.contains("Edited on A"), "\(undo.stdout)\(undo.stderr)")
        #expect(try scratch.cards(["show", ids[1]], in: a).stdout.contains("Edited on B"), "B's edit stays")
        // The bare remote: its own change, made before a device's merge was pushed into it.
        #expect(
            try scratch.cards(["--deck", remote, "add", "--title", "On the remote", "--url", "https://r.example"])
                .status == 0)
        #expect(try scratch.cards(["add", "--title", "From B", "--url", "https://b.example"], in: b).status == 0)
        #expect(try scratch.cards(["sync"], in: b).stdout.contains("Merged"))
        let remoteUndo = try scratch.cards(["--deck", remote, "undo"])
        #expect(remoteUndo.status == 0 && remoteUndo.stdout.contains("On the remote"), "\(remoteUndo.stdout)")
        let merge = try scratch.cards(["undo", "HEAD"], in: b)
        #expect(merge.status == 1 && merge.stderr.contains("it is a merge"), "\(merge.stderr)")
    }

    @Test("undo of a commit that fixed a broken card file puts the broken file back, and says so")
    func undoOfAFix() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let id = try #require(try scratch.cardIDs(deck).sorted().first)
        let path = "cards/\(id.prefix(2))/\(id).json"
        let good = try String(contentsOfFile: deck + "/" + path, encoding: .utf8)
        try good.replacingOccurrences(of: "\"color\": \"", with: "\"color\": \"nope-")
            .write(toFile: deck + "/" + path, atomically: true, encoding: .utf8)
        try scratch.gitChecked(["commit", "-q", "-am", "broken by hand"], in: deck)
        try good.write(toFile: deck + "/" + path, atomically: true, encoding: .utf8)
        #expect(try scratch.cards(["commit"], in: deck).status == 0)
        let undo = try scratch.cards(["undo"], in: deck)
        #expect(undo.status == 0 && undo.stderr.contains("\(path) is back as it was, which is not a valid card"))
        #expect(try scratch.cards(["status"], in: deck).stdout.contains("(committed)"))
        let edit = try scratch.cards(["edit", id, "--title", "X"], in: deck)
        #expect(edit.status == 1 && edit.stderr.contains("fix the file by hand, then `cards commit`"), "\(edit.stderr)")
    }

    @Test("undo changes back only the fields still as the operation left them; a card changed since keeps the rest")
    func undoFieldByField() throws {
        let scratch = try Scratch()
        let (_, clones) = try scratch.remoteAndClones(["a", "b"])
        let (a, b) = (clones[0], clones[1])
        let id = try #require(try scratch.cardIDs(a).sorted().first)
        let original = try scratch.cards(["show", id, "--json"], in: a).stdout
        #expect(try scratch.cards(["edit", id, "--title", "A's title", "--color", "red"], in: a).status == 0)
        #expect(try scratch.cards(["sync"], in: a).status == 0)
        #expect(try scratch.cards(["sync"], in: b).stdout.contains("Fast-forwarded"))
        #expect(try scratch.cards(["edit", id, "--color", "green"], in: b).status == 0)
        #expect(try scratch.cards(["sync"], in: b).status == 0)
        #expect(try scratch.cards(["sync"], in: a).stdout.contains("Fast-forwarded"))
        let undo = try scratch.cards(["undo"], in: a)
        #expect(undo.status == 0 && undo.stdout.contains("A's title"), "\(undo.stdout)\(undo.stderr)")
        #expect(undo.stderr.contains(": color changed since; left as it is now"), "\(undo.stderr)")
        let card = try scratch.cards(["show", id, "--json"], in: a).stdout
        let originalTitle = try #require(original.split(separator: "\n").first { $0.contains("\"title\"") })
        #expect(card.contains(originalTitle), "the title is changed back: \(card)")
        #expect(card.contains("\"color\": \"green\""), "B's colour stays: \(card)")
        try scratch.expectClean(a)
    }

    @Test("undo leaves a field a merge recorded a conflict about since: the card keeps the merge's pick and its record")
    func undoLeavesConflictedField() throws {
        let scratch = try Scratch()
        let (_, clones) = try scratch.remoteAndClones(["a", "b"])
        let (a, b) = (clones[0], clones[1])
        let id = try #require(try scratch.cardIDs(a).sorted().first)
        #expect(try scratch.cards(["edit", id, "--title", "A's title"], in: a).status == 0)
        #expect(try scratch.cards(["edit", id, "--title", "B's title"], in: b).status == 0)
        #expect(try scratch.cards(["sync"], in: a).status == 0)
        #expect(try scratch.cards(["sync"], in: b).stdout.contains("conflict: title"))
        #expect(try scratch.cards(["sync"], in: a).status == 0)
        // Whichever side's title the merge kept: that side's undo must not take it back under the record.
        let kept = try scratch.cards(["show", id, "--json"], in: a).stdout
        let keeper = kept.contains("\"title\": \"A's title\"") ? a : b
        let before = try scratch.fingerprint(keeper)
        let undo = try scratch.cards(["undo"], in: keeper)
        #expect(undo.status == 1 && undo.stderr.contains(": title)"), "\(undo.stdout)\(undo.stderr)")
        #expect(try scratch.fingerprint(keeper) == before)
    }

    @Test("an operation whose every change was changed since is refused, naming the one before it; undo COMMIT goes on")
    func undoNamedCommit() throws {
        let scratch = try Scratch()
        let (_, clones) = try scratch.remoteAndClones(["a", "b"])
        let (a, b) = (clones[0], clones[1])
        let id = try #require(try scratch.cardIDs(a).sorted().first)
        let added = try scratch.cards(["add", "--title", "Older", "--url", "https://older.example"], in: a).stdout
            .trimmingCharacters(in: .newlines)
        let addCommit = try scratch.git(["rev-parse", "--short=7", "HEAD"], in: a).stdout.trimmingCharacters(
            in: .newlines)
        #expect(try scratch.cards(["edit", id, "--title", "A's title"], in: a).status == 0)
        let editCommit = try scratch.git(["rev-parse", "--short=7", "HEAD"], in: a).stdout.trimmingCharacters(
            in: .newlines)
        #expect(try scratch.cards(["sync"], in: a).status == 0)
        #expect(try scratch.cards(["sync"], in: b).status == 0)
        #expect(try scratch.cards(["edit", id, "--title", "B's title"], in: b).status == 0)
        let bCommit = try scratch.git(["rev-parse", "HEAD"], in: b).stdout.trimmingCharacters(in: .newlines)
        #expect(try scratch.cards(["sync"], in: b).status == 0)
        #expect(try scratch.cards(["sync"], in: a).stdout.contains("Fast-forwarded"))

        let before = try scratch.fingerprint(a)
        let refused = try scratch.cards(["undo"], in: a)
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stderr.contains("cannot undo \"Edit card"), "\(refused.stderr)")
        #expect(refused.stderr.contains(": title)"), "the field that changed since: \(refused.stderr)")
        #expect(refused.stderr.contains("`cards undo \(addCommit)`"), "the one before it: \(refused.stderr)")
        #expect(try scratch.fingerprint(a) == before, "nothing written")
        // The command it names undoes the add.
        let older = try scratch.cards(["undo", addCommit], in: a)
        #expect(older.status == 0 && older.stdout.contains("Older"), "\(older.stdout)\(older.stderr)")
        #expect(try scratch.cards(["show", added], in: a).stderr.contains("was deleted"))
        let again = try scratch.cards(["undo", addCommit], in: a)
        #expect(again.status == 1 && again.stderr.contains("was undone already, by "), "\(again.stderr)")
        let stuck = try scratch.cards(["undo", editCommit], in: a)
        #expect(stuck.status == 1 && stuck.stderr.contains("cannot undo \"Edit card"), "\(stuck.stderr)")
        // Another device's operation, named: B's title goes, A's comes back.
        let theirs = try scratch.cards(["undo", String(bCommit.prefix(10))], in: a)
        #expect(theirs.status == 0, "\(theirs.stderr)")
        #expect(try scratch.cards(["show", id], in: a).stdout.contains("A's title"))
        // What cannot be undone is said.
        for (reference, message) in [
            ("0123abcd", "names no commit of this deck's history"), ("main~100", "names no commit"),
            ("main~100", "names no commit"),
            (String(id.prefix(8)), "\(id) is a card, and undo takes an operation's commit"),
        ] {
            let result = try scratch.cards(["undo", reference], in: a)
            #expect(result.status == 1 && result.stderr.contains(message), "\(reference): \(result.stderr)")
        }
        #expect(try scratch.cards(["undo", "a", "b"], in: a).status == 64)
        try scratch.expectClean(a)
    }

    @Test("a copy of a deck (cp -r) does not undo what the original made after the copy")
    func copiedDeck() throws {
        let scratch = try Scratch()
        let a = try scratch.remoteAndClones(["a"]).clones[0]
        #expect(
            try scratch.cards(["add", "--title", "Before the copy", "--url", "https://b.example"], in: a).status == 0)
        let copy = scratch.path("copy")
        #expect(try scratch.run("/bin/cp", ["-a", a, copy]).status == 0)
        #expect(try scratch.cards(["add", "--title", "Made on A", "--url", "https://a.example"], in: a).status == 0)
        #expect(try scratch.cards(["sync"], in: a).status == 0)
        #expect(try scratch.cards(["sync"], in: copy).stdout.contains("Fast-forwarded"))
        let undo = try scratch.cards(["undo"], in: copy)
        #expect(!undo.stdout.contains("Made on A"), "the copy undid the original's change: \(undo.stdout)")
        #expect(undo.status == 0 && undo.stdout.contains("Before the copy"), "\(undo.stdout)\(undo.stderr)")
    }
}
