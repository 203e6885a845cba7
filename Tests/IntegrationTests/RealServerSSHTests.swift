import Foundation
import Testing

/// ssh through git's own client (OpenSSH): what works for the user's `git` works for `cards` (issue 22).
/// Each test's ssh reads only its own HOME's config and known_hosts (`Scratch.sshCommand`).
@Suite("ssh through OpenSSH")
struct RealServerSSHTests {
    /// Clones twice, changes each clone in turn, syncs both ways; expects every step to work.
    static func cloneAndSyncBothWays(_ scratch: Scratch, _ server: GitServer, url: String) throws {
        let a = scratch.path("a")
        let b = scratch.path("b")
        for deck in [a, b] {
            let cloned = try scratch.cards(["clone", url, deck])
            #expect(cloned.status == 0, "\(cloned.stderr)")
        }
        try scratch.addCard(a, "From A")
        let pushed = try scratch.sync(a)
        #expect(pushed.status == 0 && pushed.stdout.contains("Pushed main"), "\(pushed.stdout)\(pushed.stderr)")
        let pulled = try scratch.sync(b)
        #expect(pulled.status == 0 && pulled.stdout.contains("Fast-forwarded"), "\(pulled.stdout)\(pulled.stderr)")
        try scratch.addCard(b, "From B")
        try scratch.addCard(a, "Second from A")
        #expect(try scratch.sync(a).status == 0)
        let merged = try scratch.sync(b)
        #expect(merged.status == 0 && merged.stdout.contains("Merged origin/main"), "\(merged.stdout)\(merged.stderr)")
        #expect(try scratch.sync(a).status == 0)
        try scratch.expectConverged([a, b], server)
    }

    @Test("an RSA host key trusted first and an RSA user key (SHA-2 signatures, OpenSSH >= 8.8)")
    func rsaKeys() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.ssh, sshRSA: true)
        let known = try String(contentsOfFile: scratch.home + "/.ssh/known_hosts", encoding: .utf8)
        #expect(known.split(separator: "\n").first?.contains("ssh-rsa") == true, "\(known)")
        try Self.cloneAndSyncBothWays(scratch, server, url: server.url)
    }

    @Test("a Host alias of ~/.ssh/config (HostName, Port, User, IdentityFile) through core.sshCommand")
    func configAlias() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.ssh)
        // Only the alias knows where to log in and with which key: no GIT_SSH_COMMAND, no CARDS_SSH_KEY.
        scratch.environment["GIT_SSH_COMMAND"] = nil
        scratch.environment["CARDS_SSH_KEY"] = nil
        let config = try String(contentsOfFile: scratch.sshConfig, encoding: .utf8)
            .split(separator: "\n").filter { !$0.contains("IdentityFile") }.joined(separator: "\n")
        try """
        \(config)

        Host deckhost
          HostName 127.0.0.1
          Port \(server.hostPort)
          User \(NSUserName())
          IdentityFile \(server.userKey)

        """.write(toFile: scratch.sshConfig, atomically: true, encoding: .utf8)
        #expect(
            try scratch.git(["config", "--global", "core.sshCommand", scratch.sshCommand], in: scratch.root).status == 0
        )
        try Self.cloneAndSyncBothWays(scratch, server, url: "deckhost:\(server.repository)")
    }

    @Test("GIT_SSH_COMMAND with its own key (-i)")
    func sshCommandAndKey() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.ssh)
        let config = try String(contentsOfFile: scratch.sshConfig, encoding: .utf8)
            .split(separator: "\n").filter { !$0.contains("IdentityFile") }.joined(separator: "\n")
        try (config + "\n").write(toFile: scratch.sshConfig, atomically: true, encoding: .utf8)
        scratch.environment["CARDS_SSH_KEY"] = nil
        scratch.environment["GIT_SSH_COMMAND"] = "\(scratch.sshCommand) -i '\(server.userKey)'"
        try Self.cloneAndSyncBothWays(scratch, server, url: server.url)
    }

    @Test("a refused login and an unknown host key are said in ssh's terms, with what to do")
    func loginAndHostKeyFailures() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.ssh)
        let wrong = scratch.path("wrongkey")
        #expect(try scratch.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", wrong]).status == 0)
        let config = try String(contentsOfFile: scratch.sshConfig, encoding: .utf8)
        try config.replacingOccurrences(of: server.userKey, with: wrong)
            .write(toFile: scratch.sshConfig, atomically: true, encoding: .utf8)
        let refused = try scratch.cards(["clone", server.url, scratch.path("a")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Permission denied (publickey"), "\(refused.stderr)")
        #expect(refused.stderr.contains("ssh-add"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("check the URL"), "\(refused.stderr)")
        // The host key unknown: ssh refuses, and cards says how to trust it.
        try config.write(toFile: scratch.sshConfig, atomically: true, encoding: .utf8)
        try "".write(toFile: scratch.home + "/.ssh/known_hosts", atomically: true, encoding: .utf8)
        let unknown = try scratch.cards(["clone", server.url, scratch.path("b")])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("Host key verification failed"), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("known_hosts"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("b")))
    }
}
