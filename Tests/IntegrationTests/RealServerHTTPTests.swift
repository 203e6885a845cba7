import Foundation
import Testing

/// Smart HTTP through git's own client: credential helpers, CARDS_HTTP_*, http.extraHeader and
/// http.proxy from git's config work as for the user's `git` (issue 22). The server asks every
/// request for the login alice:s3cret (GitServers.swift's Python front for git http-backend).
@Suite("Smart HTTP through git")
struct RealServerHTTPTests {
    static let login = "alice:s3cret"

    /// Clones into `name` and pushes a card from it; expects both to work.
    static func cloneAndPush(_ scratch: Scratch, _ server: GitServer, _ name: String) throws {
        let deck = scratch.path(name)
        let cloned = try scratch.cards(["clone", server.url, deck])
        #expect(cloned.status == 0, "\(cloned.stderr)")
        try scratch.addCard(deck, "Pushed over http by \(name)")
        let pushed = try scratch.sync(deck)
        #expect(pushed.status == 0 && pushed.stdout.contains("Pushed main"), "\(pushed.stdout)\(pushed.stderr)")
        #expect(try server.main(scratch) == scratch.main(deck))
    }

    @Test("git's credential helper (store) supplies the login; without one, one clear failure")
    func credentialHelper() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.http, httpLogin: Self.login)
        let started = Date()
        let none = try scratch.cards(["clone", server.url, scratch.path("none")])
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(none.status == 1 && none.stderr.contains("asked for a login"), "\(none.stderr)")
        #expect(none.stderr.contains("credential.helper"), "\(none.stderr)")
        #expect(!none.stderr.contains("check the URL"), "\(none.stderr)")
        let store = scratch.home + "/.git-credentials"
        let withLogin = server.url.replacingOccurrences(of: "http://", with: "http://\(Self.login)@")
        try (withLogin + "\n").write(toFile: store, atomically: true, encoding: .utf8)
        #expect(try scratch.git(["config", "--global", "credential.helper", "store"], in: scratch.root).status == 0)
        try Self.cloneAndPush(scratch, server, "stored")
    }

    @Test("CARDS_HTTP_USER and CARDS_HTTP_TOKEN still log in; a wrong token fails once")
    func tokenFromEnvironment() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.http, httpLogin: Self.login)
        scratch.environment["CARDS_HTTP_USER"] = "alice"
        scratch.environment["CARDS_HTTP_TOKEN"] = "nope"
        let wrong = try scratch.cards(["clone", server.url, scratch.path("wrong")])
        #expect(wrong.status == 1 && wrong.stderr.contains("Authentication failed"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("nope"), "\(wrong.stderr)")
        scratch.environment["CARDS_HTTP_TOKEN"] = "s3cret"
        try Self.cloneAndPush(scratch, server, "token")
    }

    @Test("http.extraHeader from git's config is sent")
    func extraHeader() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.http, httpLogin: Self.login)
        let header = "Authorization: Basic " + Data(Self.login.utf8).base64EncodedString()
        #expect(try scratch.git(["config", "--global", "http.extraHeader", header], in: scratch.root).status == 0)
        try Self.cloneAndPush(scratch, server, "header")
    }

    @Test("a dead http.proxy makes the sync fail as git's own fetch fails")
    func deadProxy() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.http)
        let deck = try scratch.clone(server, "deck")
        let port = try GitServer.freePort()
        #expect(
            try scratch.git(["config", "--global", "http.proxy", "http://127.0.0.1:\(port)"], in: scratch.root)
                .status == 0)
        let before = try scratch.main(deck)
        let own = try scratch.git(["fetch", "origin"], in: deck)
        #expect(own.status != 0)
        let result = try scratch.sync(deck)
        #expect(result.status == 1)
        #expect(result.stderr.contains("127.0.0.1 port \(port)"), "git: \(own.stderr)\ncards: \(result.stderr)")
        #expect(try scratch.main(deck) == before)
        // Without the proxy, the same sync works.
        #expect(try scratch.git(["config", "--global", "--unset", "http.proxy"], in: scratch.root).status == 0)
        #expect(try scratch.sync(deck).status == 0)
    }
}
