import Foundation
import Testing

/// `cards clone` and `cards sync` over every transport libgit2 speaks, each against a real
/// server on 127.0.0.1 started (and stopped) by the test.
@Suite("Sync over every transport")
struct SyncTransportTests {
    @Test(
        "two clones change in turn, sync, and end equal to the remote", arguments: Transport.allCases,
        NetworkClient.allCases)
    func twoDevicesConverge(_ transport: Transport, _ client: NetworkClient) throws {
        let scratch = try Scratch.forSync()
        scratch.environment["CARDS_TRANSPORT"] = client.rawValue
        let server = try scratch.server(transport)
        let a = try scratch.clone(server, "a")
        let b = try scratch.clone(server, "b")
        try scratch.expectConverged([a, b], server)
        #expect(try scratch.git(["config", "merge.cards.driver"], in: a).stdout.contains("cards merge-driver"))
        #expect(try scratch.git(["remote", "get-url", "origin"], in: a).stdout.contains(server.url))

        // A adds a card and pushes; B fast-forwards to it.
        let added = try scratch.addCard(a, "From A over \(transport)")
        let pushed = try scratch.sync(a)
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(pushed.stdout.contains("Pushed main"), "\(pushed.stdout)")
        let pulled = try scratch.sync(b)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(pulled.stdout.contains("Fast-forwarded main"), "\(pulled.stdout)")
        #expect(try scratch.cards(["show", added], in: b).status == 0)

        // B edits and deletes; A fast-forwards.
        #expect(try scratch.cards(["edit", added, "--title", "Edited on B"], in: b).status == 0)
        let victim = try scratch.cards(["list", "--json"], in: b).stdout
            .components(separatedBy: "\"id\": \"").dropFirst().first.map { String($0.prefix(36)) }
        #expect(try scratch.cards(["delete", try #require(victim)], in: b).status == 0)
        #expect(try scratch.sync(b).status == 0)
        #expect(try scratch.sync(a).status == 0)
        try scratch.expectConverged([a, b], server)
        #expect(try scratch.cards(["show", added], in: a).stdout.contains("Edited on B"))

        // Both change at once: A pushes, B merges and pushes, A fast-forwards to the merge.
        try scratch.addCard(a, "Second from A")
        try scratch.addCard(b, "Second from B")
        #expect(try scratch.sync(a).status == 0)
        let merged = try scratch.sync(b)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.contains("Merged origin/main"), "\(merged.stdout)")
        #expect(try scratch.sync(a).status == 0)
        try scratch.expectConverged([a, b], server)
        #expect(try scratch.cardFiles(a).count == 18)
        // A last sync of each changes nothing.
        let before = try server.main(scratch)
        for deck in [a, b] {
            let again = try scratch.sync(deck)
            #expect(again.status == 0 && again.stdout.contains("Up to date"), "\(again.stdout)\(again.stderr)")
        }
        #expect(try server.main(scratch) == before)
    }

    @Test(
        "the temporary fetch refs a killed cards left (refs/cards/fetch/PID/…) go at the next fetch; a running one's stay"
    )
    func abandonedFetchReferences() throws {
        let scratch = try Scratch.forSync()
        scratch.environment["CARDS_TRANSPORT"] = "git"
        let server = try scratch.server(.file)
        let deck = try scratch.clone(server, "a")
        let gone = try scratch.run("/bin/sh", ["-c", "echo $$"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let sleeper = try ChildProcess(
            "/bin/sleep", ["600"], directory: deck, environment: [:], scratchDirectory: scratch.root)
        defer {
            sleeper.signal(SIGKILL)
            _ = sleeper.wait()
        }
        let tip = try scratch.main(deck)
        for owner in [gone, "\(sleeper.pid)"] {
            #expect(try scratch.git(["update-ref", "refs/cards/fetch/\(owner)/0", tip], in: deck).status == 0)
        }
        #expect(try scratch.git(["pack-refs", "--all"], in: deck).status == 0)
        #expect(try scratch.sync(deck).status == 0)
        let left = try scratch.git(["for-each-ref", "--format=%(refname)", "refs/cards/"], in: deck).stdout
        #expect(left == "refs/cards/fetch/\(sleeper.pid)/0\n", "\(left)")
    }

    @Test("an empty remote over each network transport is pushed to", arguments: [Transport.git, .http, .ssh])
    func emptyRemoteOverNetwork(_ transport: Transport) throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(transport, seed: false)
        let deck = try scratch.sampleDeck()
        #expect(try scratch.cards(["remote", "add", "origin", server.url], in: deck).status == 0)
        let result = try scratch.sync(deck)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("to the empty remote origin (16 cards)"), "\(result.stdout)")
        try scratch.expectConverged([deck], server)
    }
}

/// Where the ssh login comes from (agent, CARDS_SSH_KEY), and the scp-like URL form.
@Suite("Sync over ssh: agent, key file, scp-like URLs")
struct SyncSSHTests {
    @Test("the ssh agent is tried first, then CARDS_SSH_KEY; each once (libgit2's ssh)")
    func agentThenKeyFile() throws {
        let scratch = try Scratch.forSync()
        // The order and the messages are libgit2's; through git, OpenSSH's own (RealServerSSHTests).
        scratch.environment["CARDS_TRANSPORT"] = "libgit2"
        let server = try scratch.server(.ssh)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ssh-agent") else {
            try Test.cancel("ssh-agent is not installed (package openssh-client)")
        }
        let wrong = scratch.path("wrongkey")
        #expect(try scratch.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", wrong]).status == 0)
        // The agent holds the right key and no key file is set: the agent logs in.
        let good = try SSHAgent(in: scratch, name: "good-agent")
        try good.add(server.userKey, scratch)
        scratch.environment["CARDS_SSH_KEY"] = nil
        let viaAgent = try scratch.cards(
            ["clone", server.url, scratch.path("a")], extraEnvironment: ["SSH_AUTH_SOCK": good.socket])
        #expect(viaAgent.status == 0, "\(viaAgent.stderr)")
        // The agent holds a wrong key: then the key file is tried, and works.
        let bad = try SSHAgent(in: scratch, name: "bad-agent")
        try bad.add(wrong, scratch)
        let fallback = try scratch.cards(
            ["clone", server.url, scratch.path("b")],
            extraEnvironment: ["SSH_AUTH_SOCK": bad.socket, "CARDS_SSH_KEY": server.userKey])
        #expect(fallback.status == 0, "\(fallback.stderr)")
        // Both wrong: one clear failure naming both, no loop.
        let started = Date()
        let failed = try scratch.cards(
            ["clone", server.url, scratch.path("c")],
            extraEnvironment: ["SSH_AUTH_SOCK": bad.socket, "CARDS_SSH_KEY": wrong])
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("failed with the ssh agent, then \(wrong)"), "\(failed.stderr)")
        // No agent and no key at all: says how to get one.
        let none = try scratch.cards(["clone", server.url, scratch.path("d")])
        #expect(none.status == 1 && none.stderr.contains("no ssh key to log in to 127.0.0.1"), "\(none.stderr)")
    }

    @Test("the scp-like form user@host:path (sshd on port 22, when that port is free)")
    func scpLikeURL() throws {
        let scratch = try Scratch.forSync()
        if GitServer.canConnect(22) { try Test.cancel("port 22 on 127.0.0.1 is taken; the scp-like form has no port") }
        let server: GitServer
        do {
            server = try scratch.server(.ssh, sshPort: 22)
        } catch let error as ServerError {
            try Test.cancel("could not start sshd on port 22: \(error)")
        }
        let a = try scratch.cards(["clone", server.scpURL, scratch.path("a")])
        #expect(a.status == 0, "\(a.stderr)")
        let b = try scratch.clone(server, "b")
        try scratch.addCard(scratch.path("a"), "Over scp-like ssh")
        #expect(try scratch.sync(scratch.path("a")).status == 0)
        #expect(try scratch.sync(b).status == 0)
        try scratch.expectConverged([scratch.path("a"), b], server)
    }
}
