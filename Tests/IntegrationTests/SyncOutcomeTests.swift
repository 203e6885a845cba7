import Foundation
import Testing

/// Each outcome of `cards sync` (the README's Syncing, steps 1–8), run as the built binary against real remotes.
@Suite("Sync outcomes")
struct SyncOutcomeTests {
    @Test("up to date: no commit, no push, remote unchanged")
    func upToDate() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.file)
        let deck = try scratch.clone(server, "deck")
        let remoteBefore = try server.main(scratch)
        let before = try scratch.fingerprint(deck)
        let result = try scratch.sync(deck)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Up to date with origin (\(remoteBefore.prefix(7))).\n")
        #expect(try scratch.fingerprint(deck) == before)
        #expect(try server.main(scratch) == remoteBefore)
    }

    @Test("behind: fast-forward (main, working tree and index follow); ahead: push")
    func fastForwardAndPush() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let a = try scratch.clone(server, "a")
        let b = try scratch.clone(server, "b")
        let old = try server.main(scratch)
        try scratch.addCard(a, "One")
        try scratch.addCard(a, "Two")
        let ahead = try scratch.main(a)
        let push = try scratch.sync(a)
        #expect(push.status == 0, "\(push.stderr)")
        #expect(
            push.stdout.contains("Pushed main \(old.prefix(7))..\(ahead.prefix(7)) to origin (2 cards changed)."),
            "\(push.stdout)")
        #expect(push.stdout.contains("Deck and origin are equal at \(ahead.prefix(7))."))
        #expect(try server.main(scratch) == ahead)
        // No extra commit was made by the push.
        #expect(try scratch.main(a) == ahead)
        let pull = try scratch.sync(b)
        #expect(pull.status == 0, "\(pull.stderr)")
        #expect(
            pull.stdout.contains(
                "Fast-forwarded main \(old.prefix(7))..\(ahead.prefix(7)) from origin/main (2 cards changed)."))
        #expect(try scratch.git(["rev-parse", "refs/remotes/origin/main"], in: b).stdout.hasPrefix(ahead))
        try scratch.expectConverged([a, b], server)
    }

    @Test("diverged: merge, then push")
    func divergedMerges() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let a = try scratch.clone(server, "a")
        let b = try scratch.clone(server, "b")
        try scratch.addCard(a, "From A")
        try scratch.addCard(b, "From B")
        #expect(try scratch.sync(a).status == 0)
        let theirs = try server.main(scratch)
        let ours = try scratch.main(b)
        let merged = try scratch.sync(b)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(
            merged.stdout.contains("Merged origin/main \(theirs.prefix(7)) into main \(ours.prefix(7))"),
            "\(merged.stdout)")
        #expect(merged.stdout.contains("Pushed the merge"))
        let parents = try scratch.git(["log", "-1", "--format=%P", "main"], in: b).stdout.split(separator: " ").count
        #expect(parents == 2)
        #expect(try scratch.sync(a).status == 0)
        try scratch.expectConverged([a, b], server)
        // The report: cards by title (whichever title won), other files under the merge, then the push.
        let ids = try scratch.cardIDs(a).sorted()
        for (index, id) in ids.prefix(6).enumerated() {
            #expect(try scratch.cards(["edit", id, "--color", "#123456"], in: a).status == 0)
            #expect(try scratch.cards(["edit", id, "--title", "Card \(5 - index) from B"], in: b).status == 0)
        }
        try "{\"format\": 1, \"name\": \"A\"}\n".write(toFile: a + "/deck.json", atomically: true, encoding: .utf8)
        try "{\"format\": 1, \"name\": \"B\"}\n".write(toFile: b + "/deck.json", atomically: true, encoding: .utf8)
        // B's titles reach the server first: A's report names each card by B's title, which wins.
        #expect(try scratch.sync(b).status == 0)
        let report = try scratch.sync(a)
        #expect(report.status == 0, "\(report.stderr)")
        let lines = report.stdout.split(separator: "\n").map(String.init)
        let cards = lines.filter { $0.hasPrefix("  \"Card ") }
        #expect(cards.count == 6 && cards == cards.sorted(), "\(report.stdout)")
        #expect(cards.first?.hasPrefix("  \"Card 0 from B\": ") == true, "\(report.stdout)")
        #expect(cards.allSatisfy { $0.hasSuffix(": title from theirs; color from ours") }, "\(report.stdout)")
        let note = lines.firstIndex { $0.hasPrefix("  deck.json: changed on both sides") } ?? lines.count
        let pushed = lines.firstIndex { $0.hasPrefix("Pushed the merge") } ?? -1
        #expect(note < pushed, "\(report.stdout)")
    }

    @Test(
        "files under cards/ that are no card files: a merge that brings them in (kept as they came; a folder where this deck has the card file of that name: not taken), and one that sends them out, names each and exits 1"
    )
    func mergedFilesThatAreNoCards() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let a = try scratch.clone(server, "a")
        // Pushed by plain git from a clone of its own.
        let plain = scratch.path("plain")
        #expect(try scratch.git(["clone", "-q", server.repository, plain], in: scratch.root).status == 0)
        func commitAndPush(_ message: String) throws {
            #expect(try scratch.git(["add", "-A"], in: plain).status == 0)
            let commit = try scratch.git(
                ["-c", "user.name=P", "-c", "user.email=p@example.org", "commit", "-qm", message], in: plain)
            #expect(commit.status == 0)
            #expect(try scratch.git(["push", "-q", "origin", "main"], in: plain).status == 0)
        }
        let folder = "cards/ab/abababab-abab-4bab-8bab-abababababab.json"
        let odd = ["cards/zz/notanid.json", "cards/README.json", folder]
        try FileManager.default.createDirectory(atPath: "\(plain)/\(folder)", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(plain)/cards/zz", withIntermediateDirectories: true)
        try "{}\n".write(toFile: "\(plain)/cards/zz/notanid.json", atomically: true, encoding: .utf8)
        try "{}\n".write(toFile: "\(plain)/cards/README.json", atomically: true, encoding: .utf8)
        try "x\n".write(toFile: "\(plain)/\(folder)/x", atomically: true, encoding: .utf8)
        try commitAndPush("odd")
        // Coming in through a merge (a has a change of its own).
        try scratch.addCard(a, "Local")
        let merged = try scratch.sync(a)
        #expect(merged.stdout.contains("Merged origin/main"), "\(merged.stdout)")
        #expect(merged.status == 1, "\(merged.stdout)\(merged.stderr)")
        for path in odd {
            #expect(merged.stdout.contains("\(path), origin/main's version, is not a valid card"), "\(path)")
        }
        #expect(merged.stderr.contains("3 card files that are not a valid card"), "\(merged.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(a)/\(folder)/x"))
        let log = try scratch.git(["log", "-1", "--format=%B", "main"], in: a).stdout
        for path in odd { #expect(log.contains("Card-Invalid: \(path) kept as it came"), "\(log)") }
        // Going out through a merge, to a remote that moved apart.
        let other = scratch.path("other.git")
        #expect(try scratch.git(["init", "-q", "--bare", "-b", "main", other], in: scratch.root).status == 0)
        #expect(try scratch.git(["push", "-q", other, "main~2:refs/heads/main"], in: a).status == 0)
        let b = scratch.path("b")
        #expect(try scratch.cards(["clone", other, b]).status == 0)
        try scratch.addCard(b, "Other")
        #expect(try scratch.sync(b).status == 0)
        #expect(try scratch.cards(["remote", "add", "other", other], in: a).status == 0)
        let out = try scratch.sync(a, ["other"])
        #expect(out.stdout.contains("Merged other/main"), "\(out.stdout)")
        #expect(out.status == 1, "\(out.stdout)\(out.stderr)")
        for path in odd { #expect(out.stdout.contains("\(path) is not a valid card"), "\(path): \(out.stdout)") }
        // A card of a's replaced by a folder of that name: the deletion comes in; the folder is not taken
        // (a's card file would have to give way to it), and is named.
        #expect(try scratch.git(["pull", "-q", "--no-rebase", "origin", "main"], in: plain).status == 0)
        // A card both have (a's merge with other/main brought in cards origin has not got yet).
        let shared = try scratch.cardIDs(a).intersection(try scratch.cardIDs(plain)).filter { $0.count == 36 }
        let card = try #require(shared.sorted().first)
        let cardPath = "cards/\(card.prefix(2))/\(card).json"
        #expect(try scratch.git(["rm", "-q", cardPath], in: plain).status == 0)
        try FileManager.default.createDirectory(atPath: "\(plain)/\(cardPath)", withIntermediateDirectories: true)
        try "y\n".write(toFile: "\(plain)/\(cardPath)/y", atomically: true, encoding: .utf8)
        try commitAndPush("folder")
        let replaced = try scratch.sync(a)
        #expect(
            replaced.stdout.contains(
                "\(cardPath)/y: not taken from origin/main: inside a folder where this deck's card file"),
            "\(replaced.stdout)\(replaced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(a)/\(cardPath)"))
        #expect(!(try scratch.cardIDs(a).contains(card)))
    }

    @Test("an empty remote is pushed to; a remote that is not a deck is refused and nothing changes")
    func emptyAndNotADeck() throws {
        let scratch = try Scratch.forSync()
        let empty = try scratch.server(.path, seed: false, name: "empty")
        let deck = try scratch.sampleDeck()
        #expect(try scratch.cards(["remote", "add", "origin", empty.url], in: deck).status == 0)
        let pushed = try scratch.sync(deck)
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(
            pushed.stdout.hasPrefix(
                "Pushed main \(try scratch.main(deck).prefix(7)) to the empty remote origin (16 cards)."))
        #expect(try empty.main(scratch) == scratch.main(deck))

        // A plain git repository (no deck.json) as a remote.
        let plain = try scratch.server(.path, seed: false, name: "plain")
        let work = scratch.path("plain-work")
        #expect(try scratch.git(["init", "-q", "-b", "main", work], in: scratch.root).status == 0)
        try "hello\n".write(toFile: work + "/README", atomically: true, encoding: .utf8)
        #expect(try scratch.git(["add", "README"], in: work).status == 0)
        #expect(try scratch.git(["commit", "-q", "-m", "readme"], in: work).status == 0)
        #expect(try scratch.git(["push", "-q", plain.repository, "main"], in: work).status == 0)
        #expect(try scratch.cards(["remote", "add", "plain", plain.url], in: deck).status == 0)
        // The remote `cards sync` uses is main's upstream (for a plain `git pull`): origin, kept when
        // another is added, and the one left when origin is removed.
        #expect(try scratch.git(["config", "branch.main.remote"], in: deck).stdout == "origin\n")
        #expect(try scratch.git(["config", "branch.main.merge"], in: deck).stdout == "refs/heads/main\n")

        let before = try scratch.fingerprint(deck)
        let plainMain = try plain.main(scratch)
        let refused = try scratch.sync(deck, ["plain"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("Error: plain (\(plain.url)) is not a deck"), "\(refused.stderr)")
        #expect(try scratch.fingerprint(deck) == before)
        #expect(try plain.main(scratch) == plainMain)
        // Cloning it is refused too, leaving nothing behind.
        let clone = try scratch.cards(["clone", plain.url, scratch.path("cloned")])
        #expect(clone.status == 1)
        #expect(clone.stderr.contains("not a deck"), "\(clone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("cloned")))
        // And so is cloning an empty remote.
        let emptyClone = try scratch.cards([
            "clone", try scratch.server(.file, seed: false, name: "empty2").url, scratch.path("e"),
        ])
        #expect(
            emptyClone.status == 1 && emptyClone.stderr.contains("has no branch main, nor one its HEAD names: it is empty or not a deck"),
            "\(emptyClone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("e")))
        // origin removed: the remote left, the one `cards sync` now uses, is main's upstream.
        #expect(try scratch.cards(["remote", "remove", "origin"], in: deck).status == 0)
        #expect(try scratch.git(["config", "branch.main.remote"], in: deck).stdout == "plain\n")
        // origin added again takes it; an upstream the user then chose stays through other remotes' comings and goings.
        #expect(try scratch.cards(["remote", "add", "origin", empty.url], in: deck).status == 0)
        #expect(try scratch.git(["config", "branch.main.remote"], in: deck).stdout == "origin\n")
        try scratch.git(["config", "branch.main.remote", "plain"], in: deck)
        #expect(try scratch.cards(["remote", "add", "backup", empty.url], in: deck).status == 0)
        #expect(try scratch.cards(["remote", "remove", "backup"], in: deck).status == 0)
        #expect(try scratch.git(["config", "branch.main.remote"], in: deck).stdout == "plain\n")
    }

    @Test(
        "an unreachable remote fails with exit 1, a clear message, and the deck unchanged",
        arguments: ["git", "http", "ssh"])
    func unreachable(_ scheme: String) throws {
        let scratch = try Scratch.forSync()
        let port = try GitServer.freePort()
        let deck = try scratch.sampleDeck()
        try scratch.addCard(deck, "Not yet pushed")
        let url = "\(scheme)://127.0.0.1:\(port)/deck.git"
        #expect(try scratch.cards(["remote", "add", "origin", url], in: deck).status == 0)
        let before = try scratch.fingerprint(deck)
        let result = try scratch.sync(deck)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: fetching from origin (\(url)) failed"), "\(result.stderr)")
        #expect(result.stderr.contains("127.0.0.1") && result.stderr.contains("try again"))
        #expect(try scratch.fingerprint(deck) == before)
        let clone = try scratch.cards(["clone", url, scratch.path("c")])
        #expect(clone.status == 1 && clone.stderr.contains("cloning from origin (\(url)) failed"), "\(clone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("c")))
    }

    @Test("ssh with a wrong key fails once (no loop), exit 1, deck unchanged")
    func wrongSSHKey() throws {
        let scratch = try Scratch.forSync()
        // libgit2's own credentials and host-key checks (CARDS_SSH_KEY, $HOME/.ssh/known_hosts, CARDS_HTTP_*);
        // through git, OpenSSH's and git's (RealServerSSHTests, RealServerHTTPTests).
        scratch.environment["CARDS_TRANSPORT"] = "libgit2"
        let server = try scratch.server(.ssh)
        let deck = try scratch.clone(server, "deck")
        try scratch.addCard(deck, "Waiting to be pushed")
        let wrong = scratch.path("wrongkey")
        #expect(try scratch.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", wrong]).status == 0)
        let before = try scratch.fingerprint(deck)
        let remoteBefore = try server.main(scratch)
        let started = Date()
        let result = try scratch.sync(deck, extraEnvironment: ["CARDS_SSH_KEY": wrong])
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: fetching from origin"), "\(result.stderr)")
        #expect(
            result.stderr.contains("ssh authentication to 127.0.0.1 as") && result.stderr.contains(wrong),
            "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try scratch.fingerprint(deck) == before)
        #expect(try server.main(scratch) == remoteBefore)
        // A key file that is not there is named as such.
        let missing = try scratch.sync(deck, extraEnvironment: ["CARDS_SSH_KEY": scratch.path("nokey")])
        #expect(missing.status == 1 && missing.stderr.contains("cannot read the ssh key"), "\(missing.stderr)")
        // The right key then works.
        #expect(try scratch.sync(deck).status == 0)
        #expect(try server.main(scratch) == scratch.main(deck))
    }

    @Test("an unknown or changed ssh host key is refused, naming the host and how to add it")
    func unknownHostKey() throws {
        let scratch = try Scratch.forSync()
        // libgit2's own credentials and host-key checks (CARDS_SSH_KEY, $HOME/.ssh/known_hosts, CARDS_HTTP_*);
        // through git, OpenSSH's and git's (RealServerSSHTests, RealServerHTTPTests).
        scratch.environment["CARDS_TRANSPORT"] = "libgit2"
        let server = try scratch.server(.ssh)
        let deck = try scratch.clone(server, "deck")
        let port = try #require(server.url.split(separator: ":").last?.split(separator: "/").first)
        // A HOME without known_hosts: clone and sync are refused.
        let stranger = scratch.path("stranger")
        try FileManager.default.createDirectory(atPath: stranger, withIntermediateDirectories: true)
        let clone = try scratch.cards(["clone", server.url, scratch.path("c")], extraEnvironment: ["HOME": stranger])
        #expect(clone.status == 1)
        #expect(clone.stderr.contains("unknown ssh host [127.0.0.1]:\(port)"), "\(clone.stderr)")
        #expect(clone.stderr.contains("ssh-keyscan -p \(port) 127.0.0.1 >> ~/.ssh/known_hosts"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("c")))
        let before = try scratch.fingerprint(deck)
        let sync = try scratch.sync(deck, extraEnvironment: ["HOME": stranger])
        #expect(sync.status == 1 && sync.stderr.contains("unknown ssh host [127.0.0.1]:\(port)"), "\(sync.stderr)")
        // A known_hosts line with another key for this host: refused as a changed key.
        let impostor = scratch.path("impostor")
        #expect(try scratch.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", impostor]).status == 0)
        let otherKey = try String(contentsOfFile: impostor + ".pub", encoding: .utf8).split(separator: " ").prefix(2)
            .joined(separator: " ")
        try FileManager.default.createDirectory(atPath: stranger + "/.ssh", withIntermediateDirectories: true)
        try "[127.0.0.1]:\(port) \(otherKey)\n".write(
            toFile: stranger + "/.ssh/known_hosts", atomically: true, encoding: .utf8)
        let changed = try scratch.sync(deck, extraEnvironment: ["HOME": stranger])
        #expect(changed.status == 1 && changed.stderr.contains("does not match"), "\(changed.stderr)")
        #expect(changed.stderr.contains("ssh-keygen -R '[127.0.0.1]:\(port)'"))
        #expect(try scratch.fingerprint(deck) == before)
        // A hashed known_hosts line (HashKnownHosts yes) for the right key is accepted.
        let hostKey = try String(contentsOfFile: scratch.home + "/.ssh/known_hosts", encoding: .utf8)
        try hostKey.write(toFile: stranger + "/.ssh/known_hosts", atomically: true, encoding: .utf8)
        #expect(try scratch.run("/usr/bin/ssh-keygen", ["-H", "-f", stranger + "/.ssh/known_hosts"]).status == 0)
        #expect(try String(contentsOfFile: stranger + "/.ssh/known_hosts", encoding: .utf8).hasPrefix("|1|"))
        let hashed = try scratch.sync(deck, extraEnvironment: ["HOME": stranger])
        #expect(hashed.status == 0, "\(hashed.stderr)")
    }

    @Test("http login: missing or wrong token fails once with a clear message; the right one works")
    func httpLogin() throws {
        let scratch = try Scratch.forSync()
        // libgit2's own credentials and host-key checks (CARDS_SSH_KEY, $HOME/.ssh/known_hosts, CARDS_HTTP_*);
        // through git, OpenSSH's and git's (RealServerSSHTests, RealServerHTTPTests).
        scratch.environment["CARDS_TRANSPORT"] = "libgit2"
        let server = try scratch.server(.http, httpLogin: "alice:s3cret")
        let none = try scratch.cards(["clone", server.url, scratch.path("n")])
        #expect(none.status == 1 && none.stderr.contains("set CARDS_HTTP_USER and CARDS_HTTP_TOKEN"), "\(none.stderr)")
        let started = Date()
        let wrong = try scratch.cards(
            ["clone", server.url, scratch.path("w")],
            extraEnvironment: ["CARDS_HTTP_USER": "alice", "CARDS_HTTP_TOKEN": "nope"])
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(wrong.status == 1 && wrong.stderr.contains("refused the user and token"), "\(wrong.stderr)")
        let good = try scratch.cards(
            ["clone", server.url, scratch.path("g")],
            extraEnvironment: ["CARDS_HTTP_USER": "alice", "CARDS_HTTP_TOKEN": "s3cret"])
        #expect(good.status == 0, "\(good.stderr)")
        // user:token in the URL works too, and is never printed.
        let inURL = server.url.replacingOccurrences(of: "http://", with: "http://alice:s3cret@")
        let deck = try scratch.sampleDeck("own")
        #expect(try scratch.cards(["remote", "add", "web", inURL], in: deck).status == 0)
        let list = try scratch.cards(["remote", "list"], in: deck)
        #expect(list.stdout.contains("alice:***@") && !list.stdout.contains("s3cret"), "\(list.stdout)")
        // A wrong token in the URL is said to be refused, not asked for again.
        let wrongInURL = server.url.replacingOccurrences(of: "http://", with: "http://alice:nope@")
        let refused = try scratch.cards(["clone", wrongInURL, scratch.path("u")])
        #expect(
            refused.status == 1 && refused.stderr.contains("refused the user and token in the URL (alice)")
                && !refused.stderr.contains("nope"),
            "\(refused.stderr)")
        let fetched = try scratch.sync(
            scratch.path("g"), ["--dry-run"],
            extraEnvironment: ["CARDS_HTTP_USER": "alice", "CARDS_HTTP_TOKEN": "s3cret"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
    }

    @Test("hand edits are committed before the sync; an invalid card file stops it before anything is sent or any ref moves")
    func handEdits() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.file)
        let deck = try scratch.clone(server, "deck")
        let id = try scratch.addCard(deck, "To edit by hand")
        let file = deck + "/cards/\(id.prefix(2))/\(id).json"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try text.replacingOccurrences(of: "To edit by hand", with: "Edited by hand").write(
            toFile: file, atomically: true, encoding: .utf8)
        let result = try scratch.sync(deck)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Committed 1 hand edit ("), "\(result.stdout)")
        #expect(
            try scratch.git(["show", "main:cards/\(id.prefix(2))/\(id).json"], in: server.repository).stdout.contains(
                "Edited by hand"))
        try scratch.expectConverged([deck], server)

        // An invalid file: named, with the reason, and nothing fetched or pushed (the remote is unreachable
        // on purpose: the error is about the file, not the network).
        try "{ not json".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(
            try scratch.cards(
                ["remote", "add", "nowhere", "git://127.0.0.1:\(try GitServer.freePort())/x.git"], in: deck
            ).status == 0)
        let before = try scratch.fingerprint(deck)
        let refused = try scratch.sync(deck, ["nowhere"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not syncing (nothing was sent or fetched)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("cards/\(id.prefix(2))/\(id).json: "))
        #expect(try scratch.fingerprint(deck) == before)
    }

    @Test(
        "the first fetch runs while the hand edits are looked for: an invalid card file then stops it, and no ref moved (the tracking ref as before, no temporary fetch ref left); valid edits and the remote's change both arrive"
    )
    func fetchBesideHandEdits() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.file)
        let deck = try scratch.clone(server, "deck")
        let other = try scratch.clone(server, "other")
        let theirs = try scratch.addCard(other, "From the other device")
        #expect(try scratch.sync(other).status == 0)
        let id = try scratch.addCard(deck, "To edit by hand")
        #expect(try scratch.sync(deck).status == 0)
        #expect(try scratch.sync(other).status == 0)
        _ = try scratch.addCard(other, "Fetched while looking")
        #expect(try scratch.sync(other).status == 0)
        let file = deck + "/cards/\(id.prefix(2))/\(id).json"
        let valid = try String(contentsOfFile: file, encoding: .utf8)
        try "{ not json".write(toFile: file, atomically: true, encoding: .utf8)
        let tracking = try scratch.git(["rev-parse", "refs/remotes/origin/main"], in: deck).stdout
        let before = try scratch.fingerprint(deck)
        let refused = try scratch.sync(deck)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not syncing (nothing was sent or fetched)"), "\(refused.stderr)")
        #expect(try scratch.git(["rev-parse", "refs/remotes/origin/main"], in: deck).stdout == tracking)
        #expect(try scratch.git(["for-each-ref", "refs/cards/"], in: deck).stdout.isEmpty)
        #expect(try scratch.fingerprint(deck) == before)
        // Mended by hand: the edit is committed, the other device's card comes in, both go out.
        try valid.replacingOccurrences(of: "To edit by hand", with: "Edited by hand").write(
            toFile: file, atomically: true, encoding: .utf8)
        let synced = try scratch.sync(deck)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.hasPrefix("Committed 1 hand edit ("), "\(synced.stdout)")
        #expect(try scratch.git(["for-each-ref", "refs/cards/"], in: deck).stdout.isEmpty)
        let shown = try scratch.git(["show", "main:cards/\(id.prefix(2))/\(id).json"], in: server.repository).stdout
        #expect(shown.contains("Edited by hand"))
        #expect(try scratch.cards(["show", theirs], in: deck).status == 0)
        try scratch.expectConverged([deck], server)
    }

    @Test("mass-delete guard: refuses more than half (and more than 10); --allow-mass-delete passes")
    func massDelete() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let deck = try scratch.clone(server, "deck")
        let ids = try scratch.cardFiles(deck).keys.map { String($0.split(separator: "/").last!.dropLast(5)) }.sorted()
        #expect(ids.count == 16)
        // 10 deletions is not more than 10: allowed.
        #expect(try scratch.cards(["delete"] + ids.prefix(10), in: deck).status == 0)
        #expect(try scratch.sync(deck).status == 0)
        // Refill to 16 on the remote, then delete 12 of 16: refused.
        for index in 0..<10 { try scratch.addCard(deck, "Refill \(index)") }
        #expect(try scratch.sync(deck).status == 0)
        let all = try scratch.cardFiles(deck).keys.map { String($0.split(separator: "/").last!.dropLast(5)) }.sorted()
        #expect(all.count == 16)
        #expect(try scratch.cards(["delete"] + all.prefix(12), in: deck).status == 0)
        let remoteBefore = try server.main(scratch)
        let before = try scratch.fingerprint(deck)
        let dry = try scratch.sync(deck, ["--dry-run"])
        #expect(dry.status == 1)
        #expect(
            dry.stdout.contains("The push would be refused: it deletes 12 of the 16 cards on origin"), "\(dry.stdout)")
        let refused = try scratch.sync(deck)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("not pushing: it would delete 12 of the 16 cards on origin"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--allow-mass-delete"))
        #expect(try server.main(scratch) == remoteBefore)
        #expect(try scratch.fingerprint(deck) == before)
        let allowed = try scratch.sync(deck, ["--allow-mass-delete"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        try scratch.expectConverged([deck], server)
        #expect(try scratch.cardFiles(deck).count == 4)
    }

    @Test("--dry-run changes nothing, and its plan is what the real sync then does")
    func dryRun() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.file)
        let a = try scratch.clone(server, "a")
        let b = try scratch.clone(server, "b")
        try scratch.addCard(a, "Planned")
        // Ahead: plan "push", then the push.
        let remoteBefore = try server.main(scratch)
        let before = try scratch.fingerprint(a)
        let plan = try scratch.sync(a, ["--dry-run"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(try scratch.fingerprint(a) == before)
        #expect(try server.main(scratch) == remoteBefore)
        let real = try scratch.sync(a)
        #expect(Self.steps(plan.stdout) == Self.steps(real.stdout), "plan:\n\(plan.stdout)\nreal:\n\(real.stdout)")
        #expect(Self.steps(real.stdout).first?.hasPrefix("push main") == true)
        // Behind: plan "fast-forward", then the fast-forward.
        let bBefore = try scratch.fingerprint(b)
        let plan2 = try scratch.sync(b, ["--dry-run"])
        #expect(
            plan2.status == 0 && plan2.stdout.hasSuffix("Dry run: nothing changed except refs/remotes/origin/main.\n"))
        #expect(try scratch.fingerprint(b) == bBefore)
        let real2 = try scratch.sync(b)
        #expect(Self.steps(plan2.stdout) == Self.steps(real2.stdout), "plan:\n\(plan2.stdout)\nreal:\n\(real2.stdout)")
        #expect(Self.steps(real2.stdout).first?.hasPrefix("fast-forward main") == true)

        // Diverged: the per-card decisions of the plan are those of the merge.
        try scratch.addCard(a, "A side")
        try scratch.addCard(b, "B side")
        #expect(try scratch.sync(a).status == 0)
        let before3 = try scratch.fingerprint(b)
        let remote3 = try server.main(scratch)
        let plan3 = try scratch.sync(b, ["--dry-run"])
        #expect(plan3.status == 0, "\(plan3.stderr)")
        #expect(try scratch.fingerprint(b) == before3)
        #expect(try server.main(scratch) == remote3)
        let real3 = try scratch.sync(b)
        #expect(real3.status == 0, "\(real3.stderr)")
        #expect(
            Self.steps(plan3.stdout) == Self.steps(real3.stdout), "plan:\n\(plan3.stdout)\nreal:\n\(real3.stdout)")
    }

    /// The plan's lines without the tense: "Would push main x..y" and "Pushed main x..y" both become "push main x..y".
    static func steps(_ output: String) -> [String] {
        let rewrites = [
            ("Would fast-forward ", "fast-forward "), ("Fast-forwarded ", "fast-forward "),
            ("Would push the merge to ", "push merge "),
            ("Would push ", "push "), ("Pushed the merge ", "push merge "), ("Pushed ", "push "),
            ("Would merge ", "merge "),
            ("Merged ", "merge "),
        ]
        var result: [String] = []
        for line in output.split(separator: "\n").map(String.init) {
            if line.hasPrefix("Dry run:") || line.hasPrefix("Deck and ") { continue }
            var text = line
            for (from, to) in rewrites where text.hasPrefix(from) {
                text = to + text.dropFirst(from.count)
                break
            }
            // "push merge <id> to origin." and "push merge to origin." name the same step.
            if text.hasPrefix("push merge ") { text = "push merge" }
            result.append(text)
        }
        return result
    }
}
