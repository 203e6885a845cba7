import Foundation
import TestSupport
import Testing

/// `cards sync --rebase` (and `pull.rebase`): a history without merge commits, for a remote that takes
/// none, as `git pull --rebase && git push` makes one.
@Suite("Sync --rebase: linear history")
struct SyncRebaseTests {
    /// A bare deck of the sample whose pre-receive hook refuses merge commits (GitHub's "require linear
    /// history", gitolite's merge check), and `cards clone`s of it.
    static func linearRemote(_ scratch: Scratch, _ names: [String]) throws -> (remote: String, clones: [String]) {
        let made = try scratch.remoteAndClones(names)
        let hook = made.remote + "/hooks/pre-receive"
        try """
        #!/bin/sh
        while read old new ref; do
          if [ -n "$(git rev-list --merges "$old..$new")" ]; then echo "merge commits are not allowed"; exit 1; fi
        done
        """.write(toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        return made
    }

    static func cardJSON(_ scratch: Scratch, _ deck: String) throws -> String {
        try scratch.cards(["export"], in: deck).stdout
    }

    @Test("two devices editing the same and different cards converge through a remote that takes no merges")
    func converge() throws {
        let scratch = try Scratch()
        let (remote, clones) = try Self.linearRemote(scratch, ["laptop", "phone"])
        let (laptop, phone) = (clones[0], clones[1])
        #expect(try scratch.git(["config", "pull.rebase", "true"], in: phone).status == 0)
        let ids = try scratch.cards(["list", "--json"], in: laptop).stdout
        let id = try #require(ids.split(separator: "\"").dropFirst().first(where: { $0.count == 36 }).map(String.init))
        #expect(try scratch.cards(["edit", id, "--title", "Laptop title"], in: laptop).status == 0)
        #expect(try scratch.cards(["add", "--title", "L1", "--url", "https://l1.example"], in: laptop).status == 0)
        #expect(try scratch.cards(["sync"], in: laptop).status == 0)
        #expect(try scratch.cards(["edit", id, "--color", "red"], in: phone).status == 0)
        #expect(try scratch.cards(["edit", id, "--title", "Phone title"], in: phone).status == 0)
        #expect(try scratch.cards(["add", "--title", "P1", "--url", "https://p1.example"], in: phone).status == 0)
        // pull.rebase true: the phone replays its three commits onto the laptop's.
        let synced = try scratch.cards(["sync"], in: phone)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains("Rebased main"), "\(synced.stdout)")
        // Said from the phone's side: its own card was added here, not "on theirs".
        #expect(synced.stdout.contains("\"P1\": added here"), "\(synced.stdout)")
        #expect(!synced.stdout.contains("theirs"), "\(synced.stdout)")
        // The replayed commit that recorded the title's conflict says so, as a merge commit would.
        let trailers = try scratch.git(["log", "-3", "--format=%(trailers:key=Card-Conflict,valueonly)"], in: phone)
        #expect(trailers.stdout.contains(id), "\(trailers.stdout)")
        #expect(try scratch.cards(["sync", "--rebase"], in: laptop).status == 0)
        #expect(try Self.cardJSON(scratch, laptop) == Self.cardJSON(scratch, phone))
        #expect(try scratch.git(["rev-list", "--merges", "main"], in: remote).stdout.isEmpty)
        let subjects = try scratch.git(["log", "--format=%s", "-5", "main"], in: remote).stdout
        #expect(subjects.hasPrefix("Add card \"P1\"\nEdit card \"Phone title\": title\nEdit card"), "\(subjects)")
        // Both fields kept: the laptop's title and the phone's colour; the title's other value recorded.
        let card = try scratch.cards(["show", id, "--json"], in: phone).stdout
        #expect(card.contains("\"color\": \"red\""), "\(card)")
        let conflicts = try scratch.cards(["conflicts"], in: phone).stdout
        #expect(conflicts.contains("Phone title") && conflicts.contains("Laptop title"), "\(conflicts)")
        for deck in [laptop, phone] { try scratch.expectClean(deck) }
        // The phone's authorship is kept on the replayed commits.
        #expect(try scratch.git(["log", "-1", "--format=%an", "main"], in: remote).stdout == "Test Person\n")
    }

    @Test("a merge push refused by a linear-history remote says to use --rebase; --rebase then gets through")
    func refusedMergeSaysRebase() throws {
        let scratch = try Scratch()
        let (remote, clones) = try Self.linearRemote(scratch, ["laptop", "phone"])
        let (laptop, phone) = (clones[0], clones[1])
        #expect(try scratch.cards(["add", "--title", "L", "--url", "https://l.example"], in: laptop).status == 0)
        #expect(try scratch.cards(["sync"], in: laptop).status == 0)
        #expect(try scratch.cards(["add", "--title", "P", "--url", "https://p.example"], in: phone).status == 0)
        let refused = try scratch.cards(["sync", "--no-rebase"], in: phone)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("merge commits are not allowed"), "\(refused.stderr)")
        #expect(refused.stderr.contains("cards sync --rebase"), "\(refused.stderr)")
        // The merge commit is the deck's now; --rebase replays the phone's own commit instead of pushing it.
        let rebased = try scratch.cards(["sync", "--rebase"], in: phone)
        #expect(rebased.status == 0, "\(rebased.stderr)")
        #expect(try scratch.git(["rev-list", "--merges", "main"], in: remote).stdout.isEmpty)
        #expect(try scratch.git(["rev-list", "--merges", "main"], in: phone).stdout.isEmpty)
        #expect(try scratch.cards(["sync"], in: laptop).status == 0)
        #expect(try Self.cardJSON(scratch, laptop) == Self.cardJSON(scratch, phone))
        try scratch.expectClean(phone)
    }

    @Test("a command that commits during the replay keeps its edit: main is not moved over it, the sync replays again")
    func commitDuringReplay() throws {
        let scratch = try Scratch()
        let (_, clones) = try Self.linearRemote(scratch, ["laptop", "phone"])
        let (laptop, phone) = (clones[0], clones[1])
        let ids = try scratch.cards(["list", "--json"], in: laptop).stdout
        let found = ids.split(separator: "\"").filter { $0.count == 36 }.map(String.init)
        let (x, y) = (try #require(found.first), try #require(found.dropFirst().first(where: { $0 != found[0] })))
        #expect(try scratch.cards(["edit", y, "--title", "Phone Y"], in: phone).status == 0)
        #expect(try scratch.cards(["sync"], in: phone).status == 0)
        #expect(try scratch.cards(["edit", x, "--title", "Laptop X"], in: laptop).status == 0)
        // A signing program that, the first time it signs, lets another cards command commit on main (as
        // a person's second terminal may while a pinentry waits), then signs.
        let marker = scratch.path("signed-once")
        let program = scratch.path("fake-gpg")
        try """
        #!/bin/sh
        if [ ! -e \(marker) ]; then
          touch \(marker)
          \(Binaries.cards) --deck \(laptop) edit \(y) --title Concurrent >/dev/null 2>&1 || exit 1
        fi
        cat >/dev/null
        echo "-----BEGIN PGP SIGNATURE-----"
        echo "fake"
        echo "-----END PGP SIGNATURE-----"
        echo "[GNUPG:] SIG_CREATED D 22 8 00 1 X" >&2
        """.write(toFile: program, atomically: true, encoding: .utf8)
        chmod(program, 0o755)
        for (name, value) in [("commit.gpgsign", "true"), ("gpg.program", program)] {
            #expect(try scratch.git(["config", name, value], in: laptop).status == 0)
        }
        let synced = try scratch.cards(["sync", "--rebase"], in: laptop)
        #expect(synced.status == 0, "\(synced.stdout)\(synced.stderr)")
        #expect(FileManager.default.fileExists(atPath: marker), "the concurrent command never ran")
        let shown = try scratch.cards(["show", y, "--json"], in: laptop).stdout
        #expect(shown.contains("Concurrent"), "the concurrent edit was lost: \(shown)")
        #expect(try scratch.cards(["show", x, "--json"], in: laptop).stdout.contains("Laptop X"))
        try scratch.expectClean(laptop)
    }

    @Test("git's own pull --rebase on a plain-git device and cards sync --rebase on another converge")
    func withPlainGit() throws {
        let scratch = try Scratch()
        let (remote, clones) = try Self.linearRemote(scratch, ["laptop"])
        let laptop = clones[0]
        let plain = scratch.path("plain")
        #expect(try scratch.git(["clone", "-q", remote, plain], in: scratch.root).status == 0)
        writeFileCloseOnExec(plain + "/notes.txt", "from plain git\n")
        #expect(try scratch.git(["add", "notes.txt"], in: plain).status == 0)
        #expect(try scratch.git(["commit", "-q", "-m", "notes"], in: plain).status == 0)
        #expect(try scratch.cards(["add", "--title", "L", "--url", "https://l.example"], in: laptop).status == 0)
        #expect(try scratch.cards(["sync"], in: laptop).status == 0)
        #expect(try scratch.git(["pull", "-q", "--rebase"], in: plain).status == 0)
        #expect(try scratch.git(["push", "-q"], in: plain).status == 0)
        #expect(try scratch.cards(["add", "--title", "M", "--url", "https://m.example"], in: laptop).status == 0)
        #expect(try scratch.git(["commit", "-q", "--allow-empty", "-m", "more"], in: plain).status == 0)
        #expect(try scratch.git(["push", "-q"], in: plain).status == 0)
        let synced = try scratch.cards(["sync", "--rebase"], in: laptop)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(FileManager.default.fileExists(atPath: laptop + "/notes.txt"))
        #expect(try scratch.git(["rev-list", "--merges", "main"], in: remote).stdout.isEmpty)
        #expect(try scratch.git(["pull", "-q", "--rebase"], in: plain).status == 0)
        #expect(
            try scratch.git(["rev-parse", "HEAD"], in: plain).stdout
                == scratch.git(["rev-parse", "main"], in: laptop).stdout)
        try scratch.expectClean(laptop)
    }
}
