import CardStore
import SeededRandom
import CardsCLI
import Glibc

extension Targets {
    /// Commands whose run is exercised: each reaches the deck only through `--deck` or the current folder,
    /// and the fuzzer runs in an empty folder with no deck anywhere above, so every one ends in a usage error
    /// or "not a deck". Left out: those that write somewhere given (`init`, `merge-driver`), read standard
    /// input (`import -`), take over the terminal (`swipe` without an id) or run long (`demo`); their
    /// option parsing is the same parser.
    static let safeCommands = [
        "add", "edit", "move", "delete", "show", "list", "undo", "restore", "log", "status", "commit", "export",
        "fsck", "help", "merge", "conflicts", "resolve",
    ]
    static let unsafeCommands: Set<String> = [
        "init", "merge-driver", "import", "swipe", "demo", "clone", "sync", "bench",
    ]

    static let optionWords = [
        "--title", "--url", "--platform", "--icon", "--color", "--id", "--after", "--before", "--top", "--bottom",
        "--set", "--json", "-n", "--help", "-h", "--version", "--deck", "--policy", "--dry-run", "--field", "--pick",
        "--keep", "--delete", "--message", "-m", "--repair", "--name", "--from", "--bare", "--allow-mass-delete",
        "--", "-", "--title=", "--deck=", "-n5", "--unknown", "---", "-mx",
    ]
    static let valueWords = [
        "", " ", "x", "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f", "3f2a", "../../etc/passwd", ".git", "/", ".", "..",
        "https://example.org", "ftp://x", "mailto:a@b", "red", "#12345g", "title=\"x\"", "pinned=true", "id=\"x\"",
        "x=", "=", "keep", "delete", "-1", "0", "999999999999999999999", "nan", "1e308", "é😀", "\u{202E}rtl",
        "\u{0}", "a\nb", "--title", String(repeating: "a", count: 5_000), "{\"a\":[1,{}]}", "main", "HEAD~1",
        "origin/main", "'; rm -rf /", "$(touch x)",
    ]

    /// The argument parser and every safe command's checks, in-process: exit 0, 1 or 64 only, an
    /// `Error:` line on failure, a usage line on 64, and no file written anywhere.
    static let arguments = Target(name: "args", summary: "CardsCLI argument parsing and command checks, in-process") {
        count, seed, report in
        var random = SplitMix64(seed: seed)
        guard let folder = Workspace.make() else {
            report.failures.append("cannot create a temporary folder")
            return
        }
        defer { Workspace.remove(folder) }
        let previous = Workspace.currentDirectory()
        unsetenv("CARDS_DECK")
        _ = chdir(folder)
        defer { _ = chdir(previous) }
        let commandNames = safeCommands
        for index in 0..<count {
            var argv: [String] = []
            if random.oneIn(6) {
                argv += random.oneIn(2) ? ["--deck", random.pick(valueWords)] : ["--deck=" + random.pick(valueWords)]
            }
            if random.oneIn(30) { argv.append(random.pick(["--version", "--help", "-h", "--bogus"])) }
            if random.oneIn(12) {
                argv.append(junk(&random))
            } else {
                argv.append(random.pick(commandNames))
            }
            if argv.last == "help" && random.oneIn(2) { argv.append(random.pick(commandNames + Array(unsafeCommands))) }
            for _ in 0..<random.below(7) {
                switch random.below(5) {
                case 0, 1: argv.append(random.pick(optionWords))
                case 2: argv.append(random.pick(valueWords))
                case 3: argv.append(random.pick(optionWords) + "=" + random.pick(valueWords))
                default: argv.append(junk(&random))
                }
            }
            // Never let a generated word name a command that writes where it is told.
            if let command = argv.first(where: { !$0.hasPrefix("-") }), unsafeCommands.contains(command),
                argv.first != "help"
            {
                continue
            }
            if argv.contains(where: { unsafeCommands.contains($0) }) && !argv.contains("help") {
                argv = argv.map { unsafeCommands.contains($0) ? "x" + $0 : $0 }
            }
            report.inputs += 1
            let result = CardsCLI.runCapturing(argv)
            let input = Array(argv.joined(separator: " ").utf8)
            switch result.status {
            case 0:
                report.accepted += 1
            case 1:
                if !result.stderr.hasPrefix("Error: ") {
                    report.fail("exit 1 without an Error: line", input, seed: seed, index: index)
                }
            case 64:
                if !result.stderr.hasPrefix("Error: ") || !result.stderr.contains("Usage: cards") {
                    report.fail("usage error without Error: and Usage: lines", input, seed: seed, index: index)
                }
            default:
                report.fail("exit \(result.status)", input, seed: seed, index: index)
            }
        }
        let left = Workspace.list(folder)
        if !left.isEmpty {
            report.failures.append("files appeared in the working folder: \(left.prefix(5).joined(separator: ", "))")
        }
    }

    static func junk(_ random: inout SplitMix64) -> String {
        let alphabet = Array("abcdefxyz-_=./\\:;@ 0129éß😀\u{0}\u{1b}\n\t\"'")
        var text = ""
        for _ in 0..<(1 + random.below(12)) { text.append(random.pick(alphabet)) }
        if safeCommands.contains(text) || unsafeCommands.contains(text) { text += "!" }
        return text
    }
}

/// A private temporary folder for a target, and the few file operations the targets need.
enum Workspace {
    static func make() -> String? {
        var template = Array("/tmp/cards-fuzz-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return mkdtemp(start) != nil
        }
        guard made else { return nil }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func remove(_ folder: String) {
        for name in list(folder) { unlink("\(folder)/\(name)") }
        rmdir(folder)
    }

    static func list(_ folder: String) -> [String] {
        FileSystem.list(folder)
    }

    static func write(_ bytes: [UInt8], to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return }
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    static func read(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let found = buffer.withUnsafeMutableBufferPointer { getcwd($0.baseAddress, $0.count) != nil }
        guard found else { return "/" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
