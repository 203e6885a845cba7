import Foundation
import Testing

/// `cards owner`, `cards export --format vcard|vcard3` and `cards import FILE.vcf`, against the built
/// binary, with independent readers: Debian's python3-vobject and khard.
@Suite struct VCardCLITests {
    static let python = "/usr/bin/python3"

    @Test func ownerIsOneCommitValidatedAndShown() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let before = try scratch.commits(deck).count
        let noOwner = try scratch.cards(["owner"], in: deck)
        #expect(noOwner.status == 0 && noOwner.stdout.contains("no owner yet"))
        // An old deck (no owner) exports its name as the vCard's.
        #expect(try scratch.cards(["export", "--format", "vcard"], in: deck).stdout.contains("FN:Ada's cards\r\n"))
        let set = try scratch.cards(
            ["owner", "--name", "Ada Lovelace", "--note", "first, programmer", "--pronouns", "she/her"], in: deck)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try scratch.commits(deck).count == before + 1)
        let json = try scratch.cards(["owner", "--json"], in: deck).stdout
        #expect(json.contains("\"name\": \"Ada Lovelace\"") && json.contains("\"pronouns\": \"she/her\""))
        #expect(json.contains("\"uid\": \""))
        // Refused, naming the rule; nothing committed.
        for bad in [["--name", " "], ["--name", "a\u{7}b"], ["--pronouns", String(repeating: "x", count: 51)]] {
            let refused = try scratch.cards(["owner"] + bad, in: deck)
            #expect(refused.status != 0 && refused.stderr.contains("owner."), "\(refused.stderr)")
        }
        #expect(try scratch.commits(deck).count == before + 1)
        // The same again: no commit.
        #expect(try scratch.cards(["owner", "--name", "Ada Lovelace"], in: deck).stdout.contains("already"))
        #expect(try scratch.commits(deck).count == before + 1)
        // A hand edit that breaks the owner's rules is refused by `cards commit`, and fsck names it.
        let file = deck + "/deck.json"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try text.replacingOccurrences(of: "\"she/her\"", with: "42").write(
            toFile: file, atomically: true, encoding: .utf8)
        let commit = try scratch.cards(["commit"], in: deck)
        #expect(commit.status != 0 && commit.stderr.contains("owner.pronouns"), "\(commit.stderr)")
        try scratch.git(["checkout", "--", "deck.json"], in: deck)
        try scratch.expectClean(deck)
        // A folder adopted by `cards init` whose deck.json has an invalid owner makes no deck.
        let folder = scratch.path("adopted")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try #"{"format": 1, "name": "x", "owner": {"name": ""}}"#.write(
            toFile: folder + "/deck.json", atomically: true, encoding: .utf8)
        let adopted = try scratch.cards(["init", folder])
        #expect(adopted.status != 0 && adopted.stderr.contains("owner.name"), "\(adopted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/.git"))
    }

    /// Two devices set different members of the owner: the sync keeps both (a line merge of the
    /// adjacent lines would conflict and keep one side's file).
    @Test func ownerMergesFieldByField() throws {
        let scratch = try Scratch()
        #expect(
            try scratch.cards(["init", "--bare", scratch.path("seed.git"), "--from", Binaries.sampleRepo]).status == 0)
        let (_, clones) = try scratch.remoteAndClones(["laptop", "phone"])
        #expect(try scratch.cards(["owner", "--name", "Ada"], in: clones[0]).status == 0)
        #expect(try scratch.cards(["sync"], in: clones[0]).status == 0)
        #expect(try scratch.cards(["sync"], in: clones[1]).status == 0)
        #expect(try scratch.cards(["owner", "--note", "from the laptop"], in: clones[0]).status == 0)
        #expect(try scratch.cards(["owner", "--pronouns", "she/her", "--name", "Ada L."], in: clones[1]).status == 0)
        #expect(try scratch.cards(["sync"], in: clones[0]).status == 0)
        let sync = try scratch.cards(["sync"], in: clones[1])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try scratch.cards(["sync"], in: clones[0]).status == 0)
        for clone in clones {
            let owner = try scratch.cards(["owner", "--json"], in: clone).stdout
            #expect(
                owner.contains("from the laptop") && owner.contains("she/her") && owner.contains("\"Ada L.\""),
                "\(owner)")
            try scratch.expectClean(clone)
        }
    }

    /// export → import changes nothing (both versions), and a new deck made from the vCard has the
    /// same cards, byte for byte.
    @Test(arguments: ["vcard", "vcard3"]) func exportThenImportChangesNothing(format: String) throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        #expect(
            try scratch.cards(["owner", "--name", "Ada; \"Lovelace\", Countess", "--note", "a\nb"], in: deck).status
                == 0)
        let vcard = try scratch.cards(["export", "--format", format], in: deck)
        #expect(vcard.status == 0)
        try vcard.stdout.write(toFile: scratch.path("ada.vcf"), atomically: true, encoding: .utf8)
        let before = try scratch.commits(deck)
        let imported = try scratch.cards(["import", scratch.path("ada.vcf")], in: deck)
        #expect(
            imported.status == 0 && imported.stdout.contains("0 added, 0 updated, 16 unchanged"),
            "\(imported.stdout)\(imported.stderr)")
        #expect(try scratch.commits(deck) == before)
        #expect(try scratch.cards(["init", scratch.path("fresh")]).status == 0)
        #expect(try scratch.cards(["import", scratch.path("ada.vcf")], in: scratch.path("fresh")).status == 0)
        let original = try scratch.cards(["export"], in: deck).stdout
        #expect(try scratch.cards(["export"], in: scratch.path("fresh")).stdout == original)
        try scratch.expectClean(deck)
    }

    /// Debian's python3-vobject reads our vCards: the owner, each card with its title and URL.
    @Test(arguments: ["vcard", "vcard3"]) func vobjectReadsOurVCard(format: String) throws {
        guard FileManager.default.fileExists(atPath: Self.python),
            (try? Scratch().run(Self.python, ["-c", "import vobject"]).status) == 0
        else { try Test.cancel("python3-vobject is not installed (./dev test installs it)") }
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        #expect(
            try scratch.cards(["owner", "--name", "Ada Lovelace", "--note", "Poet; of, science\\\nline 2"], in: deck)
                .status == 0)
        try scratch.cards(["export", "--format", format], in: deck).stdout.write(
            toFile: scratch.path("ada.vcf"), atomically: true, encoding: .utf8)
        let script = """
            import sys, vobject
            v = vobject.readOne(open(sys.argv[1], encoding="utf-8").read())
            print(v.version.value, v.fn.value, v.uid.value.startswith("urn:uuid:"), repr(v.note.value))
            for c in v.getChildren():
                if c.name in ("SOCIALPROFILE", "X-SOCIALPROFILE", "EMAIL", "URL"):
                    print(c.name, c.params["X-CARDS-TITLE"][0], c.value)
            """
        let read = try scratch.run(Self.python, ["-c", script, scratch.path("ada.vcf")])
        #expect(read.status == 0, "\(read.stderr)")
        let lines = read.stdout.split(separator: "\n")
        #expect(
            lines.first == "\(format == "vcard" ? "4.0" : "3.0") Ada Lovelace True 'Poet; of, science\\\\\\nline 2'")
        #expect(lines.count == 17)
        #expect(lines.contains("EMAIL Write to Ada ada@ada.dev"))
        #expect(
            lines.contains(
                "\(format == "vcard" ? "SOCIALPROFILE" : "X-SOCIALPROFILE") 艾达的微博 https://weibo.com/u/5501234567"))
    }

    /// khard (Debian's) takes our vCard into a temporary address book (its UID, name, note, e-mail), and
    /// a contact khard writes is imported here.
    @Test func khardReadsOursAndWeReadKhards() throws {
        guard FileManager.default.fileExists(atPath: "/usr/bin/khard") else {
            try Test.cancel("khard is not installed (./dev test installs it)")
        }
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        #expect(try scratch.cards(["owner", "--name", "Ada Lovelace", "--note", "Poet"], in: deck).status == 0)
        let book = scratch.path("book")
        try FileManager.default.createDirectory(atPath: book, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.path("xdg/khard"), withIntermediateDirectories: true)
        try """
        [addressbooks]
        [[test]]
        path = \(book)
        [general]
        default_action = list
        editor = /bin/false
        merge_editor = /bin/false
        [vcard]
        preferred_version = 3.0

        """.write(toFile: scratch.path("xdg/khard/khard.conf"), atomically: true, encoding: .utf8)
        let env = [
            "XDG_CONFIG_HOME": scratch.path("xdg"), "XDG_DATA_HOME": scratch.path("xdg"),
            "XDG_CACHE_HOME": scratch.path("xdg"),
        ]
        try scratch.cards(["export", "--format", "vcard"], in: deck).stdout.write(
            toFile: book + "/ada.vcf", atomically: true, encoding: .utf8)
        let uid = try scratch.cards(["owner", "--json"], in: deck).stdout.split(separator: "\"").drop { $0 != "uid" }
            .dropFirst(2).first
        let list = try scratch.run("/usr/bin/khard", ["list", "-p"], extraEnvironment: env)
        #expect(
            list.status == 0 && list.stdout.contains("urn:uuid:\(uid ?? "?")\tAda Lovelace\ttest"),
            "\(list.stdout)\(list.stderr)")
        let email = try scratch.run("/usr/bin/khard", ["email", "-p"], extraEnvironment: env)
        #expect(email.stdout.contains("ada@ada.dev\tAda Lovelace"), "\(email.stdout)\(email.stderr)")
        try """
        Formatted name: Grace Hopper
        First name: Grace
        Last name: Hopper
        Email:
            work: grace@navy.example
        Webpage:
            - https://github.com/gracehopper
            - https://en.wikipedia.org/wiki/Grace_Hopper
        Note: Compilers, and a nanosecond of wire

        """.write(toFile: scratch.path("grace.yaml"), atomically: true, encoding: .utf8)
        let made = try scratch.run(
            "/usr/bin/khard", ["new", "-a", "test", "-i", scratch.path("grace.yaml"), "--vcard-version", "3.0"],
            extraEnvironment: env)
        #expect(made.status == 0, "\(made.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: book).filter { $0 != "ada.vcf" }
        #expect(written.count == 1)
        #expect(try scratch.cards(["init", scratch.path("grace")]).status == 0)
        let imported = try scratch.cards(["import", book + "/" + (written.first ?? "")], in: scratch.path("grace"))
        #expect(imported.status == 0 && imported.stdout.contains("3 added"), "\(imported.stdout)\(imported.stderr)")
        let cards = try scratch.cards(["export"], in: scratch.path("grace")).stdout
        #expect(
            cards.contains("\"title\": \"Grace Hopper on GitHub\"") && cards.contains("\"platformIcon\": \"github\""))
        #expect(cards.contains("\"indexURL\": \"mailto:grace@navy.example\""))
        #expect(cards.contains("\"indexURL\": \"https://en.wikipedia.org/wiki/Grace_Hopper\""))
    }

    /// A malformed file is refused naming its line, nothing committed; hostile files end cleanly.
    /// A contact from a phone names no card ids: imported twice, its links are cards once; a platform it
    /// names in lower case keeps the platform's own spelling.
    @Test func aContactImportedTwiceAddsNothingTheSecondTime() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck("deck")
        let before = try scratch.cards(["list", "--json"], in: deck).stdout.components(separatedBy: "\"id\"").count
        let file = scratch.path("grace.vcf")
        try """
        BEGIN:VCARD\r
        VERSION:3.0\r
        N:Hopper;Grace;;;\r
        FN:Grace Hopper\r
        X-SOCIALPROFILE;TYPE=linkedin:https://www.linkedin.com/in/grace\r
        URL:https://grace.example/\r
        END:VCARD\r

        """.write(toFile: file, atomically: true, encoding: .utf8)
        let first = try scratch.cards(["import", file], in: deck)
        #expect(first.status == 0 && first.stdout.contains("2 added"), "\(first.stdout)\(first.stderr)")
        let second = try scratch.cards(["import", file], in: deck)
        #expect(second.status == 0 && second.stdout.contains("in the deck already"), "\(second.stdout)")
        let after = try scratch.cards(["list", "--json"], in: deck).stdout
        #expect(after.components(separatedBy: "\"id\"").count == before + 2, "two cards, not four")
        #expect(after.contains("\"platformName\":\"LinkedIn\"") || after.contains("\"platformName\": \"LinkedIn\""))
    }

    @Test func malformedAndHostileFiles() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let before = try scratch.commits(deck)
        let good = "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:X\r\nURL:https://example.com/a\r\n"
        var cases: [(String, Data, String?)] = [
            ("no-colon.vcf", Data((good + "URL https://example.com/b\r\nEND:VCARD\r\n").utf8), "line 5"),
            ("unended.vcf", Data(good.utf8), "line 1"),
            ("v21.vcf", Data("BEGIN:VCARD\r\nVERSION:2.1\r\nEND:VCARD\r\n".utf8), "line 1"),
            (
                "bad-utf8.vcf",
                Data(good.utf8) + Data([0x4E, 0x4F, 0x54, 0x45, 0x3A, 0xC3, 0x28, 13, 10]) + Data("END:VCARD\r\n".utf8),
                "line 5"
            ),
            (
                "huge-line.vcf",
                Data((good + "NOTE:" + String(repeating: "x", count: 2 << 20) + "\r\nEND:VCARD\r\n").utf8), "line 5"
            ),
            (
                "deep-fold.vcf",
                Data((good + "NOTE:x" + String(repeating: "\r\n y", count: 1_200_000) + "\r\nEND:VCARD\r\n").utf8),
                "line 5"
            ),
            ("nested.vcf", Data((good + good + "END:VCARD\r\nEND:VCARD\r\n").utf8), "line 5"),
        ]
        var many = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Many\r\n"
        for index in 0..<10_000 {
            many += "X-SOCIALPROFILE;TYPE=github:https://github.com/u\(index)\r\nTEL:\(index)\r\n"
        }
        cases.append(("many.vcf", Data((many + "END:VCARD\r\n").utf8), nil))
        for (name, bytes, line) in cases {
            try bytes.write(to: URL(fileURLWithPath: scratch.path(name)))
            let result = try scratch.cards(["import", scratch.path(name)], in: deck)
            if let line {
                #expect(result.status == 1 && result.stderr.contains("\(name): \(line):"), "\(name): \(result.stderr)")
                #expect(try scratch.commits(deck) == before)
            } else {
                #expect(result.status == 0 && result.stdout.contains("10000 added"), "\(name): \(result.stderr)")
            }
        }
        try scratch.expectClean(deck)
    }
}

extension VCardCLITests {
    @Test(
        "a deck name with an escape sequence: refused by cards init; one committed with git and fetched still reads, and is written to no vCard"
    )
    func deckNamesWithControlCharacters() throws {
        let scratch = try Scratch()
        let refused = try scratch.cards(["init", scratch.path("new"), "--name", "Evil\u{1B}]0;owned\u{07}"])
        #expect(refused.status != 0 && refused.stderr.contains("without control characters"), "\(refused.stderr)")
        #expect(refused.stderr.contains(#""Evil\u{1b}]0;owned\u{7}""#), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("new")))

        let (_, clones) = try scratch.remoteAndClones(["a", "b"])
        let (a, b) = (clones[0], clones[1])
        try #"{"format": 1, "name": "Evil\u001b]0;owned\u0007\u009b2J deck"}"#.write(
            toFile: b + "/deck.json", atomically: true, encoding: .utf8)
        try scratch.gitChecked(["commit", "-q", "-am", "a name by hand"], in: b)
        try scratch.gitChecked(["push", "-q", "origin", "main"], in: b)
        #expect(try scratch.cards(["sync"], in: a).status == 0)
        for format in ["vcard", "vcard3"] {
            let export = try scratch.cards(["export", "--format", format], in: a)
            #expect(export.status == 0, "\(export.stderr)")
            let controls = export.stdout.unicodeScalars.filter {
                ($0.value < 0x20 && $0 != "\r" && $0 != "\n") || (0x7F...0x9F).contains($0.value)
            }
            #expect(controls.isEmpty, "\(format): \(controls.map(\.value))")
            #expect(export.stdout.contains(#"FN:Evil]0\;owned2J deck"# + "\r\n"), "\(export.stdout)")
        }
        // Earlier versions took such a name: it still reads and merges (nothing of deck.json is lost).
        let fsck = try scratch.cards(["fsck"], in: a)
        #expect(fsck.status == 0, "\(fsck.stderr)")
    }
}
