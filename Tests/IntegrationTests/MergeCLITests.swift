import CardModel
import Foundation
import Testing

/// `cards merge`, `conflicts`, `resolve` and the git merge driver, with the git CLI on real repos.
@Suite("Merge from the command line")
struct MergeCLITests {
    /// A bare "remote" from the sample and two clones made by `cards clone`, with the merge driver set to this build.
    func setUp(_ scratch: Scratch) throws -> (remote: String, a: String, b: String) {
        let (remote, clones) = try scratch.remoteAndClones(["a", "b"])
        for clone in clones {
            try scratch.git(["config", "merge.cards.driver", "\(Binaries.cards) merge-driver %O %A %B %P"], in: clone)
        }
        return (remote, clones[0], clones[1])
    }

    func firstID(_ scratch: Scratch, _ deck: String) throws -> String {
        String(try scratch.cards(["list"], in: deck).stdout.prefix(8))
    }

    /// Breaks the card file of `id` in `deck` by hand (`{"broken": true}`, or `edit` of its text) and commits
    /// it with git, as a hand edit pushed from elsewhere would be; returns its path in the deck.
    @discardableResult
    func breakCard(
        _ scratch: Scratch, _ deck: String, _ id: String, _ edit: (String) -> String = { _ in "{\"broken\": true}" }
    ) throws -> String {
        let path = CardID.path(for: id)
        try edit(try String(contentsOfFile: deck + "/" + path, encoding: .utf8))
            .write(toFile: deck + "/" + path, atomically: true, encoding: .utf8)
        try scratch.gitChecked(["commit", "-q", "-am", "broken by hand"], in: deck)
        return path
    }

    /// Each deck's main fetched into the other as `refs/remotes/<a|b>/main`, to merge both ways.
    func fetchEachOther(_ scratch: Scratch, _ a: String, _ b: String) throws {
        try scratch.gitChecked(["fetch", "-q", b, "main:refs/remotes/b/main"], in: a)
        try scratch.gitChecked(["fetch", "-q", a, "main:refs/remotes/a/main"], in: b)
    }

    @Test("a deck made with cards init and cards remote add: a plain git pull merges card files with the driver")
    func plainGitPullAfterRemoteAdd() throws {
        let scratch = try Scratch()
        let a = scratch.path("a")
        #expect(try scratch.cards(["init", a, "--from", Binaries.sampleRepo]).status == 0)
        try scratch.git(["config", "merge.cards.driver", "\(Binaries.cards) merge-driver %O %A %B %P"], in: a)
        let server = scratch.path("server.git")
        try scratch.git(["init", "-q", "--bare", server], in: scratch.root)
        #expect(try scratch.cards(["remote", "add", "origin", server], in: a).status == 0)
        #expect(try scratch.cards(["sync"], in: a).status == 0)
        let b = scratch.path("b")
        #expect(try scratch.cards(["clone", server, b]).status == 0)
        let id = try firstID(scratch, a)
        #expect(try scratch.cards(["edit", id, "--color", "red"], in: b).status == 0)
        #expect(try scratch.cards(["sync"], in: b).status == 0)
        #expect(try scratch.cards(["edit", id, "--title", "Title from A"], in: a).status == 0)
        let pull = try scratch.git(["pull", "--no-edit"], in: a)
        #expect(pull.status == 0, "git pull failed: \(pull.stdout)\(pull.stderr)")
        let show = try scratch.cards(["show", id, "--json"], in: a).stdout
        #expect(show.contains("\"title\": \"Title from A\"") && show.contains("\"color\": \"red\""), "\(show)")
    }

    @Test("git merge of two branches that edited different fields of one card finishes cleanly with both edits")
    func gitMergeUsesDriver() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let id = try firstID(scratch, a)
        #expect(try scratch.cards(["edit", id, "--title", "Title from A"], in: a).status == 0)
        #expect(try scratch.cards(["edit", id, "--color", "red"], in: b).status == 0)
        try scratch.git(["push", "-q", "origin", "main"], in: b)
        // Plain `git pull`: the deck's `pull.rebase false` makes a diverged pull a merge (git 2.33.1 and
        // later would otherwise stop and ask how to reconcile).
        let pull = try scratch.git(["pull", "--no-edit", "origin", "main"], in: a)
        #expect(pull.status == 0, "git pull failed: \(pull.stdout)\(pull.stderr)")
        let show = try scratch.cards(["show", id, "--json"], in: a).stdout
        #expect(show.contains("\"title\": \"Title from A\""))
        #expect(show.contains("\"color\": \"red\""))
        #expect(!show.contains("<<<<<<<"))
        try scratch.expectClean(a)
        #expect(try scratch.cards(["fsck"], in: a).status == 0)
    }

    @Test("git merge of the same field: the driver records the conflict in the card; resolve settles it")
    func gitMergeSameField() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let id = try firstID(scratch, a)
        #expect(try scratch.cards(["edit", id, "--title", "Work"], in: a).status == 0)
        #expect(try scratch.cards(["edit", id, "--title", "Job"], in: b).status == 0)
        try scratch.git(["push", "-q", "origin", "main"], in: b)
        let pull = try scratch.git(["pull", "--no-rebase", "--no-edit", "origin", "main"], in: a)
        #expect(pull.status == 0, "\(pull.stdout)\(pull.stderr)")
        let conflicts = try scratch.cards(["conflicts", "--json"], in: a)
        let parsed = try JSONSerialization.jsonObject(with: Data(conflicts.stdout.utf8)) as? [[String: Any]]
        #expect(parsed?.count == 1)
        let human = try scratch.cards(["conflicts"], in: a).stdout
        #expect(human.contains("title") && human.contains("\"Work\"") && human.contains("\"Job\""))
        #expect(try scratch.cards(["resolve", id, "--field", "title", "--pick", "1"], in: a).status == 0)
        #expect(try scratch.cards(["conflicts"], in: a).stdout.contains("No conflicts"))
        #expect(try scratch.git(["log", "-1", "--format=%B"], in: a).stdout.contains("Op: resolve"))
        try scratch.expectClean(a)
    }

    @Test("two files whose names differ only in Unicode normalization, one changed on each side: both changes kept")
    func normalizationTwins() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        // "é" as one code point and as "e" with a combining accent: two files to git, one key to a Swift
        // dictionary (a merge once wrote one side's change into the other file and lost the other's).
        let composed = "\u{e9}.txt"
        let decomposed = "e\u{301}.txt"
        try "one\n".write(toFile: a + "/" + decomposed, atomically: true, encoding: .utf8)
        try "two\n".write(toFile: a + "/" + composed, atomically: true, encoding: .utf8)
        try scratch.git(["add", "-A"], in: a)
        try scratch.git(["commit", "-q", "-m", "twins"], in: a)
        try scratch.git(["push", "-q", "origin", "main"], in: a)
        try scratch.git(["pull", "-q", "origin", "main"], in: b)
        try "two from b\n".write(toFile: b + "/" + composed, atomically: true, encoding: .utf8)
        try scratch.git(["commit", "-q", "-am", "b edits the composed one"], in: b)
        try scratch.git(["push", "-q", "origin", "main"], in: b)
        try "one from a\n".write(toFile: a + "/" + decomposed, atomically: true, encoding: .utf8)
        try scratch.git(["commit", "-q", "-am", "a edits the decomposed one"], in: a)
        try scratch.git(["fetch", "-q", "origin"], in: a)
        let merge = try scratch.cards(["merge", "origin/main"], in: a)
        #expect(merge.status == 0, "\(merge.stderr)")
        for (name, text) in [(decomposed, "one from a\n"), (composed, "two from b\n")] {
            #expect(try String(contentsOfFile: a + "/" + name, encoding: .utf8) == text, "\(name.unicodeScalars.count)")
            #expect(try scratch.git(["show", "HEAD:" + name], in: a).stdout == text)
        }
        try scratch.expectClean(a)
    }

    @Test("cards merge: dry run writes nothing, then a merge commit with a trailer per decision")
    func cardsMerge() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let id = try firstID(scratch, a)
        #expect(try scratch.cards(["edit", id, "--title", "A's title"], in: a).status == 0)
        #expect(try scratch.cards(["edit", id, "--platform", "B's platform"], in: b).status == 0)
        try scratch.git(["push", "-q", "origin", "main"], in: b)
        try scratch.git(["fetch", "-q", "origin"], in: a)
        let before = try scratch.fingerprint(a)
        let dry = try scratch.cards(["merge", "origin/main", "--dry-run"], in: a)
        #expect(dry.status == 0, "\(dry.stderr)")
        // One line a card in the words `cards sync` uses: which field came from which side.
        #expect(dry.stdout.contains("Would merge") && dry.stdout.contains("from theirs"), "\(dry.stdout)")
        #expect(!dry.stdout.contains("merged:"), "\(dry.stdout)")
        #expect(try scratch.fingerprint(a) == before)
        let merge = try scratch.cards(["merge", "origin/main"], in: a)
        #expect(merge.status == 0, "\(merge.stderr)")
        let parents = try scratch.git(["log", "-1", "--format=%P"], in: a).stdout.split(separator: " ")
        #expect(parents.count == 2)
        #expect(try scratch.git(["log", "-1", "--format=%B"], in: a).stdout.contains("Card-Merged: \(id)"))
        try scratch.expectClean(a)
        let bad = try scratch.cards(["merge", "no-such-branch"], in: a)
        #expect(bad.status == 1 && bad.stderr.contains("no-such-branch"))
        let badPolicy = try scratch.cards(["merge", "origin/main", "--policy", "sometimes"], in: a)
        #expect(badPolicy.status == 64 && badPolicy.stderr.contains("sometimes"))
    }

    @Test(
        "delete versus edit: --policy keep records one conflict and says so, --policy delete records none",
        arguments: ["keep", "delete"])
    func deleteVersusEditCount(policy: String) throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let id = try firstID(scratch, a)
        #expect(try scratch.cards(["delete", id], in: a).status == 0)
        #expect(try scratch.cards(["edit", id, "--title", "Edited on B"], in: b).status == 0)
        try scratch.git(["push", "-q", "origin", "main"], in: b)
        try scratch.git(["fetch", "-q", "origin"], in: a)
        let merge = try scratch.cards(["merge", "origin/main", "--policy", policy], in: a)
        #expect(merge.status == 0, "\(merge.stderr)")
        let conflicts = try scratch.cards(["conflicts", "--json"], in: a)
        let recorded = conflicts.stdout.components(separatedBy: "\"field\"").count - 1
        if policy == "keep" {
            #expect(merge.stdout.contains("Recorded 1 conflict:"), "\(merge.stdout)")
            #expect(recorded == 1, "\(conflicts.stdout)")
            // Settled by deleting it, then brought back: the restore settles it again, so no record.
            #expect(try scratch.cards(["resolve", id, "--delete"], in: a).status == 0)
            #expect(try scratch.cards(["show", id], in: a).status == 1)
            #expect(try scratch.cards(["restore", id], in: a).status == 0)
            #expect(try scratch.cards(["show", id], in: a).stdout.contains("Edited on B"))
            let after = try scratch.cards(["conflicts", "--json"], in: a).stdout
            #expect(!after.contains("\"field\""), "\(after)")
            try scratch.expectClean(a)
        } else {
            #expect(!merge.stdout.contains("Recorded"), "\(merge.stdout)")
            #expect(recorded == 0, "\(conflicts.stdout)")
        }
    }

    @Test("a card invalid on one side is reported by path and kept as it came; the others merge")
    func invalidIncomingCard() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let ids = try scratch.cards(["list"], in: a).stdout.split(separator: "\n").map { String($0.prefix(8)) }
        // B breaks one card by hand and commits it with git; A edits another card.
        let path = try #require(
            FileManager.default.subpathsOfDirectory(atPath: b + "/cards").first {
                $0.contains(ids[1]) && $0.hasSuffix(".json")
            })
        try "{\"broken\": true}".write(toFile: b + "/cards/" + path, atomically: true, encoding: .utf8)
        try scratch.git(["commit", "-q", "-am", "broken by hand"], in: b)
        #expect(try scratch.cards(["edit", ids[2], "--platform", "Also from B"], in: b).status == 0)
        try scratch.git(["push", "-q", "origin", "main"], in: b)
        #expect(try scratch.cards(["edit", ids[3], "--title", "From A"], in: a).status == 0)
        try scratch.git(["fetch", "-q", "origin"], in: a)
        let merge = try scratch.cards(["merge", "origin/main"], in: a)
        #expect(merge.status == 1)
        #expect(merge.stderr.contains("cards/" + path) && merge.stderr.contains("not a valid card"))
        #expect(
            try String(contentsOfFile: a + "/cards/" + path, encoding: .utf8) == "{\"broken\": true}", "kept as it came"
        )
        #expect(try scratch.cards(["show", ids[2], "--json"], in: a).stdout.contains("Also from B"))
        #expect(try scratch.cards(["show", ids[3], "--json"], in: a).stdout.contains("From A"))
        #expect(try scratch.cards(["status"], in: a).status == 0)
        #expect(try scratch.cards(["fsck"], in: a).stderr.contains("cards/" + path))
        try scratch.expectClean(a)
    }

    @Test(
        "a card broken by hand on one side and edited on the other: the edit is kept, the broken file set aside and named"
    )
    func invalidAgainstAValidEdit() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let id = try #require(try scratch.cardIDs(a).sorted().first)
        // A breaks the card and commits it with git, and syncs; B edits it and syncs after.
        let path = try breakCard(scratch, a, id)
        let pushed = try scratch.cards(["sync"], in: a)
        #expect(pushed.status == 1, "a push of a broken card is said: \(pushed.stdout)")
        #expect(pushed.stdout.contains("\(path) is not a valid card"), "\(pushed.stdout)")
        #expect(pushed.stderr.contains("Error: the deck now holds 1 card file"), "\(pushed.stderr)")
        #expect(try scratch.cards(["edit", String(id.prefix(8)), "--title", "Edited on B"], in: b).status == 0)
        let merged = try scratch.cards(["sync"], in: b)
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
        #expect(merged.stdout.contains("(1 card; 1 card file not valid)"), "\(merged.stdout)")
        #expect(merged.stdout.contains("note: \(path), origin/main's version, is not a valid card"), "\(merged.stdout)")
        #expect(merged.stdout.contains("`git show "), "\(merged.stdout)")
        #expect(try scratch.cards(["show", id], in: b).stdout.contains("Edited on B"), "B's edit is not lost")
        // A gets the valid card back; both decks end equal, and sound.
        let back = try scratch.cards(["sync"], in: a)
        #expect(back.status == 0 && back.stdout.contains("Fast-forwarded"), "\(back.stdout)\(back.stderr)")
        #expect(try scratch.cards(["show", id], in: a).stdout.contains("Edited on B"))
        #expect(try scratch.cards(["fsck"], in: a).status == 0)
        try scratch.expectClean(a)
        try scratch.expectClean(b)
    }

    @Test("the same merge made from either side keeps the valid edit over the broken file (symmetric)")
    func invalidAgainstAValidEditSymmetric() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let id = try #require(try scratch.cardIDs(a).sorted().first)
        let path = try breakCard(scratch, a, id)
        #expect(try scratch.cards(["edit", String(id.prefix(8)), "--color", "red"], in: b).status == 0)
        try fetchEachOther(scratch, a, b)
        let inA = try scratch.cards(["merge", "b/main"], in: a)
        let inB = try scratch.cards(["merge", "a/main"], in: b)
        #expect(inA.status == 0 && inB.status == 0, "\(inA.stderr)\(inB.stderr)")
        #expect(inA.stderr.contains("note: \(path), this deck's version, is not a valid card"), "\(inA.stderr)")
        #expect(inB.stderr.contains("note: \(path), a/main's version, is not a valid card"), "\(inB.stderr)")
        let treeA = try scratch.git(["rev-parse", "main^{tree}"], in: a).stdout
        let treeB = try scratch.git(["rev-parse", "main^{tree}"], in: b).stdout
        #expect(treeA == treeB, "both sides merge to the same deck")
        #expect(try scratch.cards(["show", id, "--json"], in: a).stdout.contains("\"color\": \"red\""))
    }

    @Test("a side edited a card with cards, then broke its file by hand: its edit merges from the last valid version")
    func invalidAfterAValidEditKeepsTheEdit() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let id = try #require(try scratch.cardIDs(a).sorted().first)
        #expect(try scratch.cards(["edit", id, "--title", "A's title"], in: a).status == 0)
        let path = try breakCard(scratch, a, id) {
            $0.replacingOccurrences(of: "\"color\": \"", with: "\"color\": \"nope-")
        }
        #expect(try scratch.cards(["edit", id, "--url", "https://b.example"], in: b).status == 0)
        try fetchEachOther(scratch, a, b)
        let inA = try scratch.cards(["merge", "b/main"], in: a)
        let inB = try scratch.cards(["merge", "a/main"], in: b)
        #expect(inA.status == 0 && inB.status == 0, "\(inA.stderr)\(inB.stderr)")
        #expect(inB.stderr.contains("note: \(path), a/main's version, is not a valid card"), "\(inB.stderr)")
        #expect(
            try scratch.git(["rev-parse", "main^{tree}"], in: a).stdout
                == (try scratch.git(["rev-parse", "main^{tree}"], in: b).stdout), "both sides merge to the same deck")
        let card = try scratch.cards(["show", id, "--json"], in: a).stdout
        #expect(card.contains("A's title") && card.contains("https://b.example"), "neither edit lost: \(card)")
        #expect(try scratch.cards(["fsck"], in: a).status == 0)
    }

    @Test("a merge of many cards prints a summary: counts by kind, the conflict in full, the first five; --verbose all")
    func bigMergeSummary() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let ids = try scratch.cards(["list"], in: a).stdout.split(separator: "\n").map { String($0.prefix(8)) }
        #expect(ids.count == 16)
        // 7 cards edited on this side, 6 on the other, and one title edited on both: a conflict.
        for id in ids[0..<7] {
            #expect(try scratch.cards(["edit", id, "--title", "A edited \(id)"], in: a).status == 0)
        }
        for id in ids[7..<13] {
            #expect(try scratch.cards(["edit", id, "--title", "B edited \(id)"], in: b).status == 0)
        }
        #expect(try scratch.cards(["edit", ids[13], "--title", "A's title"], in: a).status == 0)
        #expect(try scratch.cards(["edit", ids[13], "--title", "B's title"], in: b).status == 0)
        try scratch.git(["push", "-q", "origin", "main"], in: b)
        try scratch.git(["fetch", "-q", "origin"], in: a)
        let dry = try scratch.cards(["merge", "origin/main", "--dry-run"], in: a)
        #expect(dry.status == 0, "\(dry.stderr)")
        let lines = dry.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("14 cards changed") == true, "\(dry.stdout)")
        #expect(lines.contains("  7 changed on ours, 6 changed on theirs, 1 with a conflict"), "\(dry.stdout)")
        #expect(lines.contains { $0.contains("conflict: title kept") }, "the conflict is named in full: \(dry.stdout)")
        #expect(lines.contains { $0.contains("… and 8 more (--verbose lists every card") }, "\(dry.stdout)")
        #expect(lines.filter { $0.hasPrefix("  \"") }.count == 6, "the conflict and the first five: \(dry.stdout)")
        let verbose = try scratch.cards(["merge", "origin/main", "--dry-run", "--verbose"], in: a)
        let cardLines = verbose.stdout.split(separator: "\n").filter { $0.hasPrefix("  \"") }
        #expect(cardLines.count == 14 && !verbose.stdout.contains("more (--verbose"), "\(verbose.stdout)")
        let merge = try scratch.cards(["merge", "origin/main"], in: a)
        #expect(merge.status == 0 && merge.stdout.contains("… and 8 more"), "\(merge.stdout)\(merge.stderr)")
        #expect(merge.stdout.contains("Recorded 1 conflict"), "\(merge.stdout)")
        try scratch.expectClean(a)
    }

    @Test("merge of a ref that names nothing says how to get it")
    func mergeUnknownReference() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let none = try scratch.cards(["merge", "origin/main"], in: deck)
        #expect(
            none.status == 1 && none.stderr.contains("this deck has no remote: `cards remote add"), "\(none.stderr)")
        let (_, a, _) = try setUp(scratch)
        let typo = try scratch.cards(["merge", "origin/mian"], in: a)
        #expect(typo.stderr.contains("fetch it first (`git fetch origin`)"), "\(typo.stderr)")
    }

    @Test("a deck.json of a newer format is refused by sync, merge, clone and every command, changing nothing")
    func newerDeckFormat() throws {
        let scratch = try Scratch()
        let (remote, a, b) = try setUp(scratch)
        try #"{"format": 2, "name": "future"}"#.write(toFile: b + "/deck.json", atomically: true, encoding: .utf8)
        try scratch.git(["commit", "-q", "-am", "format 2"], in: b)
        try scratch.git(["push", "-q", "origin", "main"], in: b)
        let before = try scratch.fingerprint(a)
        let sync = try scratch.cards(["sync"], in: a)
        #expect(sync.status == 1 && sync.stderr.contains("format 2, newer than this version"), "\(sync.stderr)")
        try scratch.git(["fetch", "-q", "origin"], in: a)
        let merge = try scratch.cards(["merge", "origin/main"], in: a)
        #expect(merge.status == 1 && merge.stderr.contains("nothing was merged"), "\(merge.stderr)")
        #expect(try scratch.fingerprint(a) == before)
        let target = scratch.path("c")
        let clone = try scratch.cards(["clone", remote, target])
        #expect(clone.status == 1 && clone.stderr.contains("nothing was cloned"), "\(clone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        let list = try scratch.cards(["list"], in: b)
        #expect(list.status == 1 && list.stderr.contains("update cards"), "\(list.stderr)")
        // A newer format however it is written.
        for format in ["2.0", "2e0", "99999999999999999999999"] {
            try #"{"format": \#(format), "name": "future"}"#.write(
                toFile: b + "/deck.json", atomically: true, encoding: .utf8)
            try scratch.git(["commit", "-q", "-am", "format \(format)"], in: b)
            let refused = try scratch.cards(["list"], in: b)
            #expect(refused.status == 1 && refused.stderr.contains("of format \(format), newer"), "\(refused.stderr)")
        }
    }

    @Test("a fast-forward that brings in a card file that is not a valid card says so and exits 1")
    func fastForwardOfAnInvalidCard() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let id = try #require(try scratch.cardIDs(a).sorted().first)
        try breakCard(scratch, a, id)
        try scratch.git(["push", "-q", "origin", "main"], in: a)
        try scratch.git(["fetch", "-q", "origin"], in: b)
        let merge = try scratch.cards(["merge", "origin/main"], in: b)
        #expect(merge.status == 1 && merge.stdout.contains("Fast-forwarded"), "\(merge.stdout)\(merge.stderr)")
        #expect(merge.stderr.contains("cards/\(id.prefix(2))/\(id).json, origin/main's version, is not a valid card"))
        #expect(merge.stderr.contains("Error: the deck now holds 1 card file"), "\(merge.stderr)")
    }
}

extension MergeCLITests {
    @Test(
        "a conflict on fields named with a space and a quote, and with a leading dash: each suggested resolve, run by sh as printed, settles it"
    )
    func suggestedResolveRunsAsPrinted() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let id = try #require(try scratch.cardIDs(a).sorted().first)
        let names = ["it's my note", "-odd"]
        for (deck, value) in [(a, "\"from a\""), (b, "\"from b\"")] {
            let edit = try scratch.cards(["edit", id] + names.flatMap { ["--set", "\($0)=\(value)"] }, in: deck)
            #expect(edit.status == 0, "\(edit.stderr)")
        }
        try scratch.git(["push", "-q", "origin", "main"], in: b)
        try scratch.git(["fetch", "-q", "origin"], in: a)
        #expect(try scratch.cards(["merge", "origin/main"], in: a).status == 0)
        // A swipe that deletes the card names its open conflict and how to settle it after an undo.
        let swipe = try scratch.cards(["swipe", id, "--left"], in: a)
        #expect(swipe.stdout.contains(#"cards resolve \#(id.prefix(8)) --field='-odd' --pick N"#), "\(swipe.stdout)")
        #expect(try scratch.cards(["undo"], in: a).status == 0)
        for name in names {
            let listed = try scratch.cards(["conflicts"], in: a).stdout
            let settle = try #require(
                listed.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                    .first {
                        $0.hasPrefix("settle: cards resolve") && $0.contains(name.hasPrefix("-") ? "odd" : "note")
                    },
                "\(listed)")
            // What a person pastes: the printed command, `cards` this build, N their pick.
            let line = settle.dropFirst("settle: cards ".count).replacingOccurrences(of: "--pick N", with: "--pick 2")
            let run = try scratch.run(
                "/bin/sh", ["-c", "\"$CARDS\" " + line], in: a, extraEnvironment: ["CARDS": Binaries.cards])
            #expect(run.status == 0, "\(line): \(run.stderr)")
            let after = try scratch.cards(["conflicts"], in: a).stdout
            #expect(!after.contains(name), "\(line) left its conflict: \(after)")
        }
        #expect(try scratch.cards(["conflicts"], in: a).stdout.contains("No conflicts"))
    }

    @Test("an escape sequence in a field's name, from a hand-written card file: show and conflicts print it escaped")
    func fieldNamesWithControlCharactersAreEscaped() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let id = try #require(try scratch.cardIDs(a).sorted().first)
        // A name that clears the screen and retitles the terminal, were it printed as it is.
        let name = "\u{1B}[2J\u{1B}]0;owned\u{07}note"
        for (deck, value) in [(a, "from a"), (b, "from b")] {
            let path = deck + "/" + CardID.path(for: id)
            var json = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            json[name] = value
            try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
            try scratch.gitChecked(["commit", "-q", "-am", "a field by hand"], in: deck)
        }
        try scratch.git(["push", "-q", "origin", "main"], in: b)
        try scratch.git(["fetch", "-q", "origin"], in: a)
        #expect(try scratch.cards(["merge", "origin/main"], in: a).status == 0)
        for command in [["show", id], ["conflicts"]] {
            let output = try scratch.cards(command, in: a).stdout
            #expect(
                !output.unicodeScalars.contains("\u{1B}") && !output.unicodeScalars.contains("\u{07}"),
                "\(command): \(output)")
            #expect(output.contains(#""\u{1b}[2J\u{1b}]0;owned\u{7}note""#), "\(command): \(output)")
        }
    }
}

extension MergeCLITests {
    @Test(
        "cards one side edited over a hand-formatted base and over a broken one: the edits taken, named as edits, the tree git merge-tree makes"
    )
    func editsOverOddBases() throws {
        let scratch = try Scratch()
        let (_, a, b) = try setUp(scratch)
        let ids = try scratch.cardIDs(a).sorted()
        let (formatted, broken, other) = (ids[0], ids[1], ids[2])
        // The base: one card laid out by hand (the same fields, another layout), one broken by hand.
        let formattedPath = CardID.path(for: formatted)
        let original = try String(contentsOfFile: a + "/" + formattedPath, encoding: .utf8)
        try original.replacingOccurrences(of: "\n  ", with: "\n\t").write(
            toFile: a + "/" + formattedPath, atomically: true, encoding: .utf8)
        let brokenPath = try breakCard(scratch, a, broken)
        let validBroken = try scratch.git(["show", "HEAD~1:" + brokenPath], in: a).stdout
        try scratch.git(["push", "-q", "origin", "main"], in: a)
        try scratch.gitChecked(["pull", "-q", "--ff-only", "origin", "main"], in: b)
        // Theirs edits both: one with cards, the broken one mended by hand with a valid card file.
        #expect(try scratch.cards(["edit", formatted, "--title", "Edited on B"], in: b).status == 0)
        try validBroken.replacingOccurrences(of: "\"title\": \"", with: "\"title\": \"Mended ").write(
            toFile: b + "/" + brokenPath, atomically: true, encoding: .utf8)
        try scratch.gitChecked(["commit", "-q", "-am", "mended by hand"], in: b)
        try scratch.git(["push", "-q", "origin", "main"], in: b)
        #expect(try scratch.cards(["edit", other, "--title", "Edited on A"], in: a).status == 0)
        try scratch.git(["fetch", "-q", "origin"], in: a)

        let merge = try scratch.cards(["merge", "--verbose", "origin/main"], in: a)
        #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        let lines = merge.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("\"Edited on B\": edited on theirs") }, "\(merge.stdout)")
        #expect(lines.contains { $0.contains("\"Mended ") && $0.contains(": edited on theirs") }, "\(merge.stdout)")
        // Git's own merge of the same two commits gives the same card files.
        let gitTree = try scratch.git(["merge-tree", "--write-tree", "HEAD^1", "HEAD^2"], in: a).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        for path in [formattedPath, brokenPath, CardID.path(for: other)] {
            let ours = try scratch.git(["rev-parse", "HEAD:" + path], in: a).stdout
            let git = try scratch.git(["rev-parse", gitTree + ":" + path], in: a).stdout
            #expect(ours == git, "\(path)")
        }
        #expect(try scratch.cards(["fsck"], in: a).status == 0)
        try scratch.expectClean(a)
    }
}

extension MergeCLITests {
    @Test(
        "a conflict record written by hand with no values: conflicts shows the card's value and a --keep that settles it"
    )
    func recordWithoutValuesSettledByKeep() throws {
        let scratch = try Scratch()
        let (_, a, _) = try setUp(scratch)
        let id = try #require(try scratch.cardIDs(a).sorted().first)
        let path = a + "/" + CardID.path(for: id)
        var json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let title = try #require(json["title"] as? String)
        json["conflicts"] = [["field": "title"]]
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        try scratch.gitChecked(["commit", "-q", "-am", "a record by hand"], in: a)
        let listed = try scratch.cards(["conflicts"], in: a).stdout
        #expect(listed.contains("title: kept \"\(title)\""), "\(listed)")
        let settle = try #require(
            listed.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix("settle: cards resolve") }, "\(listed)")
        let line = settle.dropFirst("settle: cards ".count).prefix { $0 != "(" }
        let run = try scratch.run(
            "/bin/sh", ["-c", "\"$CARDS\" " + line], in: a, extraEnvironment: ["CARDS": Binaries.cards])
        #expect(run.status == 0, "\(line): \(run.stderr)")
        #expect(try scratch.cards(["conflicts"], in: a).stdout.contains("No conflicts"))
        #expect(try scratch.cards(["show", id, "--json"], in: a).stdout.contains(title))
    }
}
