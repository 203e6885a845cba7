import Foundation
import TestSupport
import Testing

/// The result of running a program.
struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// A scratch folder with its own HOME and git config (never the user's), removed at the end.
final class Scratch: @unchecked Sendable {
    let root: String
    let home: String
    var environment: [String: String]

    init(identity: Bool = true) throws {
        root = try Scratch.makeTemporary()
        home = root + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        var gitconfig = "[init]\n\tdefaultBranch = main\n[safe]\n\tdirectory = *\n"
        if identity { gitconfig += "[user]\n\tname = Test Person\n\temail = test@example.invalid\n" }
        try gitconfig.write(toFile: home + "/.gitconfig", atomically: true, encoding: .utf8)
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("GIT_") || key.hasPrefix("CARDS_") { env[key] = nil }
        env["HOME"] = home
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["GIT_CONFIG_GLOBAL"] = home + "/.gitconfig"
        env["CARDS_FSYNC"] = "0"
        env["NO_COLOR"] = "1"
        environment = env
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    static func makeTemporary() throws -> String {
        var template = Array((TemporaryFolder.path + "/cards-test-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return mkdtemp(start) != nil
        }
        guard made else { throw CocoaError(.fileWriteUnknown) }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Path inside the scratch folder.
    func path(_ name: String) -> String { root + "/" + name }

    /// Runs the built `cards` binary.
    @discardableResult
    func cards(
        _ arguments: [String], in directory: String? = nil, input: Data? = nil, extraEnvironment: [String: String] = [:]
    ) throws -> RunResult {
        try run(Binaries.cards, arguments, in: directory, input: input, extraEnvironment: extraEnvironment)
    }

    /// Runs the git CLI.
    @discardableResult
    func git(_ arguments: [String], in directory: String) throws -> RunResult {
        try run("/usr/bin/git", arguments, in: directory)
    }

    @discardableResult
    func run(
        _ program: String, _ arguments: [String], in directory: String? = nil, input: Data? = nil,
        extraEnvironment: [String: String] = [:]
    ) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? root)
        var env = environment
        for (key, value) in extraEnvironment { env[key] = value }
        process.environment = env
        // Output goes to files, so a large output can never block the child on a full pipe.
        let serial = Scratch.nextSerial()
        let outPath = root + "/.out-\(serial)"
        let errPath = root + "/.err-\(serial)"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(input) }
        try inPipe.fileHandleForWriting.close()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let outData = FileManager.default.contents(atPath: outPath) ?? Data()
        let errData = FileManager.default.contents(atPath: errPath) ?? Data()
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    private static let serialLock = NSLock()
    nonisolated(unsafe) private static var serial = 0
    static func nextSerial() -> Int {
        serialLock.lock()
        defer { serialLock.unlock() }
        serial += 1
        return serial
    }

    /// Creates a deck from the bundled sample and returns its path.
    func sampleDeck(_ name: String = "deck") throws -> String {
        let deck = path(name)
        let result = try cards(["init", deck, "--from", Binaries.sampleRepo])
        #expect(result.status == 0, "init --from failed: \(result.stderr)")
        return deck
    }

    /// The commit ids of `main`, newest first, as the git CLI sees them.
    func commits(_ deck: String) throws -> [String] {
        try git(["rev-list", "main"], in: deck).stdout.split(separator: "\n").map(String.init)
    }

    /// Asserts what a user checks after every command: a clean `git status` and a clean `git fsck --strict`.
    func expectClean(_ deck: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let status = try git(["status", "--porcelain"], in: deck)
        #expect(
            status.status == 0 && status.stdout.isEmpty, "git status is not clean: \(status.stdout)",
            sourceLocation: sourceLocation)
        let fsck = try git(["fsck", "--strict", "--no-dangling"], in: deck)
        #expect(
            fsck.status == 0, "git fsck --strict failed: \(fsck.stdout)\(fsck.stderr)", sourceLocation: sourceLocation)
    }

    /// A fingerprint of a deck: the commit of main and every file in the working tree with its bytes.
    func fingerprint(_ deck: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        result["<main>"] = Data(try git(["rev-parse", "main"], in: deck).stdout.utf8)
        result["<index>"] = Data(try git(["ls-files", "-s"], in: deck).stdout.utf8)
        let enumerator = FileManager.default.enumerator(atPath: deck)
        while let item = enumerator?.nextObject() as? String {
            if item.hasPrefix(".git/") || item == ".git" { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: deck + "/" + item, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                result[item] = FileManager.default.contents(atPath: deck + "/" + item)
            }
        }
        return result
    }
}

/// Writes a file through a close-on-exec descriptor. Foundation's writes are not close-on-exec, so a
/// program another test spawns at that moment inherits the file and holds it open for its lifetime:
/// fatal for a test that then asks which process holds a lock file, or frees space by unlinking.
/// A failure is recorded as an issue here, not left to show up later as a puzzling one.
func writeFileCloseOnExec(_ path: String, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
        Issue.record("cannot create \(path): \(String(cString: strerror(errno)))", sourceLocation: sourceLocation)
        return
    }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    if written != bytes.count {
        Issue.record("wrote \(written) of \(bytes.count) bytes to \(path)", sourceLocation: sourceLocation)
    }
}

/// Runs a program with posix_spawn and waitpid, output to a file: for programs that leave a daemon
/// behind (tmux), which Foundation's `Process` may wait on forever.
func spawnAndWait(_ program: String, _ arguments: [String], environment: [String: String], outputFile: String) -> (
    status: Int32, output: String
) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for pointer in argv { free(pointer) }
        for pointer in envp { free(pointer) }
    }
    // Unblocked signals at their defaults: a tmux server left by the completion test otherwise ignored
    // SIGTERM and outlived the run.
    var attributes = ChildProcess.shellLikeSignals()
    defer { posix_spawnattr_destroy(&attributes) }
    var pid: pid_t = 0
    guard posix_spawn(&pid, program, &actions, &attributes, argv, envp) == 0 else { return (-1, "") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let output = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
    let exited = (status & 0x7f) == 0
    return (exited ? (status >> 8) & 0xff : -1, output)
}

/// Where the built binary and the bundled sample are.
enum Binaries {
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static let cards: String = {
        if let path = ProcessInfo.processInfo.environment["CARDS_BIN"], !path.isEmpty { return path }
        return packageRoot + "/.build/debug/cards"
    }()

    static let sampleRepo = packageRoot + "/sample-repo"
}

extension Scratch {
    /// A bare deck of the sample, `remote.git`, and clones of it made by `cards clone`, by name.
    func remoteAndClones(_ names: [String]) throws -> (remote: String, clones: [String]) {
        let remote = path("remote.git")
        #expect(try cards(["init", "--bare", remote, "--from", Binaries.sampleRepo]).status == 0)
        let clones = names.map { path($0) }
        for clone in clones { #expect(try cards(["clone", remote, clone]).status == 0) }
        return (remote, clones)
    }
}
