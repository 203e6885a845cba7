import CGit2
import CLinux
import Glibc
import SystemCalls

/// One run of the `git` executable for a fetch, push or clone: spawned with an argument array (no
/// shell), its standard output and error read through pipes, watched for silence and interruption.
/// The network goes through git's own client so that everything the user's `git` honours (OpenSSH
/// and ~/.ssh/config, credential helpers, proxies, CA settings, `url.*`, hooks of local remotes)
/// works the same here; libgit2 keeps every commit, merge and read.
struct GitProcess {
    /// What the run left behind.
    struct Outcome {
        /// The exit status; for a child killed by a signal, 128 + its number (as a shell says it).
        var status: Int32
        /// Everything written on standard output (`--porcelain` status lines).
        var output: [UInt8]
        /// Standard error as lines: a line git redrew with `\r` (progress) counts by its last state.
        var errorLines: [String]
        /// The child was stopped because it said nothing for `stallTimeout` seconds.
        var stalled: Bool
        /// The child was stopped because the caller was interrupted (`isInterrupted`).
        var interrupted: Bool
    }

    /// The `git` found on `PATH` (as a shell would find it), or nil where none is installed.
    static let executable: String? = lookUp("git")

    /// The program `name` found on `PATH` as a shell finds it (the first executable of that name), or nil.
    static func lookUp(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The default silence after which a transfer is given up (CARDS_NETWORK_TIMEOUT overrides it).
    static let defaultStallTimeout = 60.0

    var arguments: [String]
    /// The folder git runs in (a relative remote path counts from here, as it does for git).
    var directory: String
    /// Variables set (a value) or removed (nil) on top of this process's environment.
    var environment: [String: String?] = [:]
    /// Seconds without a byte from git after which it is stopped.
    var stallTimeout: Double
    /// Whether progress goes on to this process's standard error as it comes (a terminal).
    var forwardProgress = false
    /// Asked a few times a second: true stops git (the caller caught a signal).
    var isInterrupted: (@Sendable () -> Bool)?
    /// Another program to run in git's place, by absolute path (a signing program: `gpg`, `ssh-keygen`).
    var program: String?
    /// A descriptor to read standard input from (the data to sign); nil: this process's own on a
    /// terminal, else none.
    var input: Int32?

    /// A git that `start` set going and nobody watches yet: what it writes waits in its pipes (git
    /// waits when they are full) until `watch`, or `stop` ends it.
    struct Running {
        /// Its process id.
        let pid: pid_t
        /// The read ends of its standard output and standard error.
        let output: Int32
        let error: Int32
    }

    /// Runs git to the end (or until stopped); throws only when it could not be started.
    func run() throws(GitError) -> Outcome {
        watch(try start())
    }

    /// Starts git and returns at once; `watch` then reads it to the end, or `stop` ends it.
    /// Throws only when it could not be started.
    func start() throws(GitError) -> Running {
        guard let git = program ?? GitProcess.executable else {
            throw GitError(
                code: .notFound, message: "no `git` executable on PATH: install git (Debian: `apt-get install git`)",
                function: "posix_spawn")
        }
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&outputPipe) == 0 else { throw GitProcess.failure("pipe2") }
        guard clinux_pipe_cloexec(&errorPipe) == 0 else {
            close(outputPipe[0])
            close(outputPipe[1])
            throw GitProcess.failure("pipe2")
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([git] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = childEnvironment().map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        // git may ask on a terminal (a passphrase, a password): then its standard input is ours; in a
        // script it gets none, and GIT_TERMINAL_PROMPT=0 (see `childEnvironment`) says so.
        let pid = clinux_spawn(
            git, argv, envp, directory, input ?? (isatty(0) == 0 ? -1 : -2), outputPipe[1], errorPipe[1])
        let spawnError = errno
        close(outputPipe[1])
        close(errorPipe[1])
        guard pid > 0 else {
            close(outputPipe[0])
            close(errorPipe[0])
            throw GitError(
                code: .system(spawnError), message: "could not run \(git): \(SystemError.reason(spawnError))",
                function: "fork")
        }
        return Running(pid: pid, output: outputPipe[0], error: errorPipe[0])
    }

    /// Ends a started git nobody will watch: TERM to it and what it started, its pipes closed (a git
    /// still writing gets SIGPIPE), KILL after 2 seconds, then reaped.
    static func stop(_ running: Running) {
        signalTree(running.pid, SIGTERM)
        close(running.output)
        close(running.error)
        let deadline = MonotonicClock.now() + 2
        var status: Int32 = 0
        while true {
            let reaped = waitpid(running.pid, &status, WNOHANG)
            if reaped == running.pid || (reaped < 0 && errno != EINTR) { return }
            if MonotonicClock.now() > deadline {
                signalTree(running.pid, SIGKILL)
                while waitpid(running.pid, &status, 0) < 0 && errno == EINTR {}
                return
            }
            usleep(2_000)
        }
    }

    /// This process's environment with `environment` applied; git never prompts where nobody can
    /// answer, and speaks English, whose messages `GitReply` reads.
    func childEnvironment() -> [String] {
        var changes = environment
        if isatty(0) == 0 && isatty(2) == 0 { changes["GIT_TERMINAL_PROMPT"] = "0" }
        changes["LC_ALL"] = "C"
        changes["LANGUAGE"] = nil
        return GitProcess.environment(applying: changes)
    }

    /// This process's environment, "NAME=value" each in its order, with `changes` set (a value, added at
    /// the end when new) or removed (nil).
    static func environment(applying changes: [String: String?]) -> [String] {
        var variables: [String: String] = [:]
        var order: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if variables[name] == nil { order.append(name) }
                variables[name] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            if variables[name] == nil && value != nil { order.append(name) }
            variables[name] = value ?? nil
        }
        return order.compactMap { name in variables[name].map { "\(name)=\($0)" } }
    }

    /// Reads both pipes of a started git until it is done, stopping it when it stalls or the caller is
    /// interrupted (the silence counted from here).
    func watch(_ running: Running) -> Outcome {
        let (pid, output, error) = (running.pid, running.output, running.error)
        var outcome = Outcome(status: 0, output: [], errorLines: [], stalled: false, interrupted: false)
        var lines = LineSplitter()
        var open = [output, error]
        var lastHeard = MonotonicClock.now()
        var stopping: (since: Double, killed: Bool)?
        var exited: (status: Int32, at: Double)?
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            for item in fds where item.revents != 0 {
                let count = read(item.fd, &buffer, buffer.count)
                if count <= 0 {
                    if count == 0 || (errno != EINTR && errno != EAGAIN) {
                        close(item.fd)
                        open.removeAll { $0 == item.fd }
                    }
                    continue
                }
                lastHeard = MonotonicClock.now()
                let bytes = buffer[0..<count]
                if item.fd == output {
                    outcome.output += bytes
                } else {
                    for segment in lines.feed(bytes) {
                        if forwardProgress && GitReply.isProgress(segment.text) {
                            GitProcess.writeVisible(segment.text + segment.end)
                        }
                        if segment.end == "\n" || !GitReply.isProgress(segment.text) {
                            outcome.errorLines.append(segment.text)
                        }
                    }
                }
            }
            let now = MonotonicClock.now()
            if exited == nil {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid { exited = (GitProcess.exitStatus(status), now) }
            }
            // git is gone but something it started (ssh) still holds a pipe: what it says no longer matters.
            if let exited, now - exited.at > 2 { break }
            if exited == nil {
                if stopping == nil && isInterrupted?() == true {
                    outcome.interrupted = true
                    stopping = (now, false)
                    GitProcess.signalTree(pid, SIGTERM)
                }
                if stopping == nil && now - lastHeard > stallTimeout {
                    outcome.stalled = true
                    stopping = (now, false)
                    GitProcess.signalTree(pid, SIGTERM)
                }
                if let since = stopping, !since.killed, now - since.since > 2 {
                    stopping = (since.since, true)
                    GitProcess.signalTree(pid, SIGKILL)
                }
            }
        }
        for fd in open { close(fd) }
        if let rest = lines.rest { outcome.errorLines.append(rest) }
        if let exited {
            outcome.status = exited.status
        } else {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            outcome.status = GitProcess.exitStatus(status)
        }
        return outcome
    }

    /// Sends `signal` to `pid` and to every process under it (git's transport helpers and ssh, which a
    /// killed git would leave running against a silent server).
    static func signalTree(_ pid: pid_t, _ signal: Int32) {
        var parents: [pid_t: pid_t] = [:]
        if let folder = opendir("/proc") {
            while let entry = readdir(folder) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard let child = pid_t(name), let stat = GitProcess.readSmall("/proc/\(name)/stat") else { continue }
                // "pid (command) state ppid ...": the command may hold spaces and parentheses.
                guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { continue }
                let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
                if fields.count > 1, let parent = pid_t(String(decoding: fields[1], as: UTF8.self)) {
                    parents[child] = parent
                }
            }
            closedir(folder)
        }
        var tree = [pid]
        var index = 0
        while index < tree.count {
            let parent = tree[index]
            tree += parents.filter { $0.value == parent }.map(\.key)
            index += 1
        }
        for member in tree.reversed() { kill(member, signal) }
    }

    /// The first few KiB of a file, or nil when it cannot be read.
    static func readSmall(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = read(fd, &bytes, bytes.count)
        return count > 0 ? Array(bytes[0..<count]) : nil
    }

    static func exitStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Writes text to standard error with control characters other than `\r`, `\n` and tab left out:
    /// a server's progress must not move our terminal's cursor or change its colours.
    static func writeVisible(_ text: String) {
        let bytes = Array(text.utf8).filter { $0 >= 0x20 && $0 != 0x7F || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    static func failure(_ function: String) -> GitError {
        GitError(
            code: .system(errno), message: "\(function) failed: \(SystemError.reason(errno))", function: function
        )
    }
}

/// Cuts a byte stream into segments ended by `\n` or `\r` (git redraws progress with `\r`).
struct LineSplitter {
    private var pending: [UInt8] = []
    /// At most this many bytes in a line, so that a server cannot fill our memory with one.
    private let limit = 16_384

    mutating func feed(_ bytes: ArraySlice<UInt8>) -> [(text: String, end: String)] {
        var segments: [(text: String, end: String)] = []
        for byte in bytes {
            if byte == 0x0A || byte == 0x0D {
                segments.append((String(decoding: pending, as: UTF8.self), byte == 0x0A ? "\n" : "\r"))
                pending.removeAll(keepingCapacity: true)
            } else if pending.count < limit {
                pending.append(byte)
            }
        }
        return segments
    }

    /// What came after the last line end.
    var rest: String? { pending.isEmpty ? nil : String(decoding: pending, as: UTF8.self) }
}
