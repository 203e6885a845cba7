@testable import CardsCLI
import Testing

/// The command line's usage, help and exit statuses, run in-process (`CardsCLI.runCapturing`), as
/// swift-argument-parser tests its parsers: no `cards` process and no deck for what needs neither. The
/// process-level suites (IntegrationTests) keep what needs signals, terminals, two processes or a deck.
@Suite("Usage, help and exit statuses, in-process")
struct UsageTests {
    /// Every command's name (two-word ones such as `remote add` as two arguments).
    static let commandNames: [[String]] = Commands.all.map { $0.spec.name.split(separator: " ").map(String.init) }

    @Test("every command's --help prints its overview and usage on standard output and exits 0")
    func helpOfEveryCommand() {
        #expect(Self.commandNames.count >= 20, "the commands are listed")
        for name in Self.commandNames {
            let result = CardsCLI.runCapturing(name + ["--help"])
            #expect(result.status == 0, "cards \(name.joined(separator: " ")) --help")
            #expect(result.stdout.hasPrefix("OVERVIEW: "), "cards \(name.joined(separator: " ")) --help")
            #expect(result.stdout.contains("USAGE: cards \(name.joined(separator: " "))"))
            #expect(result.stderr.isEmpty)
        }
    }

    @Test("an unknown option is a usage error (64) naming it, with the command's usage")
    func unknownOption() {
        for name in Self.commandNames {
            let result = CardsCLI.runCapturing(name + ["--no-such-option"])
            #expect(result.status == 64, "cards \(name.joined(separator: " ")) --no-such-option")
            #expect(result.stderr.hasPrefix("Error: unknown option '--no-such-option'"))
            // `cards remote` alone is `cards remote list`, as `git remote` is: its usage is that one's.
            #expect(result.stderr.contains("See 'cards \(name[0])"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test(
        "top-level usage: version, help, a misspelt command, a bare --deck",
        arguments: [
            (["--version"], Int32(0), CardsCLI.version + "\n", ""),
            (["lsit"], 64, "", "Error: unknown command 'lsit' (did you mean 'list'?)"),
            (["--deck"], 64, "", "Error: missing value for '--deck <dir>'"),
            (["--deck", "/tmp"], 64, "", "Error: no command after '--deck /tmp'"),
            (["--deck", "a", "--deck", "b", "list"], 64, "", "Error: '--deck' given more than once"),
            (["--verbose"], 64, "", "Error: unknown option '--verbose'"),
            (["add"], 64, "", "Error: missing '--title <title>'"),
        ])
    func topLevel(arguments: [String], status: Int32, stdout: String, stderrStart: String) {
        let result = CardsCLI.runCapturing(arguments)
        #expect(result.status == status)
        if !stdout.isEmpty { #expect(result.stdout == stdout) }
        #expect(result.stderr.hasPrefix(stderrStart), "\(result.stderr)")
    }

    @Test("help with no command lists every command")
    func topLevelHelp() {
        let result = CardsCLI.runCapturing(["--help"])
        #expect(result.status == 0)
        for name in Self.commandNames where name.count == 1 {
            #expect(result.stdout.contains(name[0]), "\(name[0]) is in cards --help")
        }
    }
}
