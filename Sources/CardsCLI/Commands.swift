/// The registry of every command, and the top-level help.
enum Commands {
    /// Every top-level command, in the order help lists them.
    static var all: [Command] {
        [
            initCommand, addCommand, editCommand, moveCommand, deleteCommand, showCommand, listCommand,
            undoCommand, restoreCommand, logCommand, statusCommand, commitCommand, importCommand, exportCommand,
            fsckCommand, helpCommand,
        ] + extraCommands
    }

    /// Commands from other files (swipe, merge, sync), registered here so `all` stays one list.
    static var extraCommands: [Command] {
        [
            swipeCommand, mergeCommand, conflictsCommand, resolveCommand, mergeDriverCommand, demoCommand,
            cloneCommand, remoteCommand, syncCommand, serveCommand, completionsCommand, ownerCommand, qrCommand,
            publishCommand,
        ]
    }

    /// Other tools' words for our commands, for "did you mean" (`remove` is closer to `remote` by spelling).
    static let synonyms = [
        "remove": "delete", "rm": "delete", "del": "delete", "ls": "list", "new": "add", "create": "init",
        "cat": "show", "get": "show", "history": "log", "revert": "undo", "pull": "sync", "push": "sync",
        "update": "edit", "set": "edit", "mv": "move",
    ]

    /// The same for subcommands (`cards remote rm`).
    static let subcommandSynonyms = ["rm": "remove", "delete": "remove", "ls": "list", "new": "add", "show": "list"]

    /// Two-word command groups (`remote add`), by group name.
    static var groups: [String: [Command]] { ["remote": [remoteAddCommand, remoteListCommand, remoteRemoveCommand]] }

    static var topLevelHelp: String {
        var text = """
            OVERVIEW: A deck of identity cards kept in git, synced through any git remote.

            USAGE: cards [--deck <dir>] <command> [options]

            OPTIONS:
              --deck <dir>            The deck to use (default: $CARDS_DECK, else the deck containing
                                      the current folder); before or after the command.
              --version               Show the version.
              -h, --help              Show help information.

            SUBCOMMANDS:

            """
        for command in all {
            text += CommandSpec.row(command.spec.name, command.spec.abstract)
        }
        text += "\n  See 'cards help <subcommand>' for detailed help.\n"
        return text
    }

    static let helpCommand = Command(
        spec: CommandSpec(
            name: "help", abstract: "Show help for a command.", usage: "help [<subcommand>]",
            arguments: [("subcommand", "The command to describe.")], positionals: 0...2)
    ) { context, arguments in
        guard let name = arguments.positionals.first else {
            context.output.print(topLevelHelp, terminator: "")
            return 0
        }
        let full = arguments.positionals.joined(separator: " ")
        let everything = all + groups.values.flatMap { $0 }
        guard
            let command = everything.first(where: { $0.spec.name == full })
                ?? everything.first(where: { $0.spec.name == name })
        else {
            let hint = Suggestion.hint(for: full, among: everything.map(\.spec.name), synonyms: synonyms)
            throw UsageError(message: "unknown command '\(full)'\(hint); `cards help` lists the commands")
        }
        context.output.print(command.spec.helpText, terminator: "")
        return 0
    }
}
