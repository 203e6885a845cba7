import Foundation
import Testing

/// Every answer of a real server told truly (issue 22): a push a server hook refuses, over a local
/// path, ssh, smart HTTP and git://, fails once with the server's reason; a hook's message on a
/// successful push is shown. Servers on 127.0.0.1, started and stopped by each test.
@Suite("Server refusals and messages")
struct ServerRefusalTests {
    /// Makes the served repository refuse every push with a pre-receive hook that says why and counts
    /// its runs in `count`.
    static func freeze(_ repository: String, count: String) throws {
        let hook = repository + "/hooks/pre-receive"
        try """
        #!/bin/sh
        echo run >> '\(count)'
        echo "deck is frozen: ask the owner" >&2
        exit 1

        """.write(toFile: hook, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        // http-backend may run hooks as another user: the count file must be writable by it.
        _ = FileManager.default.createFile(atPath: count, contents: nil, attributes: [.posixPermissions: 0o666])
    }

    static func runs(_ count: String) -> Int {
        ((try? String(contentsOfFile: count, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    @Test(
        "a push a pre-receive hook refuses: exit 1, the server's reason, one attempt, local commits kept",
        arguments: [
            (Transport.path, NetworkClient.git), (.file, .git), (.ssh, .git), (.http, .git), (.git, .git),
            (.ssh, .libgit2), (.http, .libgit2), (.git, .libgit2),
        ])
    func hookRefusal(_ transport: Transport, _ client: NetworkClient) throws {
        let scratch = try Scratch.forSync()
        scratch.environment["CARDS_TRANSPORT"] = client.rawValue
        let server = try scratch.server(transport)
        let deck = try scratch.clone(server, "a")
        let count = scratch.path("hook-runs")
        try Self.freeze(server.repository, count: count)
        let added = try scratch.addCard(deck, "Refused over \(transport)")
        let before = try scratch.main(deck)
        let remoteBefore = try server.main(scratch)
        let result = try scratch.sync(deck)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("refused by the server"), "\(result.stderr)")
        #expect(result.stderr.contains("pre-receive hook declined"), "\(result.stderr)")
        #expect(result.stderr.contains("remote: deck is frozen: ask the owner"), "\(result.stderr)")
        #expect(!result.stderr.contains("another device"), "\(result.stderr)")
        #expect(!result.stderr.contains("check the URL"), "\(result.stderr)")
        #expect(Self.runs(count) == 1, "the hook ran \(Self.runs(count)) times")
        #expect(try scratch.main(deck) == before)
        #expect(try server.main(scratch) == remoteBefore)
        #expect(try scratch.cards(["show", added], in: deck).status == 0)
    }

    @Test(
        "through libgit2's transport a local remote's pre-receive hook is never passed by: the push is refused naming it; a post-receive hook it cannot run is said",
        arguments: [Transport.path, .file])
    func libgit2LocalHooks(_ transport: Transport) throws {
        let scratch = try Scratch.forSync()
        scratch.environment["CARDS_TRANSPORT"] = "libgit2"
        let server = try scratch.server(transport)
        let deck = try scratch.clone(server, "a")
        let count = scratch.path("hook-runs")
        try Self.freeze(server.repository, count: count)
        try scratch.addCard(deck, "Not past the hook")
        let remoteBefore = try server.main(scratch)
        let refused = try scratch.sync(deck)
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(
            refused.stderr.contains("has a pre-receive hook, which libgit2's transport cannot run"), "\(refused.stderr)"
        )
        #expect(refused.stderr.contains("cards.transport git"), "\(refused.stderr)")
        #expect(try server.main(scratch) == remoteBefore)
        try FileManager.default.removeItem(atPath: server.repository + "/hooks/pre-receive")
        let hook = server.repository + "/hooks/post-receive"
        try "#!/bin/sh\necho CI started\n".write(toFile: hook, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        let pushed = try scratch.sync(deck)
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(pushed.stderr.contains("warning: the post-receive hook of"), "\(pushed.stderr)")
        try scratch.expectConverged([deck], server)
        // Through git the same remote's hooks run, as they do for `git push`.
        scratch.environment["CARDS_TRANSPORT"] = "git"
        try scratch.addCard(deck, "Through git")
        let throughGit = try scratch.sync(deck)
        #expect(throughGit.status == 0 && throughGit.stderr.contains("remote: CI started"), "\(throughGit.stderr)")
    }

    @Test("a merge whose push the server refuses is kept, and said to be")
    func refusedMergeIsKept() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let a = try scratch.clone(server, "a")
        let b = try scratch.clone(server, "b")
        try scratch.addCard(b, "From B first")
        #expect(try scratch.sync(b).status == 0)
        try Self.freeze(server.repository, count: scratch.path("hook-runs"))
        try scratch.addCard(a, "From A, merged then refused")
        let result = try scratch.sync(a)
        #expect(result.status == 1)
        #expect(result.stderr.contains("the merge commit was made locally and is kept"), "\(result.stderr)")
        #expect(result.stderr.contains("remote: deck is frozen"), "\(result.stderr)")
        #expect(Self.runs(scratch.path("hook-runs")) == 1)
        // The merge commit is main now, with both parents.
        let parents = try scratch.git(["rev-list", "--parents", "-n", "1", "main"], in: a).stdout
        #expect(parents.split(separator: " ").count == 3, "\(parents)")
    }

    @Test(
        "a post-receive hook's message is shown on a successful push",
        arguments: [
            (Transport.path, NetworkClient.git), (.ssh, .git), (.http, .git), (.ssh, .libgit2), (.http, .libgit2),
        ])
    func postReceiveMessage(_ transport: Transport, _ client: NetworkClient) throws {
        let scratch = try Scratch.forSync()
        scratch.environment["CARDS_TRANSPORT"] = client.rawValue
        let server = try scratch.server(transport)
        let deck = try scratch.clone(server, "a")
        let hook = server.repository + "/hooks/post-receive"
        // An escape sequence from a server must not reach the terminal as one.
        try "#!/bin/sh\nprintf 'CI started \\033[31mred\\n'\n".write(toFile: hook, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        try scratch.addCard(deck, "Starts CI")
        let result = try scratch.sync(deck)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("remote: CI started \\x1B[31mred"), "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(result.stdout.contains("Pushed main"), "\(result.stdout)")
        try scratch.expectConverged([deck], server)
    }

    @Test("a push to a remote of another push URL names the URL it used")
    func pushURLNamed() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let deck = try scratch.clone(server, "a")
        let elsewhere = scratch.path("push-here.git")
        #expect(try scratch.git(["init", "-q", "--bare", "-b", "main", elsewhere], in: scratch.root).status == 0)
        #expect(try scratch.git(["config", "remote.origin.pushurl", elsewhere], in: deck).status == 0)
        try Self.freeze(elsewhere, count: scratch.path("hook-runs"))
        try scratch.addCard(deck, "Pushed elsewhere")
        let result = try scratch.sync(deck)
        #expect(result.status == 1)
        #expect(result.stderr.contains("origin (\(elsewhere))"), "\(result.stderr)")
    }
}

/// A server that takes the connection and then says nothing: the sync gives up by itself.
@Suite("A silent server")
struct SilentServerTests {
    @Test("sync and clone give up after CARDS_NETWORK_TIMEOUT of silence, and stop git", arguments: ["http", "git"])
    func givesUp(_ scheme: String) throws {
        let scratch = try Scratch.forSync()
        let silent = try SilentServer(in: scratch)
        let url = "\(scheme)://127.0.0.1:\(silent.port)/deck.git"
        let deck = try scratch.sampleDeck()
        #expect(try scratch.cards(["remote", "add", "origin", url], in: deck).status == 0)
        let before = try scratch.main(deck)
        let started = Date()
        let result = try scratch.sync(deck, extraEnvironment: ["CARDS_NETWORK_TIMEOUT": "2"])
        let took = Date().timeIntervalSince(started)
        #expect(result.status == 1)
        #expect(took < 15, "took \(took) s")
        #expect(result.stderr.contains("gave up after 2 s without a word from \(url)"), "\(result.stderr)")
        #expect(result.stderr.contains("CARDS_NETWORK_TIMEOUT"), "\(result.stderr)")
        #expect(try scratch.main(deck) == before)
        let cloned = try scratch.cards(
            ["clone", url, scratch.path("clone")], extraEnvironment: ["CARDS_NETWORK_TIMEOUT": "2"])
        #expect(cloned.status == 1 && cloned.stderr.contains("gave up after 2 s"), "\(cloned.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("clone")))
        // Nothing of git (its http helper) is left talking to the server.
        #expect(SilentServer.processes(mentioning: "127.0.0.1:\(silent.port)").isEmpty)
    }
}

extension SilentServerTests {
    @Test(
        "SIGTERM or Ctrl-C during a sync stops the git it runs, and the deck stays as it was",
        arguments: [SIGTERM, SIGINT])
    func interrupted(_ signal: Int32) throws {
        let scratch = try Scratch.forSync()
        let silent = try SilentServer(in: scratch)
        let url = "http://127.0.0.1:\(silent.port)/deck.git"
        let deck = try scratch.sampleDeck()
        #expect(try scratch.cards(["remote", "add", "origin", url], in: deck).status == 0)
        let before = try scratch.fingerprint(deck)
        let child = try scratch.startCards(["sync"], in: deck)
        // git is running (and waiting on the silent server) before the signal comes.
        let deadline = Date().addingTimeInterval(10)
        while SilentServer.processes(mentioning: "127.0.0.1:\(silent.port)").isEmpty && Date() < deadline {
            usleep(20_000)
        }
        child.signal(signal)
        let result = child.wait(timeout: 10)
        #expect(result.ending == .signalled(signal), "\(result.ending) \(result.stderr)")
        #expect(result.stderr.contains("interrupted"), "\(result.stderr)")
        #expect(SilentServer.processes(mentioning: "127.0.0.1:\(silent.port)").isEmpty)
        #expect(try scratch.fingerprint(deck) == before)
    }
}

/// A TCP listener on 127.0.0.1 that accepts connections and never answers; stopped by its pid.
final class SilentServer: @unchecked Sendable {
    let port: Int
    private let process: Process

    init(in scratch: Scratch) throws {
        guard let python = GitServer.python else { throw ServerError("python3 is not installed") }
        port = try GitServer.freePort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-c",
            "import socket,sys,time\ns=socket.socket()\ns.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
                + "s.bind(('127.0.0.1',int(sys.argv[1])))\ns.listen(16)\nheld=[]\n"
                + "while True:\n  held.append(s.accept()[0])\n",
            "\(port)",
        ]
        process.environment = scratch.environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !GitServer.canConnect(port) {
            guard Date() < deadline, process.isRunning else { throw ServerError("the silent server did not listen") }
            usleep(20_000)
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The pids of processes whose command line mentions `text`.
    static func processes(mentioning text: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.filter { name in
            guard Int(name) != nil, let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else {
                return false
            }
            return String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self).contains(text)
        }
    }
}
