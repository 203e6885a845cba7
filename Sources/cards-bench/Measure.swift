import CardStore
import Glibc

/// What one child process cost.
struct ProcessRun {
    /// Wall-clock time in milliseconds.
    var milliseconds: Double
    /// Peak resident memory in kilobytes: the child's own, as `/usr/bin/time` reports it, when the run
    /// went through it (`peakOwn`); else `ru_maxrss` from `wait4`, which is at least this benchmark's
    /// own peak (the kernel carries the spawning process's high-water mark across the `exec`).
    var peakKilobytes: Int
    /// The exit status.
    var status: Int32
}

/// Timing, child processes and memory figures for the benchmark.
enum Measure {
    /// Monotonic time in milliseconds.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) * 1000 + Double(spec.tv_nsec) / 1e6
    }

    /// CPU time (user + system) this process has used, in milliseconds: beside the wall clock, it
    /// tells computing from waiting for the disk.
    static func cpuMilliseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) * 1000 + Double(usage.ru_utime.tv_usec) / 1000
        return user + Double(usage.ru_stime.tv_sec) * 1000 + Double(usage.ru_stime.tv_usec) / 1000
    }

    /// Milliseconds `body` takes.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return now() - start
    }

    /// The median of some samples.
    static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Resets this process's peak RSS (Linux ≥ 4.0), so the next `peakKilobytes` is the peak since now.
    static func resetPeak() {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return }
        _ = "5".withCString { write(fd, $0, 1) }
        close(fd)
    }

    /// This process's peak RSS in kilobytes (VmHWM).
    static func peakKilobytes() -> Int {
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return 0 }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    /// Runs a program (looked up on PATH when not a path), output discarded unless
    /// `capture`, and returns its cost and (captured) standard output.
    @discardableResult
    static func run(
        _ program: String, _ arguments: [String], input: String? = nil, capture: Bool = false, peakOwn: Bool = false
    ) -> (run: ProcessRun, output: String) {
        // The child's own peak: /usr/bin/time, small itself, forks and waits for it (one fork more,
        // ~0.5 ms, so timed runs of short commands do not use it).
        let peakFile = "/tmp/cards-bench-peak-\(getpid())"
        if peakOwn && access("/usr/bin/time", X_OK) == 0 {
            var wrapped = run(
                "/usr/bin/time", ["-f", "%M", "-o", peakFile, program] + arguments, input: input, capture: capture)
            if let text = try? FileSystem.read(peakFile),
                let kilobytes = Int(String(decoding: text, as: UTF8.self).split(separator: "\n").last ?? "")
            {
                wrapped.run.peakKilobytes = kilobytes
            }
            unlink(peakFile)
            return wrapped
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var outPipe: [Int32] = [-1, -1]
        if capture {
            _ = pipe(&outPipe)
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_addclose(&actions, outPipe[0])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if let input {
            posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = now()
        let spawned = posix_spawnp(&pid, program, &actions, nil, argv, environ)
        if capture { close(outPipe[1]) }
        guard spawned == 0 else {
            if capture { close(outPipe[0]) }
            return (ProcessRun(milliseconds: 0, peakKilobytes: 0, status: -1), "")
        }
        var output: [UInt8] = []
        if capture {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(outPipe[0], $0.baseAddress, $0.count) }
                if count <= 0 { break }
                output += chunk[0..<count]
            }
            close(outPipe[0])
        }
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        let elapsed = now() - start
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
        return (
            ProcessRun(milliseconds: elapsed, peakKilobytes: Int(usage.ru_maxrss), status: exit),
            String(decoding: output, as: UTF8.self)
        )
    }

    /// Runs a program and stops the benchmark when it fails.
    @discardableResult
    static func must(_ program: String, _ arguments: [String], input: String? = nil) -> ProcessRun {
        let result = run(program, arguments, input: input)
        if result.run.status != 0 {
            fail("\(program) \(arguments.joined(separator: " ")) failed (exit \(result.run.status))")
        }
        return result.run
    }
}

/// Prints an error and exits 1.
func fail(_ message: String) -> Never {
    writeError("cards-bench: \(message)\n")
    exit(1)
}

/// Writes to standard error.
func writeError(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

/// Progress on standard error.
func note(_ message: String) {
    writeError("  \(message)\n")
}
