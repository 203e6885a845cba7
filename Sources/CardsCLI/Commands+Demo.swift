import CardModel
import CardStore
import Glibc

extension Commands {
    static let demoCommand = Command(
        spec: CommandSpec(
            name: "demo", abstract: "Run the main job on the bundled sample-repo/ in a temporary folder, narrated.",
            usage: "demo [--sample <dir>] [--keep]",
            options: [
                .value(
                    "--sample", "dir",
                    "The sample deck folder (default: sample-repo/ here or beside the binary's package)."),
                .flag("--keep", "Keep the temporary folder (its path is printed)."),
            ])
    ) { context, arguments in
        let sample = try locateSample(arguments.value("--sample"))
        // Ctrl-C stops the demo after the step under way, its folder removed (unless kept), then ends it
        // as the signal would; one that comes after the last step is let go.
        Interruption.begin()
        let demo = DemoNarrator(output: context.output)
        defer { Interruption.end(stopped: demo.wasInterrupted) }
        let root = try FileSystem.makeTemporaryDirectory(prefix: "cards-demo-")
        defer { if !arguments.has("--keep") { FileSystem.removeTree(root) } }
        demo.folderOnInterrupt = arguments.has("--keep") ? "its decks are kept in \(root)" : "its folder is removed"
        // The demo must run on a machine with no git identity configured.
        setenv("CARDS_AUTHOR_NAME", "CardDeck Demo", 0)
        setenv("CARDS_AUTHOR_EMAIL", "demo@carddeck.invalid", 0)
        let remote = "\(root)/remote.git"
        let laptop = "\(root)/laptop"
        let phone = "\(root)/phone"
        demo.say("CardDeck demo in \(root): one deck, a git remote, two devices.")

        demo.step(
            "A \"remote\": a bare git repository made from the bundled sample deck (any git server works the same).")
        try demo.run(["init", "--bare", remote, "--from", sample])
        demo.step("Two devices clone it: a laptop and a phone.")
        try demo.run(["clone", remote, laptop])
        try demo.run(["clone", remote, phone])
        try demo.run(["--deck", laptop, "list"])

        let ids = try demo.run(["--deck", laptop, "list", "--json"], echo: false)
        let cards = (try? JSONValue.parse(Array(ids.utf8)))?.arrayValue ?? []
        guard cards.count >= 2, let swiped = cards[1]["id"]?.stringValue, let shared = cards[0]["id"]?.stringValue
        else {
            throw CLIError(message: "the sample deck needs at least two cards")
        }
        let swipedShort = String(swiped.prefix(8))
        let sharedShort = String(shared.prefix(8))

        demo.step(
            "On the laptop, swipe the second card to the left (a scripted drag through the gesture engine): it is deleted, one commit."
        )
        try demo.run([
            "--deck", laptop, "swipe", swipedShort, "--drag", "0:0,0 0.01:-40,1 0.02:-110,2 0.03:-190,3 0.04:-200,3",
            "--json",
        ])

        demo.step("Meanwhile both devices edit the first card, offline: a different field each, and the title on both.")
        try demo.run(["--deck", laptop, "edit", sharedShort, "--color", "teal", "--title", "Ada (from the laptop)"])
        try demo.run([
            "--deck", phone, "edit", sharedShort, "--platform", "GitHub (phone)", "--title", "Ada (from the phone)",
        ])

        demo.step("The laptop syncs first: its changes go to the remote.")
        try demo.run(["--deck", laptop, "sync"])
        demo.step("The phone syncs: it fetches, merges card by card and field by field, and pushes the merge.")
        try demo.run(["--deck", phone, "sync"])

        demo.step(
            "The merged card: both devices' different fields are in; the title had two values, one was kept and the other recorded."
        )
        try demo.run(["--deck", phone, "show", sharedShort])
        try demo.run(["--deck", phone, "conflicts"])

        demo.step("Settle the title as an ordinary commit (choice 1), and sync both devices.")
        try demo.run(["--deck", phone, "resolve", sharedShort, "--field", "title", "--pick", "1"])
        try demo.run(["--deck", phone, "sync"])
        try demo.run(["--deck", laptop, "sync"])

        demo.step("Both decks are now identical, card for card and commit for commit.")
        let laptopExport = try demo.run(["--deck", laptop, "export"], echo: false)
        let phoneExport = try demo.run(["--deck", phone, "export"], echo: false)
        let laptopHead = try Deck.open(at: laptop, searchUpward: false).headCommit()
        let phoneHead = try Deck.open(at: phone, searchUpward: false).headCommit()
        guard laptopExport == phoneExport, laptopHead == phoneHead, let head = laptopHead else {
            throw CLIError(message: "the demo's decks differ after syncing: this is a bug, please report it")
        }
        let count = cards.count - 1
        demo.say(
            "  laptop and phone: \(count) cards, main at \(head.short) on both; the swiped card is in history (`cards restore \(swipedShort)`)."
        )
        try demo.run(["--deck", laptop, "log", "-n", "6"])
        demo.say(
            "\nDone. \(arguments.has("--keep") ? "The decks are in \(root)." : "Run `\(invokedName) demo --keep` to keep the decks and look around.")"
        )
        return 0
    }

    /// This program as it was run, for a command the demo suggests: its path when run by one (`./dev
    /// demo` runs the build's binary, not on PATH yet), else `cards`.
    static var invokedName: String {
        let first = CommandLine.arguments.first ?? "cards"
        guard first.contains("/") else { return "cards" }
        return first.contains(" ") ? "'\(first)'" : first
    }

    /// The sample deck: the option, else `sample-repo/` in the current folder, else beside the package
    /// the binary was built in (`.build/<config>/cards` → `sample-repo/`).
    static func locateSample(_ option: String?) throws -> String {
        if let option {
            guard FileSystem.isDirectory(option) else { throw CLIError(message: "--sample \(option): no such folder") }
            return option
        }
        var candidates = ["sample-repo"]
        if var folder = FileSystem.executablePath() {
            for _ in 0..<5 {
                folder = FileSystem.parent(of: folder)
                candidates.append("\(folder)/sample-repo")
            }
        }
        for candidate in candidates where FileSystem.isDirectory(candidate) { return FileSystem.absolute(candidate) }
        throw CLIError(
            message: "cannot find sample-repo/: run the demo from the CardDeck folder or pass --sample <dir>")
    }
}

/// Prints the demo's story: a heading per step, each command as a person would type it, and its output.
final class DemoNarrator {
    let output: Output
    private var steps = 0
    /// Whether a step found Ctrl-C (or SIGTERM, SIGHUP) caught: the demo stopped for it.
    private(set) var wasInterrupted = false
    /// What became of the demo's folder, said when it is interrupted.
    var folderOnInterrupt = "its folder is removed"

    init(output: Output) {
        self.output = output
    }

    func say(_ text: String) {
        output.print(text)
    }

    func step(_ text: String) {
        steps += 1
        output.print("\n\(steps). \(text)")
    }

    /// Runs a `cards` command in-process, echoing it and its output; fails the demo if it fails.
    @discardableResult
    func run(_ arguments: [String], echo: Bool = true) throws -> String {
        let shown = arguments.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
        if echo { output.print("$ cards \(shown)") }
        let result = CardsCLI.runCapturing(arguments)
        if Interruption.isInterrupted {
            // Said here: the signal ends the process on the way out, before an error thrown is printed.
            wasInterrupted = true
            output.error("Error: the demo was interrupted; \(folderOnInterrupt)")
            throw CLIError(message: "the demo was interrupted")
        }
        if echo && !result.stdout.isEmpty { output.print(indent(result.stdout), terminator: "") }
        if !result.stderr.isEmpty { output.error(indent(result.stderr)) }
        guard result.status == 0 else {
            throw CLIError(message: "the demo stopped: `cards \(shown)` exited with \(result.status)")
        }
        return result.stdout
    }

    private func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "  \($0)" }.joined(
            separator: "\n")
    }
}
