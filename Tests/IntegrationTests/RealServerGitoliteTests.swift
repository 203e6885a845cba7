import Foundation
import Testing

/// gitolite3 over OpenSSH, set up as its documentation says (`GitoliteServer`): users log in with a key
/// each through a Host alias, gitolite's rules decide who reads and who writes which branch (issue 22).
@Suite("gitolite over OpenSSH")
struct RealServerGitoliteTests {
    /// alice and bob may write, dave any branch but main, carol only read.
    static let rules = """
        repo cards
            RW+         =   alice
            -   main    =   dave
            RW          =   dave bob
            R           =   carol

        repo linear
            RW+                     =   alice bob
            -   VREF/MERGE-CHECK    =   alice bob
        """

    /// A gitolite server with the rules above, and alice's deck pushed to `cards` (the empty repository
    /// gitolite made for the rule, whose HEAD names a `master` that does not exist).
    static func serverWithAlicesDeck(_ scratch: Scratch) throws -> (GitoliteServer, alice: String) {
        let server = try GitoliteServer.start(in: scratch, users: ["alice", "bob", "carol", "dave"], rules: rules)
        let alice = scratch.path("alice")
        #expect(try scratch.cards(["init", alice]).status == 0)
        _ = try scratch.addCard(alice, "From Alice")
        #expect(try scratch.cards(["remote", "add", "origin", server.url("alice", "cards")], in: alice).status == 0)
        let pushed = try scratch.sync(alice)
        #expect(pushed.status == 0 && pushed.stdout.contains("Pushed main"), "\(pushed.stdout)\(pushed.stderr)")
        return (server, alice)
    }

    /// How many times `user` asked gitolite to push (its log has a line for each ssh command).
    static func pushAttempts(_ server: GitoliteServer, _ user: String) throws -> Int {
        let logs = server.home + "/.gitolite/logs"
        return try FileManager.default.contentsOfDirectory(atPath: logs).reduce(0) { count, name in
            let text = try String(contentsOfFile: "\(logs)/\(name)", encoding: .utf8)
            return count
                + text.split(separator: "\n").filter { $0.contains("ARGV=\(user)\tSOC=git-receive-pack") }.count
        }
    }

    @Test("a deck pushed to the repository gitolite made, cloned by another user, synced both ways")
    func syncBothWays() throws {
        let scratch = try Scratch.forSync()
        let (server, alice) = try Self.serverWithAlicesDeck(scratch)
        let bob = scratch.path("bob")
        let cloned = try scratch.cards(["clone", server.url("bob", "cards"), bob])
        #expect(cloned.status == 0, "\(cloned.stderr)")
        _ = try scratch.addCard(bob, "From Bob")
        #expect(try scratch.sync(bob).status == 0)
        let pulled = try scratch.sync(alice)
        #expect(pulled.status == 0 && pulled.stdout.contains("Fast-forwarded"), "\(pulled.stdout)\(pulled.stderr)")
        _ = try scratch.addCard(alice, "Second from Alice")
        _ = try scratch.addCard(bob, "Second from Bob")
        #expect(try scratch.sync(alice).status == 0)
        let merged = try scratch.sync(bob)
        #expect(merged.status == 0 && merged.stdout.contains("Merged origin/main"), "\(merged.stdout)\(merged.stderr)")
        #expect(try scratch.sync(alice).status == 0)
        let served = try scratch.git(["--git-dir", server.repository("cards"), "rev-parse", "main"], in: scratch.root)
        for deck in [alice, bob] {
            let tip = try scratch.git(["rev-parse", "main"], in: deck)
            #expect(tip.stdout == served.stdout, "\(deck) is at \(tip.stdout), gitolite's cards at \(served.stdout)")
        }
        let listed = try scratch.cards(["list"], in: alice).stdout
        for title in ["From Alice", "From Bob", "Second from Alice", "Second from Bob"] {
            #expect(listed.contains(title), "\(listed)")
        }
    }

    @Test("gitolite's VREF/MERGE-CHECK refuses a sync's merge, which says to rebase; sync --rebase gets through")
    func mergeCheck() throws {
        let scratch = try Scratch.forSync()
        let server = try GitoliteServer.start(in: scratch, users: ["alice", "bob"], rules: Self.rules)
        let alice = scratch.path("alice")
        #expect(try scratch.cards(["init", alice]).status == 0)
        #expect(try scratch.cards(["remote", "add", "origin", server.url("alice", "linear")], in: alice).status == 0)
        #expect(try scratch.sync(alice).status == 0)
        let bob = scratch.path("bob")
        #expect(try scratch.cards(["clone", server.url("bob", "linear"), bob]).status == 0)
        _ = try scratch.addCard(alice, "From Alice")
        #expect(try scratch.sync(alice).status == 0)
        _ = try scratch.addCard(bob, "From Bob")
        let refused = try scratch.sync(bob)
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("merge commits not allowed"), "\(refused.stderr)")
        #expect(refused.stderr.contains("cards sync --rebase"), "\(refused.stderr)")
        let rebased = try scratch.cards(["sync", "--rebase"], in: bob)
        #expect(rebased.status == 0, "\(rebased.stdout)\(rebased.stderr)")
        #expect(try scratch.sync(alice).status == 0)
        let served = server.repository("linear")
        let merges = try scratch.git(["--git-dir", served, "rev-list", "--merges", "main"], in: scratch.root)
        #expect(merges.stdout.isEmpty, "\(merges.stdout)")
        for deck in [alice, bob] {
            let listed = try scratch.cards(["list"], in: deck).stdout
            #expect(listed.contains("From Alice") && listed.contains("From Bob"), "\(deck): \(listed)")
        }
    }

    @Test(
        "gitolite's refusals are told in its own words, tried once, the deck keeping its commits: a reader's push, a branch rule (its update hook), a repository nobody may read"
    )
    func refusals() throws {
        let scratch = try Scratch.forSync()
        let (server, _) = try Self.serverWithAlicesDeck(scratch)
        for (user, reason) in [
            ("carol", "FATAL: W any cards carol DENIED by fallthru"),
            ("dave", "remote: FATAL: W refs/heads/main cards dave DENIED by refs/heads/main"),
        ] {
            let deck = scratch.path(user)
            let cloned = try scratch.cards(["clone", server.url(user, "cards"), deck])
            #expect(cloned.status == 0, "\(user): \(cloned.stderr)")
            _ = try scratch.addCard(deck, "From \(user)")
            let before = try scratch.git(["rev-parse", "main"], in: deck).stdout
            let refused = try scratch.sync(deck)
            #expect(refused.status == 1, "\(user): \(refused.stdout)\(refused.stderr)")
            #expect(refused.stderr.contains("was refused by the server"), "\(user): \(refused.stderr)")
            #expect(refused.stderr.contains(reason), "\(user): \(refused.stderr)")
            #expect(!refused.stderr.contains("another device"), "\(user): \(refused.stderr)")
            #expect(!refused.stderr.contains("check the URL"), "\(user): \(refused.stderr)")
            #expect(try Self.pushAttempts(server, user) == 1, "\(user) was retried")
            #expect(try scratch.git(["rev-parse", "main"], in: deck).stdout == before)
            #expect(try scratch.cards(["list"], in: deck).stdout.contains("From \(user)"))
        }
        let nowhere = scratch.path("nowhere")
        let denied = try scratch.cards(["clone", server.url("carol", "secret"), nowhere])
        #expect(denied.status == 1)
        #expect(
            denied.stderr.contains("the server refused: FATAL: R any secret carol DENIED by fallthru"),
            "\(denied.stderr)")
        #expect(!FileManager.default.fileExists(atPath: nowhere))
    }
}
