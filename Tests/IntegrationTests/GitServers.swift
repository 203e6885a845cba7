import Foundation
import Testing

/// The transports a sync test can run over, each with a real server on 127.0.0.1 (TEST-SERVERS.md).
enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// A bare repository by its path.
    case path
    /// The same by `file://`.
    case file
    /// `git daemon --enable=receive-pack`.
    case git
    /// `git http-backend` behind a small HTTP server (smart HTTP).
    case http
    /// `sshd` with a generated host key and user key.
    case ssh

    var testDescription: String { rawValue }

    /// The programs this transport's server needs, and whether they are all here.
    var missingProgram: String? {
        var needed = ["/usr/bin/git"]
        if self == .http { needed.append(GitServer.python ?? "python3") }
        if self == .ssh { needed += ["/usr/sbin/sshd", "/usr/bin/ssh-keygen"] }
        return needed.first { !FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A bare repository served over one transport for one test; the server (if any) is stopped by its
/// own pid when the test drops it, also when the test fails.
final class GitServer: @unchecked Sendable {
    let transport: Transport
    /// The bare repository on disk.
    let repository: String
    /// The URL a client uses.
    let url: String
    /// The private key a client must use (ssh), and the environment that goes with it.
    var clientEnvironment: [String: String] = [:]
    /// Where the server writes its log.
    let log: String
    private var process: Process?
    private var daemonPID: pid_t?

    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Creates an empty bare repository `deck.git` under the scratch folder and serves it.
    init(
        _ transport: Transport, in scratch: Scratch, name: String = "server", httpLogin: String? = nil,
        sshPort: Int? = nil, sshRSA: Bool = false
    ) throws {
        self.transport = transport
        let root = scratch.path(name)
        log = root + "/server.log"
        let repos = transport == .http ? root + "/repos" : root
        repository = repos + "/deck.git"
        try FileManager.default.createDirectory(atPath: repos, withIntermediateDirectories: true)
        let initResult = try scratch.git(["init", "-q", "--bare", "-b", "main", repository], in: scratch.root)
        guard initResult.status == 0 else { throw ServerError("git init --bare failed: \(initResult.stderr)") }
        switch transport {
        case .path:
            url = repository
        case .file:
            url = "file://" + repository
        case .git:
            let port = try GitServer.freePort()
            url = "git://127.0.0.1:\(port)/deck.git"
            process = try GitServer.launch(
                "/usr/bin/git",
                [
                    "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack", "--base-path=\(root)",
                    "--listen=127.0.0.1", "--port=\(port)", "--pid-file=\(root)/daemon.pid", root,
                ], log: log, environment: scratch.environment)
            try waitForPort(port)
            // `git daemon` runs git-daemon as its child: stop that one by its own pid too.
            daemonPID = (try? String(contentsOfFile: root + "/daemon.pid", encoding: .utf8))
                .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        case .http:
            let port = try GitServer.freePort()
            url = "http://127.0.0.1:\(port)/git/deck.git"
            let script = root + "/server.py"
            try GitServer.httpServerScript.write(toFile: script, atomically: true, encoding: .utf8)
            process = try GitServer.launch(
                GitServer.python ?? "/usr/bin/python3", [script, "\(port)", repos] + (httpLogin.map { [$0] } ?? []),
                log: log, environment: scratch.environment)
            try waitForPort(port)
        case .ssh:
            let port = try sshPort ?? GitServer.freePort()
            url = "ssh://\(NSUserName())@127.0.0.1:\(port)\(repository)"
            let keys = root + "/ssh"
            try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
            // With `sshRSA`: an RSA host key offered and trusted first (beside the ed25519 one) and an RSA user
            // key, which SHA-1-only clients (libssh2 in libgit2 1.5) cannot use against OpenSSH >= 8.8.
            let kinds = [("hostkey-rsa", "rsa"), ("hostkey", "ed25519"), ("userkey", sshRSA ? "rsa" : "ed25519")]
            for (key, type) in kinds where sshRSA || key != "hostkey-rsa" {
                let made = try scratch.run(
                    "/usr/bin/ssh-keygen", ["-q", "-t", type, "-N", "", "-f", "\(keys)/\(key)"])
                guard made.status == 0 else { throw ServerError("ssh-keygen failed: \(made.stderr)") }
            }
            try FileManager.default.copyItem(atPath: keys + "/userkey.pub", toPath: keys + "/authorized_keys")
            let config = """
                \(sshRSA ? "HostKey \(keys)/hostkey-rsa\n" : "")HostKey \(keys)/hostkey
                AuthorizedKeysFile \(keys)/authorized_keys

                """
            daemonPID = try GitServer.startSSHD(port: port, config: config, in: keys, log: log, scratch)
            try waitForPort(port)
            // The test's own HOME trusts this host key, and the client logs in with the user key.
            for file in (sshRSA ? ["hostkey-rsa", "hostkey"] : ["hostkey"]) {
                let hostKey = try String(contentsOfFile: keys + "/\(file).pub", encoding: .utf8)
                    .split(separator: " ").prefix(2).joined(separator: " ")
                try scratch.trust(line: "\(port == 22 ? "127.0.0.1" : "[127.0.0.1]:\(port)") \(hostKey)")
            }
            // libgit2 takes the key from CARDS_SSH_KEY; OpenSSH (under git) reads its config from the passwd
            // home, not $HOME: the test's own is named with -F, never the real ~/.ssh.
            try scratch.addSSHConfig("IdentityFile \(keys)/userkey")
            clientEnvironment = ["CARDS_SSH_KEY": keys + "/userkey", "GIT_SSH_COMMAND": scratch.sshCommand]
            userKey = keys + "/userkey"
            hostPort = port
        }
    }

    /// Starts OpenSSH's sshd on 127.0.0.1:`port` with `config` (host keys, authorized keys, …) beside the
    /// settings every test server has, its files in `folder`; returns its pid once it listens.
    static func startSSHD(port: Int, config: String, in folder: String, log: String, _ scratch: Scratch) throws
        -> pid_t
    {
        let whole = """
            Port \(port)
            ListenAddress 127.0.0.1
            PasswordAuthentication no
            PermitRootLogin prohibit-password
            StrictModes no
            PidFile \(folder)/sshd.pid
            UsePAM no
            \(config)
            """
        try whole.write(toFile: folder + "/sshd_config", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        let started = try scratch.run("/usr/sbin/sshd", ["-f", folder + "/sshd_config", "-E", log])
        guard started.status == 0 else { throw ServerError("sshd did not start: \(started.stderr)") }
        // sshd forks; its pid file appears once it listens.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: folder + "/sshd.pid", encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                while !canConnect(port) && Date() < deadline { usleep(20_000) }
                return pid
            }
            usleep(20_000)
        }
        throw ServerError("sshd wrote no pid file; see \(log)")
    }

    /// The private key sshd accepts (ssh only).
    private(set) var userKey = ""

    /// The scp-like form of the URL, `user@127.0.0.1:/path` (ssh on port 22 only).
    var scpURL: String { "\(NSUserName())@127.0.0.1:\(repository)" }

    /// The ssh port (ssh only).
    private(set) var hostPort: Int = 0

    deinit { stop() }

    /// Stops the server by its own pid (idempotent). SIGKILL, because a child started from the
    /// test runner's threads may inherit a signal mask that blocks SIGTERM (seen here: a SIGTERM
    /// left python3 and git daemon running and the test waiting for them forever).
    func stop() {
        if let pid = daemonPID {
            kill(pid, SIGKILL)
            daemonPID = nil
        }
        if let process {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        process = nil
    }

    /// `git rev-parse main` in the served repository ("" when it has none).
    func main(_ scratch: Scratch) throws -> String {
        let result = try scratch.git(
            ["--git-dir", repository, "rev-parse", "--verify", "-q", "main"], in: scratch.root)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until something accepts connections on 127.0.0.1:`port`.
    private func waitForPort(_ port: Int) throws {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if GitServer.canConnect(port) { return }
            if let process, !process.isRunning {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw ServerError("\(transport) server exited at start: \(text)")
            }
            usleep(20_000)
        }
        throw ServerError("\(transport) server did not listen on 127.0.0.1:\(port) within 15 s; see \(log)")
    }

    static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A port nothing listens on right now: bind port 0 on 127.0.0.1 and read what the kernel chose.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw ServerError("bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw ServerError("getsockname() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func launch(_ program: String, _ arguments: [String], log: String, environment: [String: String])
        throws -> Process
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Smart HTTP: `git http-backend` run as CGI by a small Python server. Not `python3 -m
    /// http.server --cgi`: libgit2 sends pushes with `Transfer-Encoding: chunked`, which that
    /// handler passes to http-backend undecoded ("protocol error: bad line length character").
    /// This one reads the whole body (de-chunked) and hands it over with CONTENT_LENGTH. With a
    /// third argument `user:token` it requires that HTTP basic login.
    static let httpServerScript = #"""
        import base64, os, subprocess, sys
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        PORT, ROOT = int(sys.argv[1]), sys.argv[2]
        LOGIN = sys.argv[3] if len(sys.argv) > 3 else None
        PREFIX = "/git"

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, fmt, *args):
                sys.stderr.write("%s\n" % (fmt % args))

            def do_GET(self):
                self.serve()

            def do_POST(self):
                self.serve()

            def body(self):
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    data = b""
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                        if size == 0:
                            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                                pass
                            return data
                        data += self.rfile.read(size)
                        self.rfile.readline()
                length = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(length) if length else b""

            def reply(self, status, headers, payload):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def serve(self):
                path, _, query = self.path.partition("?")
                data = self.body()
                if LOGIN is not None:
                    given = self.headers.get("Authorization", "")
                    if given != "Basic " + base64.b64encode(LOGIN.encode()).decode():
                        # No body, and close: libgit2 reads no body of a 401 before it asks again.
                        self.close_connection = True
                        self.reply(401, [("WWW-Authenticate", 'Basic realm="cards"'), ("Connection", "close")], b"")
                        return
                if not path.startswith(PREFIX + "/"):
                    self.reply(404, [], b"not found\n")
                    return
                env = {
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "GIT_PROJECT_ROOT": ROOT,
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "GIT_CONFIG_COUNT": "2",
                    "GIT_CONFIG_KEY_0": "safe.directory",
                    "GIT_CONFIG_VALUE_0": "*",
                    "GIT_CONFIG_KEY_1": "http.receivepack",
                    "GIT_CONFIG_VALUE_1": "true",
                    "REQUEST_METHOD": self.command,
                    "PATH_INFO": path[len(PREFIX):],
                    "QUERY_STRING": query,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(data)),
                    "REMOTE_ADDR": self.client_address[0],
                    "REMOTE_USER": "cards",
                }
                if self.headers.get("Content-Encoding"):
                    env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
                if self.headers.get("Git-Protocol"):
                    env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
                result = subprocess.run(["git", "http-backend"], input=data, env=env, capture_output=True)
                sys.stderr.write(result.stderr.decode(errors="replace"))
                separator = b"\r\n\r\n" if b"\r\n\r\n" in result.stdout else b"\n\n"
                head, _, payload = result.stdout.partition(separator)
                status, headers = 200, []
                for line in head.decode(errors="replace").splitlines():
                    name, _, value = line.partition(":")
                    if name.lower() == "status":
                        status = int(value.strip().split()[0])
                    elif name:
                        headers.append((name, value.strip()))
                self.reply(status, headers, payload)

        ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
        """#
}

/// An `ssh-agent` for one test, on its own socket, stopped by its pid.
final class SSHAgent: @unchecked Sendable {
    let socket: String
    private let process: Process

    init(in scratch: Scratch, name: String) throws {
        socket = scratch.path("\(name).sock")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-agent")
        process.arguments = ["-D", "-a", socket]
        process.environment = scratch.environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket) && Date() < deadline { usleep(10_000) }
        guard FileManager.default.fileExists(atPath: socket) else { throw ServerError("ssh-agent made no socket") }
        // The socket file appears at bind, before the agent listens: a connection tried in between is
        // refused. `ssh-add -l` exits 2 while it cannot connect (1: connected, no keys yet).
        while try scratch.run("/usr/bin/ssh-add", ["-l"], extraEnvironment: ["SSH_AUTH_SOCK": socket]).status == 2 {
            guard Date() < deadline else { throw ServerError("ssh-agent does not accept connections on \(socket)") }
            usleep(10_000)
        }
    }

    /// Loads a private key into the agent.
    func add(_ key: String, _ scratch: Scratch) throws {
        let added = try scratch.run("/usr/bin/ssh-add", ["-q", key], extraEnvironment: ["SSH_AUTH_SOCK": socket])
        guard added.status == 0 else { throw ServerError("ssh-add failed: \(added.stderr)") }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Scratch {
    /// The test HOME's ssh config, which `sshCommand` has ssh read.
    var sshConfig: String { home + "/.ssh/config" }

    /// GIT_SSH_COMMAND for git's ssh: this test's config, known_hosts and keys, nothing of the real
    /// ~/.ssh or /etc/ssh (ssh would read those from the passwd home whatever $HOME says).
    var sshCommand: String { "ssh -F '\(sshConfig)'" }

    /// Adds lines to the test HOME's ssh config, made at first with its known_hosts and no prompts.
    func addSSHConfig(_ lines: String) throws {
        let folder = home + "/.ssh"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var text = (try? String(contentsOfFile: sshConfig, encoding: .utf8)) ?? ""
        if text.isEmpty {
            text = """
                Host *
                  UserKnownHostsFile \(folder)/known_hosts
                  GlobalKnownHostsFile /dev/null
                  StrictHostKeyChecking yes
                  BatchMode yes
                  IdentitiesOnly yes

                """
        }
        let indented = lines.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
        try (text + indented + "\n").write(toFile: sshConfig, atomically: true, encoding: .utf8)
    }

    /// Adds a line to the test HOME's `~/.ssh/known_hosts`.
    func trust(line: String) throws {
        let folder = home + "/.ssh"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/known_hosts"
        let old = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        try (old + line + "\n").write(toFile: file, atomically: true, encoding: .utf8)
    }
}
