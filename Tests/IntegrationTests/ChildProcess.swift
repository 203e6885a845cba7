import TestSupport
import Foundation
import Glibc

/// A child process started with `posix_spawn` and reaped only by `wait()`, so the test can send it a
/// signal at any moment without racing a background reaper (the pid stays ours until we wait).
final class ChildProcess {
    /// How a child ended.
    enum Ending: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// What `wait()` reports.
    struct Result {
        var ending: Ending
        var stdout: String
        var stderr: String
        /// Wall time from start to exit, in seconds.
        var seconds: Double

        var status: Int32? {
            if case .exited(let code) = ending { return code }
            return nil
        }
        var wasKilled: Bool { ending == .signalled(SIGKILL) }
    }

    let pid: pid_t
    let started: Double
    private let outPath: String
    private let errPath: String
    private var reaped = false

    /// Whether the child leads a process group of its own (`waitForGroup`).
    let leadsGroup: Bool

    /// Starts `program` with `arguments` in `directory`, with exactly `environment`; standard input is
    /// /dev/null, output goes to files under `scratchDirectory`. `ownGroup`: in a process group of its
    /// own, so that what it starts can be waited for after it is killed (`waitForGroup`).
    init(
        _ program: String, _ arguments: [String], directory: String, environment: [String: String],
        scratchDirectory: String, ownGroup: Bool = false
    ) throws {
        leadsGroup = ownGroup
        let serial = Scratch.nextSerial()
        outPath = "\(scratchDirectory)/.child-out-\(serial)"
        errPath = "\(scratchDirectory)/.child-err-\(serial)"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // posix_spawn_file_actions_addchdir_np is not visible from Swift's Glibc: a shell changes
        // folder and then execs the program, which keeps the shell's pid.
        let shellArguments = ["/bin/sh", "-c", "cd -- \"$0\" && exec \"$@\"", directory, program] + arguments
        let argv = shellArguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var attributes = ChildProcess.shellLikeSignals()
        defer { posix_spawnattr_destroy(&attributes) }
        if ownGroup {
            var flags: Int16 = 0
            posix_spawnattr_getflags(&attributes, &flags)
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, flags | Int16(POSIX_SPAWN_SETPGROUP))
        }
        var child: pid_t = 0
        started = ChildProcess.now()
        let result = posix_spawn(&child, "/bin/sh", &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw NSError(
                domain: "ChildProcess", code: Int(result),
                userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(program): \(String(cString: strerror(result)))"])
        }
        pid = child
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        unlink(outPath)
        unlink(errPath)
    }

    /// Sends a signal; harmless when the child already exited (it is a zombie until `wait`).
    func signal(_ number: Int32) {
        if !reaped { kill(pid, number) }
    }

    /// Waits for the child to end and collects what it printed; after `timeout` seconds it is
    /// killed (SIGKILL) and reported as signalled.
    func wait(timeout: Double? = nil) -> Result {
        var status: Int32 = 0
        if let timeout {
            let deadline = ChildProcess.now() + timeout
            while true {
                let done = waitpid(pid, &status, WNOHANG)
                if done == pid { break }
                if done < 0 && errno != EINTR { break }
                if ChildProcess.now() >= deadline {
                    kill(pid, SIGKILL)
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                    break
                }
                usleep(10_000)
            }
        } else {
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        let ended = ChildProcess.now()
        reaped = true
        let ending: Ending
        // WIFEXITED / WTERMSIG are macros Swift does not import.
        if status & 0x7f == 0 {
            ending = .exited((status >> 8) & 0xff)
        } else {
            ending = .signalled(status & 0x7f)
        }
        let out = FileManager.default.contents(atPath: outPath) ?? Data()
        let err = FileManager.default.contents(atPath: errPath) ?? Data()
        return Result(
            ending: ending, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self),
            seconds: ended - started)
    }

    /// After `wait`: waits until nothing of the child's process group is left (a killed `cards sync`'s
    /// `git push` goes on and moves the remote), killing what is left after `timeout` seconds. Returns
    /// whether anything outlived the child.
    @discardableResult
    func waitForGroup(timeout: Double = 30) -> Bool {
        guard leadsGroup else { return false }
        let deadline = ChildProcess.now() + timeout
        var outlived = false
        while kill(-pid, 0) == 0 || errno == EPERM {
            outlived = true
            if ChildProcess.now() >= deadline {
                kill(-pid, SIGKILL)
                usleep(100_000)
                break
            }
            usleep(10_000)
        }
        return outlived
    }

    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

extension ChildProcess {
    /// Spawn attributes that start a child as from a shell: the test runner's threads may block or ignore
    /// signals, which a child inherits (a test's SIGINT would not reach it, and a daemon it leaves, such
    /// as a tmux server, would ignore SIGTERM and outlive the run). The caller destroys them.
    static func shellLikeSignals() -> posix_spawnattr_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return attributes
    }
}

extension Scratch {
    /// Starts the built `cards` binary without waiting for it.
    func startCards(
        _ arguments: [String], in directory: String, extraEnvironment: [String: String] = [:], ownGroup: Bool = false
    ) throws -> ChildProcess {
        var env = environment
        for (key, value) in extraEnvironment { env[key] = value }
        return try ChildProcess(
            Binaries.cards, arguments, directory: directory, environment: env, scratchDirectory: root,
            ownGroup: ownGroup)
    }
}

extension Scratch {
    /// Runs the built `cards` binary under GNU time to learn its peak memory (KiB), or nil when
    /// /usr/bin/time is missing. (wait4's ru_maxrss cannot be used: a child spawned from the big test
    /// process counts that process's memory from before its exec.)
    func cardsPeakMemory(_ arguments: [String], in directory: String) throws -> (RunResult, Int?) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            return (try cards(arguments, in: directory), nil)
        }
        let report = root + "/.time-\(Scratch.nextSerial())"
        defer { unlink(report) }
        let result = try run("/usr/bin/time", ["-f", "%M", "-o", report, Binaries.cards] + arguments, in: directory)
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        let peak = text.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.last
        return (result, peak)
    }
}

/// A count taken from the environment (`CARDS_KILLS=200`), else a default sized for CI.
func environmentCount(_ name: String, default value: Int) -> Int {
    if let text = ProcessInfo.processInfo.environment[name], let number = Int(text), number >= 0 { return number }
    return value
}

/// A seed from the environment (`CARDS_SEED=…` replays a run), else a fresh one; printed by the caller.
func environmentSeed(_ name: String = "CARDS_SEED") -> UInt64 {
    if let text = ProcessInfo.processInfo.environment[name], let number = UInt64(text) { return number }
    return UInt64.random(in: 1...UInt64.max)
}

/// Helpers on the shared SplitMix64 (TestSupport).
extension SplitMix64 {
    /// A lowercase UUID drawn from this generator.
    mutating func uuid() -> String {
        let a = next()
        let b = next()
        let hex = String(format: "%016llx%016llx", a, b)
        let chars = Array(hex)
        func part(_ range: Range<Int>) -> String { String(chars[range]) }
        return "\(part(0..<8))-\(part(8..<12))-4\(part(13..<16))-8\(part(17..<20))-\(part(20..<32))"
    }
}

/// Figures a reliability test prints and, when `CARDS_FIGURES` names a file, appends there as one
/// JSON line, so `./dev reliability` can collect the figures of the run for docs/RELIABILITY.md.
func reportFigures(_ name: String, _ figures: [String: Any]) {
    var line = figures
    line["test"] = name
    let text =
        (try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])).map {
            String(decoding: $0, as: UTF8.self)
        } ?? "{}"
    print("FIGURES \(text)")
    if let path = ProcessInfo.processInfo.environment["CARDS_FIGURES"], !path.isEmpty,
        let handle = FileHandle(forWritingAtPath: path)
            ?? {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                return FileHandle(forWritingAtPath: path)
            }()
    {
        handle.seekToEndOfFile()
        handle.write(Data((text + "\n").utf8))
        try? handle.close()
    }
}
