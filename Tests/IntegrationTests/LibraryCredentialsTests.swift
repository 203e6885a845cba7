import CardStore
import Foundation
import GitCore
import Testing

/// A Swift app that embeds CardStore passes its credentials in `RemoteSettings`, with nothing in the
/// environment: the key and the token must reach the server through the git transport (the default) as
/// they do through libgit2's. Real servers on 127.0.0.1 that require them: sshd with only the user's
/// key authorised, and Apache asking for a login on push.
@Suite("RemoteSettings credentials through the git transport", .serialized)
struct LibraryCredentialsTests {
    /// The in-process library reads the process's environment: git's config is this suite's own (never
    /// the user's ~/.gitconfig), the author named, no CARDS_* credentials. Other suites give their child
    /// processes environments of their own without GIT_* and CARDS_* variables, so this stays here.
    static let isolated: Bool = {
        setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1)
        setenv("GIT_CONFIG_NOSYSTEM", "1", 1)
        setenv("CARDS_AUTHOR_NAME", "Library App", 1)
        setenv("CARDS_AUTHOR_EMAIL", "app@example.invalid", 1)
        setenv("CARDS_FSYNC", "0", 1)
        for name in [
            "CARDS_SSH_KEY", "CARDS_HTTP_USER", "CARDS_HTTP_TOKEN", "GIT_SSH_COMMAND", "GIT_SSH", "SSH_AUTH_SOCK",
        ] {
            unsetenv(name)
        }
        return true
    }()

    /// Clones through `settings`, adds a card, syncs it to the server and checks the server has it.
    func addAndSync(_ url: String, settings: RemoteSettings, scratch: Scratch, serverRepository: String) throws {
        _ = Self.isolated
        var settings = settings
        settings.transport = "git"
        let path = scratch.path("app-deck")
        let deck = try Deck.clone(from: url, to: path, settings: settings)
        let card = try deck.add(
            title: "Ada on Codeberg", indexURL: "https://codeberg.org/ada", platformName: "Codeberg")
        var options = SyncOptions()
        options.settings = settings
        _ = try deck.sync(options)
        let onServer = try scratch.git(["ls-tree", "-r", "--name-only", "main"], in: serverRepository)
        #expect(onServer.stdout.contains(card.id.lowercased() + ".json"), "the card reached the server")
    }

    @Test("an ssh key given in RemoteSettings logs in to an sshd that allows only that key")
    func sshKeyFromSettings() throws {
        let scratch = try Scratch()
        let server = try GitServer(.ssh, in: scratch)
        defer { server.stop() }
        let seed = try scratch.sampleDeck("seed")
        #expect(try scratch.git(["push", "-q", server.repository, "main"], in: seed).status == 0)
        // The key and known_hosts only through RemoteSettings: no CARDS_SSH_KEY, no GIT_SSH_COMMAND.
        let settings = RemoteSettings(sshKeys: [server.userKey], knownHostsPath: scratch.home + "/.ssh/known_hosts")
        try addAndSync(server.url, settings: settings, scratch: scratch, serverRepository: server.repository)
    }

    @Test("an http user and token given in RemoteSettings push to an Apache that asks for a login")
    func httpTokenFromSettings() throws {
        let scratch = try Scratch()
        let server = try ApacheServer(in: scratch)
        defer { server.stop() }
        let settings = RemoteSettings(httpUser: ApacheServer.user, httpToken: ApacheServer.password)
        try addAndSync(server.url, settings: settings, scratch: scratch, serverRepository: server.repository)
    }

    @Test("without the token, the push is refused and nothing of it is kept on the server")
    func httpWithoutToken() throws {
        let scratch = try Scratch()
        let server = try ApacheServer(in: scratch)
        defer { server.stop() }
        _ = Self.isolated
        let before = try scratch.git(["rev-parse", "main"], in: server.repository).stdout
        var settings = RemoteSettings()
        settings.transport = "git"
        let deck = try Deck.clone(from: server.url, to: scratch.path("app-deck"), settings: settings)
        _ = try deck.add(title: "Ada", indexURL: "https://example.com/ada")
        var options = SyncOptions()
        options.settings = settings
        let error = #expect(throws: StoreError.self) { try deck.sync(options) }
        // The git layer's error is kept: what git said, and the URL, for an app to show.
        #expect(error?.cause != nil, "StoreError keeps the GitError it came from")
        #expect(error?.cause?.message.contains("Username") == true, "\(error?.cause?.message ?? "no cause")")
        #expect(try scratch.git(["rev-parse", "main"], in: server.repository).stdout == before)
    }
}
