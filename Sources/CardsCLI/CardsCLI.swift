import CardModel
import CardStore
import Glibc
import SystemCalls

/// The `cards` command line: parses arguments, runs a command on a deck, prints results and
/// errors, and returns the exit status (0 success, 1 failure, 64 usage error).
public enum CardsCLI {
    /// The card fields a command sets through an option of another name (`--url` sets `indexURL`).
    static let optionOfField = ["indexURL": "--url", "platformName": "--platform", "platformIcon": "--icon"]

    /// `error`'s message, the card field at fault followed by the option given for it: "indexURL
    /// (--url): …", so a person sees which of their arguments the store refused.
    static func optionNamed(_ error: StoreError, in arguments: ParsedArguments) -> String {
        guard error.code == .invalidCard, let field = error.field, let option = optionOfField[field],
            arguments.value(option) != nil, let range = error.message.firstRange(of: field + ":")
        else { return error.message }
        var message = error.message
        message.replaceSubrange(range, with: "\(field) (\(option)):")
        return message
    }

    /// The version `cards --version` prints: the one place it is written. `./dev deb` and the consumer
    /// test's tag read it here, and CHANGELOG.md's newest entry must name it (PackagingTests checks).
    public static let version = "2.1.1"

    /// Runs `cards` with the process's arguments and exits with its status.
    public static func main() -> Never {
        // A closed pipe (`cards list | head`) must end writes, not the process.
        signal(SIGPIPE, SIG_IGN)
        let closed = openClosedStandardDescriptors()
        // A person at a terminal is told why a command waits for another's deck lock (scripts are not:
        // the command fails with the holder's name when the wait runs out).
        if isatty(2) == 1 {
            Deck.lockWaitNotice = { notice in
                // As every line printed: the holder's name and the lock's path shown, never acted on.
                let line = Array(Output.visible("cards: \(notice)\n").utf8)
                _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            }
        }
        // Swift turns bytes that are not UTF-8 into U+FFFD without a word: a title would be stored changed.
        if let bad = firstArgumentNotUTF8() {
            let message =
                "argument \(bad.index) is not UTF-8 text ('\(bad.shown)'); cards takes text and paths as UTF-8"
            exit(usageFailure(UsageError(message: message), output: Output(capture: false)))
        }
        let status = run(Array(CommandLine.arguments.dropFirst()), standardOutputClosed: closed.contains(1))
        exit(status)
    }

    /// The first of the process's arguments (counted from 1) whose bytes are not UTF-8, shown with
    /// each such byte as `?`; nil when every one is.
    static func firstArgumentNotUTF8() -> (index: Int, shown: String)? {
        for index in 1..<max(1, Int(CommandLine.argc)) {
            guard let pointer = CommandLine.unsafeArgv[index], String(validatingCString: pointer) == nil else {
                continue
            }
            let text = String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
            let shown = String(text.map { $0 == "\u{FFFD}" ? "?" : $0 }.prefix(60))
            return (index, shown)
        }
        return nil
    }

    /// Opens /dev/null on standard input, output or error when the caller closed them (`cards list >&-`),
    /// and returns which were closed: otherwise the first file a command opens (the deck lock, a pack)
    /// would get the number, and what is printed would be written into it.
    static func openClosedStandardDescriptors() -> Set<Int32> {
        var closed: Set<Int32> = []
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
            if opened >= 0 && opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
            closed.insert(descriptor)
        }
        return closed
    }

    /// Runs one command line (without the program name), writing to the real standard output and
    /// error; returns the exit status. `standardOutputClosed`: the caller closed it, so nothing printed
    /// reaches anyone (an error, as writing to a closed descriptor is).
    public static func run(_ arguments: [String], standardOutputClosed: Bool = false) -> Int32 {
        let output = Output(capture: false, standardOutputClosed: standardOutputClosed)
        let status = run(arguments, output: output)
        if let failure = output.standardOutputFailure {
            output.error(
                "Error: could not write to standard output: \(SystemError.reason(failure)); what it printed is "
                    + "cut short (a change the command made to the deck is made all the same: `cards log -n 1` shows the "
                    + "last one)")
            return status == 0 ? 1 : status
        }
        return status
    }

    /// Runs one command line, capturing what it prints: for in-process tests.
    public static func runCapturing(_ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
        let output = Output(capture: true)
        let status = run(arguments, output: output)
        return (
            status, String(decoding: output.standardOutput, as: UTF8.self),
            String(decoding: output.standardError, as: UTF8.self)
        )
    }

    static func run(_ arguments: [String], output: Output) -> Int32 {
        var context = Context(output: output)
        var rest = arguments[...]
        // Global options come before the command.
        while let first = rest.first, first.hasPrefix("-") {
            if first == "--version" {
                output.print(version)
                return 0
            }
            if first == "-h" || first == "--help" {
                output.print(Commands.topLevelHelp, terminator: "")
                return 0
            }
            if first == "--deck" || first.hasPrefix("--deck=") {
                let inline = first == "--deck" ? nil : String(first.dropFirst("--deck=".count))
                rest = rest.dropFirst()
                guard let value = inline ?? rest.first, !value.isEmpty else {
                    return usageFailure(UsageError(message: "missing value for '--deck <dir>'"), output: output)
                }
                if inline == nil { rest = rest.dropFirst() }
                guard context.deckOption == nil else {
                    return usageFailure(UsageError(message: "'--deck' given more than once"), output: output)
                }
                // The shell leaves `~` after `=` alone: expanded here, as git expands it in its settings.
                context.deckOption = Context.expandingHome(value)
                continue
            }
            let hint = Suggestion.hint(for: first, among: ["--deck", "--version", "--help"])
            return usageFailure(UsageError(message: "unknown option '\(first)'\(hint)"), output: output)
        }
        guard let name = rest.first else {
            // `cards --deck list` took "list" for the folder: say so rather than print the help.
            if let deck = context.deckOption {
                return usageFailure(UsageError(message: "no command after '--deck \(deck)'"), output: output)
            }
            output.print(Commands.topLevelHelp, terminator: "")
            return 0
        }
        rest = rest.dropFirst()
        // Hidden: what the completion scripts and `./dev install` ask (Completion.swift, ManPage.swift).
        if name == "__complete" { return Completion.run(Array(rest), context: &context) }
        if name == "__manpage" {
            output.print(ManPage.text, terminator: "")
            return 0
        }
        guard var command = Commands.all.first(where: { $0.spec.name == name }) else {
            let hint = Suggestion.hint(for: name, among: Commands.all.map(\.spec.name), synonyms: Commands.synonyms)
            return usageFailure(
                UsageError(message: "unknown command '\(name)'\(hint); `cards help` lists the commands"),
                output: output)
        }
        // Two-word commands (`remote add`); the group alone (or with options only) lists, as `git remote` does.
        if let group = Commands.groups[name] {
            let sub = rest.first
            if sub == "-h" || sub == "--help" {
                output.print(command.spec.helpText, terminator: "")
                return 0
            }
            if let sub, !sub.hasPrefix("-") {
                guard let found = group.first(where: { $0.spec.name == "\(name) \(sub)" }) else {
                    let hint = Suggestion.hint(
                        for: sub, among: group.map { String($0.spec.name.dropFirst(name.count + 1)) },
                        synonyms: Commands.subcommandSynonyms)
                    return usageFailure(
                        UsageError(message: "unknown subcommand '\(sub)'\(hint)", command: command.spec),
                        output: output)
                }
                command = found
                rest = rest.dropFirst()
            } else if let listing = group.first(where: { $0.spec.name == "\(name) list" }) {
                command = listing
            } else {
                output.print(command.spec.helpText, terminator: "")
                return 64
            }
        }
        let parsed: ParsedArguments
        do {
            parsed = try command.spec.parse(Array(rest))
        } catch {
            if error.message == "--help" {
                output.print(command.spec.helpText, terminator: "")
                return 0
            }
            return usageFailure(error, output: output)
        }
        if let deck = parsed.deck {
            guard context.deckOption == nil else {
                return usageFailure(
                    UsageError(message: "'--deck' given more than once", command: command.spec), output: output)
            }
            context.deckOption = Context.expandingHome(deck)
        }
        Deck.runsVerifyHooks = !parsed.has("--no-verify")
        // libgit2's TLS and SSH set-up (~8 ms a process) waits for a connection that needs it: fetch,
        // push and clone run it themselves; most commands never connect.
        Deck.deferNetworkSetUp()
        do {
            return try command.run(&context, parsed)
        } catch var error as UsageError {
            if error.command == nil { error.command = command.spec }
            return usageFailure(error, output: output)
        } catch let error as StoreError {
            output.error("Error: \(optionNamed(error, in: parsed))")
            return 1
        } catch let error as CLIError {
            output.error("Error: \(error.message)")
            return error.exitCode
        } catch {
            output.error("Error: \(error)")
            return 1
        }
    }

    static func usageFailure(_ error: UsageError, output: Output) -> Int32 {
        output.error("Error: \(error.message)")
        if let spec = error.command {
            output.error("Usage: cards \(spec.usage)")
            let helpName = spec.name
            output.error("  See 'cards \(helpName) --help' for more information.")
        } else {
            output.error("Usage: cards [--deck <dir>] <command> [options]")
            output.error("  See 'cards --help' for more information.")
        }
        return 64
    }
}

/// What every command gets: where to print, and how to find the deck.
struct Context {
    let output: Output
    /// `--deck DIR`, if given.
    var deckOption: String?

    /// The deck's folder as named: `--deck`, else `$CARDS_DECK` (when not empty); nil for the deck
    /// containing the current folder.
    var deckFolder: String? {
        if let deckOption { return deckOption }
        guard let environment = getenv("CARDS_DECK").map({ String(cString: $0) }), !environment.isEmpty else {
            return nil
        }
        // Quoted where it was set, `~` reaches us as it was written.
        return Context.expandingHome(environment)
    }

    /// The folder a new deck goes in (`init`, `clone`): the one `command` was given, else `--deck`;
    /// both given, they must name one folder.
    func newDeckFolder(given: String?, for command: String) throws(UsageError) -> String? {
        if let given, let deckOption, FileSystem.canonical(given) != FileSystem.canonical(deckOption) {
            throw UsageError(message: "two folders for \(command): --deck \(deckOption) and \(given); give one")
        }
        return given ?? deckOption
    }

    /// The deck to work on: the one `deckFolder` names, else the deck containing the current folder.
    func openDeck() throws(StoreError) -> Deck {
        guard let deckFolder else { return try Deck.open(at: ".", searchUpward: true) }
        do {
            return try Deck.open(at: deckFolder, searchUpward: false)
        } catch  where deckOption == nil && error.code == .notADeck {
            // A folder nobody typed on this command line: say where it came from.
            throw StoreError(error.code, "$CARDS_DECK: " + error.message)
        }
    }

    /// `body`'s result; when it fails because a card is not in the deck, and one of `references` names
    /// a card deleted from it, that is said, with how to bring it back.
    func sayingDeleted<Result>(
        _ references: [String?], in deck: Deck, _ body: () throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        do {
            return try body()
        } catch  where error.code == .cardNotFound {
            // A plain loop, asking each reference once: a lazy `compactMap(...).first` asks twice and unwraps
            // the second answer, which another process deleting or restoring the card meanwhile can make nil.
            var deleted: String?
            for case let reference? in references {
                deleted = deck.deletedCardID(matching: reference)
                if deleted != nil { break }
            }
            guard let deleted else { throw error }
            throw StoreError(error.code, "card \(deleted) was deleted; `cards restore \(deleted)` brings it back")
        }
    }

    /// The full id of the card `reference` names in `deck` (a deleted one said so).
    func resolveCard(_ reference: String, in deck: Deck) throws(StoreError) -> String {
        try sayingDeleted([reference], in: deck) { () throws(StoreError) in try deck.snapshot().resolve(reference) }
    }

    /// The card `reference` names in `deck` (a deleted one said so).
    func card(matching reference: String, in deck: Deck) throws(StoreError) -> Card {
        try sayingDeleted([reference], in: deck) { () throws(StoreError) in
            try deck.snapshot().card(matching: reference)
        }
    }

    /// `path` with a leading `~` or `~/` as the home folder, as a shell would have written it.
    static func expandingHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home = getenv("HOME").map({ String(cString: $0) }),
            !home.isEmpty
        else { return path }
        return home + path.dropFirst()
    }
}

/// A runnable command: its spec and what it does.
struct Command: Sendable {
    var spec: CommandSpec
    var run: @Sendable (inout Context, ParsedArguments) throws -> Int32

    /// The commands that make commits, which take `--no-verify` as `git commit` and `git merge` do.
    static let committing: Set<String> = [
        "add", "edit", "move", "delete", "commit", "import", "undo", "restore", "merge", "resolve", "sync", "swipe",
        "owner",
    ]

    init(spec: CommandSpec, run: @escaping @Sendable (inout Context, ParsedArguments) throws -> Int32) {
        var spec = spec
        if Command.committing.contains(spec.name) {
            spec.options.append(
                .flag("--no-verify", "Do not run the pre-commit, pre-merge-commit and commit-msg hooks (as git's)."))
        }
        self.spec = spec
        self.run = run
    }
}
