import Foundation
import TestSupport
import Testing

/// Issue 27: a working tree left behind `main` by plain git (`git update-ref` after a fetch, the index
/// rewritten since by `git status`), told from hand edits by content: `fsck --repair` brings it along,
/// and no `sync` or `commit` takes what it lacks for deletions.
@Suite("A working tree behind main")
struct BehindMainRepairTests {
    /// The path of a card's file.
    static func cardPath(_ id: String) -> String { "cards/\(id.prefix(2))/\(id).json" }

    /// Moves `deck`'s main to its remote's by plain git, leaving the working tree and index behind.
    static func fastForwardByGit(_ scratch: Scratch, _ deck: String) throws {
        try scratch.gitChecked(["fetch", "-q", "origin"], in: deck)
        try scratch.gitChecked(["update-ref", "refs/heads/main", "refs/remotes/origin/main"], in: deck)
    }

    /// Runs `git status` in `deck` so that it rewrites the index. git writes the index only when its
    /// refresh changed an entry (or one was racily clean, which depends on timing: under load there may
    /// be none, and the index stays the one `cards` wrote); a card file other than `sparing`'s given an
    /// older mtime makes it rewrite every time.
    static func rewriteIndexByGitStatus(_ scratch: Scratch, _ deck: String, sparing: String) throws {
        let index = URL(fileURLWithPath: deck + "/.git/index")
        let before = try Data(contentsOf: index)
        let touched = try #require(try scratch.cardIDs(deck).filter { $0 != sparing }.max())
        let past = timespec(tv_sec: time(nil) - 60, tv_nsec: 0)
        var times = [past, past]
        #expect(utimensat(AT_FDCWD, deck + "/" + cardPath(touched), &times, 0) == 0)
        try scratch.gitChecked(["status", "--short"], in: deck)
        #expect(try Data(contentsOf: index) != before, "git status did not rewrite the index: the test's premise")
    }

    /// The card ids that have a file in `deck`'s working tree.
    static func workingCardIDs(_ deck: String) -> Set<String> {
        var ids: Set<String> = []
        let cards = deck + "/cards"
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: cards)) ?? [] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: cards + "/" + folder)) ?? []
            where name.hasSuffix(".json") {
                ids.insert(String(name.dropLast(5)))
            }
        }
        return ids
    }

    @Test("one commit behind, the index rewritten by git status: repair brings the card in, keeps a hand edit")
    func behindAfterGitStatus() throws {
        let scratch = try Scratch()
        let (remote, clones) = try scratch.remoteAndClones(["c"])
        let deck = clones[0]
        #expect(try scratch.cards(["edit", "6513", "--title", "Y"], in: deck).status == 0)
        #expect(try scratch.cards(["sync"], in: deck).status == 0)
        let added = try scratch.cards(["--deck", remote, "add", "--title", "X", "--url", "https://x.example"])
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(added.status == 0 && id.count == 36, "\(added.stderr)")
        try Self.fastForwardByGit(scratch, deck)
        try Self.rewriteIndexByGitStatus(scratch, deck, sparing: id)
        #expect(try scratch.git(["status", "--porcelain"], in: deck).stdout.contains("D  \(Self.cardPath(id))"))
        // A real hand edit beside it: content no commit has.
        let edited = try #require(try scratch.cardIDs(deck).filter { $0 != id && !$0.hasPrefix("6513") }.min())
        let editedFile = deck + "/" + Self.cardPath(edited)
        let original = try String(contentsOfFile: editedFile, encoding: .utf8)
        let handEdit = original.replacingOccurrences(of: "\"title\": \"", with: "\"title\": \"Hand ")
        #expect(handEdit != original, "the sample's card format changed: \(original)")
        try handEdit.write(toFile: editedFile, atomically: true, encoding: .utf8)
        let remoteBefore = try scratch.revParse(remote, "main")

        // Before the repair: status, commit and sync refuse and say what to run; nothing leaves.
        for arguments in [["status"], ["commit"], ["sync"]] {
            let refused = try scratch.cards(arguments, in: deck)
            #expect(refused.status == 1, "\(arguments): \(refused.stdout)")
            #expect(refused.stderr.contains("`cards fsck --repair`"), "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains(Self.cardPath(id)), "\(arguments): \(refused.stderr)")
        }
        #expect(try scratch.revParse(remote, "main") == remoteBefore)
        #expect(try scratch.cardIDs(deck).contains(id))
        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(fsck.status == 1 && fsck.stderr.contains("behind"), "\(fsck.stdout)\(fsck.stderr)")

        let repair = try scratch.cards(["fsck", "--repair"], in: deck)
        #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
        #expect(
            repair.stdout.contains("brought \(Self.cardPath(id)) up to date with main (behind it, not edited"),
            "\(repair.stdout)")
        #expect(repair.stdout.contains("kept the hand edit in \(Self.cardPath(edited))"), "\(repair.stdout)")
        #expect(repair.stdout.contains("1 hand edit not committed"), "\(repair.stdout)")
        #expect(FileManager.default.fileExists(atPath: deck + "/" + Self.cardPath(id)))
        #expect(try String(contentsOfFile: editedFile, encoding: .utf8) == handEdit)
        #expect(
            try scratch.git(["status", "--porcelain"], in: deck).stdout == " M \(Self.cardPath(edited))\n")

        // The sync commits the hand edit only; the remote keeps X.
        let sync = try scratch.cards(["sync"], in: deck)
        #expect(sync.status == 0, "\(sync.stdout)\(sync.stderr)")
        #expect(try scratch.cardIDs(remote).contains(id))
        #expect(try scratch.cardIDs(remote) == scratch.cardIDs(deck))
        #expect(try scratch.git(["show", "main:" + Self.cardPath(edited)], in: remote).stdout.contains("Hand "))
        try scratch.expectClean(deck)
    }

    @Test("a fresh clone two commits behind: repair brings both cards in, and sync deletes nothing")
    func freshCloneTwoBehind() throws {
        let scratch = try Scratch()
        let (remote, clones) = try scratch.remoteAndClones(["c"])
        let deck = clones[0]
        var ids: [String] = []
        for title in ["X1", "X2"] {
            let added = try scratch.cards(["--deck", remote, "add", "--title", title, "--url", "https://x.example"])
            #expect(added.status == 0, "\(added.stderr)")
            ids.append(added.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try Self.fastForwardByGit(scratch, deck)
        let remoteBefore = try scratch.revParse(remote, "main")
        let refused = try scratch.cards(["sync"], in: deck)
        #expect(refused.status == 1 && refused.stderr.contains("`cards fsck --repair`"), "\(refused.stderr)")
        #expect(try scratch.revParse(remote, "main") == remoteBefore, "nothing was pushed")

        let repair = try scratch.cards(["fsck", "--repair"], in: deck)
        #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
        for id in ids {
            #expect(repair.stdout.contains("brought \(Self.cardPath(id)) up to date with main"), "\(repair.stdout)")
        }
        #expect(!repair.stdout.contains("hand edit"), "\(repair.stdout)")
        #expect(try scratch.git(["status", "--porcelain"], in: deck).stdout.isEmpty)
        let sync = try scratch.cards(["sync"], in: deck)
        #expect(sync.status == 0, "\(sync.stdout)\(sync.stderr)")
        #expect(try scratch.cardIDs(remote).isSuperset(of: ids))
        try scratch.expectClean(deck)
    }

    @Test("a split index: writes refuse up front naming both ways out, and repair makes it plain")
    func splitIndex() throws {
        let scratch = try Scratch()
        let (remote, clones) = try scratch.remoteAndClones(["c"])
        let deck = clones[0]
        try scratch.gitChecked(["update-index", "--split-index"], in: deck)
        let before = try scratch.revParse(deck, "main")
        let edit = try scratch.cards(["edit", "6513", "--title", "Z"], in: deck)
        #expect(edit.status == 1, "\(edit.stdout)")
        #expect(
            edit.stderr.contains("split index") && edit.stderr.contains("`cards fsck --repair`")
                && edit.stderr.contains("`git update-index --no-split-index`"), "\(edit.stderr)")
        #expect(!FileManager.default.fileExists(atPath: deck + "/.git/cards-pending"))
        #expect(try scratch.revParse(deck, "main") == before)
        #expect(try scratch.git(["status", "--porcelain"], in: deck).stdout.isEmpty)
        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(fsck.status == 1 && fsck.stderr.contains("split index"), "\(fsck.stdout)\(fsck.stderr)")

        // Split and behind main at once: the repair does both.
        let added = try scratch.cards(["--deck", remote, "add", "--title", "X", "--url", "https://x.example"])
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try Self.fastForwardByGit(scratch, deck)
        try Self.rewriteIndexByGitStatus(scratch, deck, sparing: id)
        let repair = try scratch.cards(["fsck", "--repair"], in: deck)
        #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
        #expect(repair.stdout.contains("made the split index"), "\(repair.stdout)")
        #expect(repair.stdout.contains("brought \(Self.cardPath(id)) up to date"), "\(repair.stdout)")
        #expect(try scratch.cards(["edit", "6513", "--title", "Z"], in: deck).status == 0)
        #expect(try scratch.cards(["sync"], in: deck).status == 0)
        #expect(try scratch.cardIDs(remote).contains(id))
        try scratch.expectClean(deck)
    }

    @Test("random plain git and cards steps: no card main held is deleted by a repair or a sync")
    func randomGitAndCardsSteps() throws {
        let seed = TestSeeds.one("CARDS_BEHIND_SEED")
        print("BehindMainRepairTests.randomGitAndCardsSteps seed \(seed) (replay with CARDS_BEHIND_SEED=\(seed))")
        var random = SplitMix64(seed: seed)
        var tally = Tally()
        for round in 0..<Self.rounds {
            try Self.randomRound(seed: seed, round: round, &random, &tally)
        }
        print(
            "BehindMainRepairTests.randomGitAndCardsSteps seed \(seed): \(tally.repairsBroughtForward) repairs brought "
                + "files forward, \(tally.refusedSyncs) syncs refused, \(tally.syncs) syncs done")
        #expect(tally.syncs > 0)
    }

    /// Rounds of the random test, each with decks of its own, and steps per round (~25 s in all here).
    static let rounds = 5
    static let steps = 60

    /// What the random test saw happen, to show that it reached the cases it is about.
    struct Tally {
        var repairsBroughtForward = 0
        var refusedSyncs = 0
        var syncs = 0
    }

    static func randomRound(seed: UInt64, round: Int, _ random: inout SplitMix64, _ tally: inout Tally) throws {
        let scratch = try Scratch()
        let (remote, clones) = try scratch.remoteAndClones(["c", "other"])
        let (deck, other) = (clones[0], clones[1])
        // Every card any main held, and those a cards command deleted (here or on the other device).
        var seen = try scratch.cardIDs(deck)
        var deletedByCards: Set<String> = []
        var log: [String] = []
        func note(_ step: String) { log.append(step) }
        func context() -> String { "seed \(seed) round \(round), steps: \(log.joined(separator: "; "))" }
        func observe() throws {
            seen.formUnion(try scratch.cardIDs(deck))
            seen.formUnion(try scratch.cardIDs(remote))
        }
        for step in 0..<Self.steps {
            let present = try scratch.cardIDs(deck).sorted()
            switch Int.random(in: 0..<13, using: &random) {
            case 0:
                let result = try scratch.cards(
                    ["add", "--title", "Here \(step)", "--url", "https://h.example"], in: deck)
                note("add \(result.status)")
            case 1:
                guard let pick = present.randomElement(using: &random) else { continue }
                let result = try scratch.cards(["edit", pick, "--title", "Edited \(step)"], in: deck)
                note("edit \(pick.prefix(4)) \(result.status)")
            case 2:
                guard present.count > 4, let pick = present.randomElement(using: &random) else { continue }
                let result = try scratch.cards(["delete", pick], in: deck)
                if result.status == 0 { deletedByCards.insert(pick) }
                note("delete \(pick.prefix(4)) \(result.status)")
            case 3, 4:
                // Another device changes the remote.
                let theirs = try scratch.cardIDs(other).sorted()
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    try scratch.cards(["add", "--title", "There \(step)", "--url", "https://t.example"], in: other)
                case 1:
                    if let pick = theirs.randomElement(using: &random) {
                        try scratch.cards(["edit", pick, "--title", "Theirs \(step)"], in: other)
                    }
                default:
                    if theirs.count > 4, let pick = theirs.randomElement(using: &random),
                        try scratch.cards(["delete", pick], in: other).status == 0
                    {
                        deletedByCards.insert(pick)
                    }
                }
                let synced = try scratch.cards(["sync"], in: other)
                note("other+sync \(synced.status)")
            case 5, 6:
                // main fast-forwarded by plain git, the working tree and index left as they are.
                try scratch.gitChecked(["fetch", "-q", "origin"], in: deck)
                let ahead = try scratch.git(["merge-base", "--is-ancestor", "main", "origin/main"], in: deck)
                if ahead.status == 0 {
                    try scratch.gitChecked(["update-ref", "refs/heads/main", "refs/remotes/origin/main"], in: deck)
                }
                note("update-ref \(ahead.status)")
            case 7:
                try scratch.gitChecked(["status", "--short"], in: deck)
                note("git status")
            case 8:
                try scratch.gitChecked(["diff", "--stat"], in: deck)
                note("git diff")
            case 9:
                let parent = try scratch.git(["rev-parse", "-q", "--verify", "main~1"], in: deck)
                if parent.status == 0 { try scratch.gitChecked(["reset", "-q", "--soft", "main~1"], in: deck) }
                note("reset --soft \(parent.status)")
            case 10:
                let repair = try scratch.cards(["fsck", "--repair"], in: deck)
                note("repair \(repair.status)")
                if repair.stdout.contains("up to date with main") { tally.repairsBroughtForward += 1 }
                #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr) — \(context())")
                // Every card main holds has its file, but those a cards command deleted (a `git reset
                // --soft` past a delete leaves them deleted by hand).
                let missing = try scratch.cardIDs(deck).subtracting(Self.workingCardIDs(deck))
                    .subtracting(deletedByCards)
                #expect(missing.isEmpty, "repair left \(missing.sorted()) out of the working tree — \(context())")
            default:
                let before = try scratch.revParse(remote, "main")
                let sync = try scratch.cards(["sync"], in: deck)
                note("sync \(sync.status)")
                if sync.status != 0 {
                    tally.refusedSyncs += 1
                    #expect(sync.stderr.contains("`cards fsck --repair`"), "\(sync.stderr) — \(context())")
                    #expect(try scratch.revParse(remote, "main") == before, "a refused sync pushed — \(context())")
                } else {
                    tally.syncs += 1
                    let kept = seen.subtracting(deletedByCards)
                    let lost = kept.subtracting(try scratch.cardIDs(remote))
                    #expect(lost.isEmpty, "sync deleted \(lost.sorted()) on the remote — \(context())")
                }
            }
            try observe()
        }
        // Settle: repair, then sync both devices until quiet; every card kept is on the remote.
        #expect(try scratch.cards(["fsck", "--repair"], in: deck).status == 0, "\(context())")
        for device in [deck, other, deck] {
            let sync = try scratch.cards(["sync"], in: device)
            #expect(sync.status == 0, "\(sync.stdout)\(sync.stderr) — \(context())")
        }
        try observe()
        let lost = seen.subtracting(deletedByCards).subtracting(try scratch.cardIDs(remote))
        #expect(lost.isEmpty, "lost \(lost.sorted()) — \(context())")
        #expect(try scratch.cardIDs(remote) == scratch.cardIDs(deck), "\(context())")
        try scratch.expectClean(deck)
    }
}
