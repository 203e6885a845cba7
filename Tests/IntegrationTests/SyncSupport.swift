import Foundation
import Testing

/// Which client a test's `cards` moves objects with (CARDS_TRANSPORT): git, the default, or the
/// libgit2 fallback.
enum NetworkClient: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case git
    case libgit2

    var testDescription: String { "through \(rawValue)" }
}

/// Helpers for the sync tests: a scratch without an ssh agent, a server seeded with the sample
/// deck, clones, and the checks every sync test makes.
extension Scratch {
    /// A scratch whose runs see no ssh agent (so only the test's key is offered).
    static func forSync() throws -> Scratch {
        let scratch = try Scratch()
        scratch.environment["SSH_AUTH_SOCK"] = nil
        return scratch
    }

    /// Starts a server for `transport` (cancelling the test when a program it needs is missing);
    /// with `seed`, its repository gets the sample deck (pushed by the git CLI, by path).
    func server(
        _ transport: Transport, seed: Bool = true, name: String = "server", httpLogin: String? = nil,
        sshPort: Int? = nil, sshRSA: Bool = false
    ) throws -> GitServer {
        if let missing = transport.missingProgram {
            try Test.cancel("\(missing) is not installed; `./dev test` installs git, python3 and openssh-server")
        }
        let server = try GitServer(
            transport, in: self, name: name, httpLogin: httpLogin, sshPort: sshPort, sshRSA: sshRSA)
        for (key, value) in server.clientEnvironment { environment[key] = value }
        if seed {
            let deck = try sampleDeck(name + "-seed")
            let pushed = try git(["push", "-q", server.repository, "main"], in: deck)
            #expect(pushed.status == 0, "seeding the server failed: \(pushed.stderr)")
        }
        return server
    }

    /// `cards clone` of the server into `name`; expects success.
    @discardableResult
    func clone(_ server: GitServer, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String
    {
        let deck = path(name)
        let result = try cards(["clone", server.url, deck])
        #expect(result.status == 0, "clone failed: \(result.stderr)", sourceLocation: sourceLocation)
        return deck
    }

    /// `cards sync` in `deck` with extra arguments.
    @discardableResult
    func sync(_ deck: String, _ arguments: [String] = [], extraEnvironment: [String: String] = [:]) throws -> RunResult
    {
        try cards(["sync"] + arguments, in: deck, extraEnvironment: extraEnvironment)
    }

    /// `git rev-parse main` in a deck.
    func main(_ deck: String) throws -> String {
        try git(["rev-parse", "main"], in: deck).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Adds a card; returns its id.
    @discardableResult
    func addCard(_ deck: String, _ title: String) throws -> String {
        let result = try cards(["add", "--title", title, "--url", "https://example.org/\(title.count)"], in: deck)
        #expect(result.status == 0, "add failed: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The card files of a deck's working tree, by path.
    func cardFiles(_ deck: String) throws -> [String: Data] {
        try fingerprint(deck).filter { $0.key.hasPrefix("cards/") }
    }

    /// Asserts that every deck is at the server's main, with clean working trees holding the same card files.
    func expectConverged(_ decks: [String], _ server: GitServer, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let remote = try server.main(self)
        #expect(!remote.isEmpty, "the server has no main", sourceLocation: sourceLocation)
        let files = try decks.map { try cardFiles($0) }
        for (deck, cards) in zip(decks, files) {
            #expect(try main(deck) == remote, "\(deck) is not at the server's main", sourceLocation: sourceLocation)
            #expect(cards == files[0], "\(deck) has other card files than \(decks[0])", sourceLocation: sourceLocation)
            try expectClean(deck, sourceLocation: sourceLocation)
        }
        // The server's tree holds exactly those card files.
        let listed = try git(
            ["--git-dir", server.repository, "ls-tree", "-r", "--name-only", "main", "cards"], in: root)
        let names = Set(listed.stdout.split(separator: "\n").map(String.init))
        #expect(
            names == Set(files[0].keys), "the server's cards differ from the decks'", sourceLocation: sourceLocation)
    }
}
