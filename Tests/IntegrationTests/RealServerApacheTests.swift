import Foundation
import Testing

/// Smart HTTP behind Apache from Debian (ApacheServer.swift), through git's own client: the "auth only
/// for push" recipe of git-http-backend(1) with a credential helper, and TLS with a CA of the test's
/// own, trusted through GIT_SSL_CAINFO or http.sslCAInfo (issue 22).
@Suite("Smart HTTP behind Apache")
struct RealServerApacheTests {
    /// Stores Apache's login for `url` in the test HOME's `credential.helper store` file.
    static func storeLogin(_ scratch: Scratch, for url: String) throws {
        let withLogin = url.replacingOccurrences(
            of: "://", with: "://\(ApacheServer.user):\(ApacheServer.password)@")
        try (withLogin + "\n").write(toFile: scratch.home + "/.git-credentials", atomically: true, encoding: .utf8)
        #expect(try scratch.git(["config", "--global", "credential.helper", "store"], in: scratch.root).status == 0)
    }

    /// Clones into `a` and `b`, changes each in turn and syncs both ways; expects every step to work.
    static func syncBothWays(_ scratch: Scratch, _ server: ApacheServer) throws {
        let a = scratch.path("a")
        let b = scratch.path("b")
        for deck in [a, b] {
            let cloned = try scratch.cards(["clone", server.url, deck])
            #expect(cloned.status == 0, "\(cloned.stderr)")
        }
        try scratch.addCard(a, "From A")
        let pushed = try scratch.sync(a)
        #expect(pushed.status == 0 && pushed.stdout.contains("Pushed main"), "\(pushed.stdout)\(pushed.stderr)")
        try scratch.addCard(b, "From B")
        let merged = try scratch.sync(b)
        #expect(merged.status == 0 && merged.stdout.contains("Merged origin/main"), "\(merged.stdout)\(merged.stderr)")
        #expect(try scratch.sync(a).status == 0)
        #expect(try server.main(scratch) == scratch.main(a))
        #expect(try scratch.main(a) == scratch.main(b))
    }

    @Test("auth only for push: an anonymous clone, a push refused for want of a login, then one from the helper")
    func authOnlyForPush() throws {
        let scratch = try Scratch.forSync()
        let server = try ApacheServer(in: scratch)
        let deck = scratch.path("deck")
        let cloned = try scratch.cards(["clone", server.url, deck])
        #expect(cloned.status == 0, "\(cloned.stderr)")
        try scratch.addCard(deck, "Needs a login")
        let before = try scratch.main(deck)
        let refused = try scratch.sync(deck)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("asked for a login"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("check the URL"), "\(refused.stderr)")
        #expect(try scratch.main(deck) == before)
        try Self.storeLogin(scratch, for: server.url)
        let pushed = try scratch.sync(deck)
        #expect(pushed.status == 0 && pushed.stdout.contains("Pushed main"), "\(pushed.stdout)\(pushed.stderr)")
        #expect(try server.main(scratch) == before)
        try Self.syncBothWays(scratch, server)
    }

    @Test("https with the test's own CA: refused untrusted, then trusted through GIT_SSL_CAINFO and http.sslCAInfo")
    func privateCA() throws {
        let scratch = try Scratch.forSync()
        let server = try ApacheServer(in: scratch, tls: true)
        try Self.storeLogin(scratch, for: server.url)
        let untrusted = try scratch.cards(["clone", server.url, scratch.path("untrusted")])
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr.contains("TLS certificate is not trusted"), "\(untrusted.stderr)")
        #expect(untrusted.stderr.contains("http.sslCAInfo"), "\(untrusted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("untrusted")))
        scratch.environment["GIT_SSL_CAINFO"] = server.caFile
        try Self.syncBothWays(scratch, server)
        scratch.environment["GIT_SSL_CAINFO"] = nil
        #expect(
            try scratch.git(["config", "--global", "http.sslCAInfo", server.caFile], in: scratch.root).status == 0)
        let c = scratch.path("c")
        let viaConfig = try scratch.cards(["clone", server.url, c])
        #expect(viaConfig.status == 0, "\(viaConfig.stderr)")
        try scratch.addCard(c, "Over https, CA from git config")
        #expect(try scratch.sync(c).status == 0)
        #expect(try server.main(scratch) == scratch.main(c))
    }
}
