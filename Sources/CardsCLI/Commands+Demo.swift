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
        let root = try FileSystem.makeTemporaryDirectory(prefix: "cards-demo-")
        defer { if !arguments.has("--keep") { FileSystem.removeTree(root) } }
        // The demo must run on a machine with no git identity configured.
        setenv("CARDS_AUTHOR_NAME", "CardDeck Demo", 0)
        setenv("CARDS_AUTHOR_EMAIL", "demo@carddeck.invalid", 0)
        let demo = DemoNarrator(output: context.output)
        let laptop = "\(root)/laptop"
        demo.say("CardDeck demo in \(root)\n")
        demo.step("Turn the bundled sample deck into a real deck (a git repository on branch main).")
        try demo.run(["init", laptop, "--from", sample])
        demo.step("The cards, in deck order.")
        try demo.run(["--deck", laptop, "list"])
        demo.step("Add a card: one commit, and the card file appears in the working tree.")
        let added = try demo.run([
            "--deck", laptop, "add", "--title", "Ada on Codeberg", "--url", "https://codeberg.org/ada", "--platform",
            "Codeberg", "--icon", "codeberg", "--color", "teal",
        ])
        let id = added.trimmingSpaces()
        demo.step("Delete it again, then undo the delete: it comes back with the same id and bytes.")
        try demo.run(["--deck", laptop, "delete", String(id.prefix(8))])
        try demo.run(["--deck", laptop, "undo"])
        try demo.run(["--deck", laptop, "show", String(id.prefix(8))])
        demo.step("Every step is a commit that git itself can read.")
        try demo.run(["--deck", laptop, "log", "-n", "5"])
        try demo.run(["--deck", laptop, "fsck"])
        demo.say(
            "\nDone. \(arguments.has("--keep") ? "The decks are in \(root)." : "Run `cards demo --keep` to keep the decks and look around.")"
        )
        return 0
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
struct DemoNarrator {
    let output: Output
    private var counter = Counter()

    init(output: Output) {
        self.output = output
    }

    final class Counter {
        var value = 0
    }

    func say(_ text: String) {
        output.print(text)
    }

    func step(_ text: String) {
        counter.value += 1
        output.print("\n\(counter.value). \(text)")
    }

    /// Runs a `cards` command in-process, echoing it and its output; fails the demo if it fails.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let shown = arguments.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
        output.print("$ cards \(shown)")
        let result = CardsCLI.runCapturing(arguments)
        if !result.stdout.isEmpty { output.print(indent(result.stdout), terminator: "") }
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
