import CardModel
import CardStore

extension Commands {
    static let initCommand = Command(
        spec: CommandSpec(
            name: "init", abstract: "Create a deck.",
            usage: "init [<dir>] [--name <name>] [--from <dir>] [--bare] [--nested]",
            arguments: [
                ("dir", "Where to create the deck (default: --deck, else $CARDS_DECK, else the current folder).")
            ],
            options: [
                .value("--name", "name", "The deck's name (default: the source deck's name, else the folder's)."),
                .value("--from", "dir", "Import the cards of a folder laid out like a deck, such as sample-repo/."),
                .flag("--bare", "Create a deck with no working tree (for servers and very large decks)."),
                .flag("--nested", "Create the deck inside another git repository's working tree all the same."),
            ],
            positionals: 0...1,
            discussion: """
                A folder that already holds a deck's files (deck.json, cards/) becomes a deck of them: its
                deck.json and valid card files are committed as they are.
                """)
    ) { context, arguments in
        // `cards --deck DIR init` (or $CARDS_DECK) names the new deck's folder as every other command
        // names its deck; a folder given to init itself goes before the environment's default.
        let given = try context.newDeckFolder(given: arguments.positionals.first, for: "init")
        let path = given ?? context.deckFolder ?? "."
        let deck = try Deck.create(
            at: path, name: arguments.value("--name"), bare: arguments.has("--bare"), from: arguments.value("--from"),
            nested: arguments.has("--nested"))
        let count = try deck.snapshot().allCards().cards.count
        context.output.print("Created deck in \(deck.location) with \(count) card\(count == 1 ? "" : "s").")
        return 0
    }

    static let addCommand = Command(
        spec: CommandSpec(
            name: "add", abstract: "Add a card; prints its id.",
            usage:
                "add --title <title> --url <url> [--platform <name>] [--icon <icon>] [--color <color>] [--id <uuid>] [--after <id>]",
            options: [
                .value("--title", "title", "The card's title (1 to 200 characters)."),
                .value("--url", "url", "Its link: an http, https or mailto URL."),
                .value("--platform", "name", "The platform's name (GitHub, Mastodon, ...)."),
                .value("--icon", "icon", "An icon name such as github (lowercase letters, digits, . _ -)."),
                .value("--color", "color", "A colour name (red green blue ...) or #rrggbb (default: blue)."),
                .value("--id", "uuid", "Use this id instead of a new one."),
                .value("--after", "id", "Insert after this card instead of at the end."),
            ])
    ) { context, arguments in
        guard let title = arguments.value("--title") else { throw UsageError(message: "missing '--title <title>'") }
        guard let url = arguments.value("--url") else { throw UsageError(message: "missing '--url <url>'") }
        let deck = try context.openDeck()
        let after = arguments.value("--after")
        let card = try context.sayingDeleted([after], in: deck) { () throws(StoreError) in
            try deck.add(
                title: Self.typedText(title), indexURL: Self.typedText(url),
                platformName: Self.typedText(arguments.value("--platform") ?? ""),
                platformIcon: arguments.value("--icon") ?? "",
                color: Self.typedColor(arguments.value("--color") ?? "blue"), id: arguments.value("--id"), after: after)
        }
        context.output.print(card.id)
        return 0
    }

    /// Text typed for a field: without the spaces around it (a shell quote keeps them; nobody means them).
    static func typedText(_ text: String) -> String { String(Card.trimmed(text)) }

    /// A colour typed in any case, as a card stores it: `#ABCDEF` is `#abcdef`, `Red` is `red`.
    static func typedColor(_ text: String) -> String { typedText(text).lowercased() }

    static let editCommand = Command(
        spec: CommandSpec(
            name: "edit", abstract: "Change fields of a card (no commit when nothing changes).",
            usage:
                "edit <id> [--title <title>] [--url <url>] [--platform <name>] [--icon <icon>] [--color <color>] [--set <key=json> ...] [--unset <key> ...]",
            arguments: [("id", "The card's id or a unique prefix (4+ hex digits).")],
            options: [
                .value("--title", "title", "New title."),
                .value("--url", "url", "New URL."),
                .value("--platform", "name", "New platform name."),
                .value("--icon", "icon", "New icon name."),
                .value("--color", "color", "New colour."),
                .value(
                    "--set", "key=json", "Set any field to a JSON value, e.g. --set 'pinned=true' (repeatable).",
                    repeatable: true),
                .value(
                    "--unset", "key",
                    "Take a field out of the card: platformName, platformIcon or any unknown one "
                        + "(repeatable).", repeatable: true),
            ],
            positionals: 1...1)
    ) { context, arguments in
        guard !arguments.order.isEmpty else {
            throw UsageError(
                message:
                    "nothing to change: give at least one of --title, --url, --platform, --icon, --color, --set, --unset"
            )
        }
        var edit = CardEdit(
            title: arguments.value("--title").map(Self.typedText),
            indexURL: arguments.value("--url").map(Self.typedText),
            platformName: arguments.value("--platform").map(Self.typedText),
            platformIcon: arguments.value("--icon"), color: arguments.value("--color").map(Self.typedColor))
        for assignment in arguments.values["--set"] ?? [] {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw UsageError(message: "--set '\(assignment)': expected KEY=JSON, e.g. pinned=true")
            }
            let key = String(assignment[..<equals])
            let text = String(assignment[assignment.index(after: equals)...])
            // A card's text has no control characters (the README's "The deck on disk"), its field names included.
            if key.unicodeScalars.contains(where: Card.isControl) {
                throw UsageError(
                    message: "--set '\(CommitMessage.shown(key))=…': a field name may not hold control characters "
                        + "(line breaks, tabs …)")
            }
            let value: JSONValue
            do {
                value = try JSONValue.parse(Array(text.utf8))
            } catch {
                let shownKey = CommitMessage.shown(key)
                throw UsageError(
                    message:
                        "--set \(shownKey)=…: '\(CommitMessage.shown(text))' is not JSON (\(error)); quote strings: "
                        + "--set '\(shownKey)=\"text\"'")
            }
            // null is data for an unknown field; a known one is taken out with --unset.
            if value == .null, Card.knownFields.contains(key) {
                throw UsageError(
                    message: key == "conflicts"
                        ? "--set conflicts=null: conflict records are settled with `cards resolve`"
                        : Card.requiredFields.contains(key)
                            ? "--set \(key)=null: a card needs its \(key)"
                            : "--set \(key)=null: to take \(key) out of the card, use --unset \(key)")
            }
            edit.extra.append((key, value))
        }
        edit.removed = arguments.values["--unset"] ?? []
        if edit.removed.contains(where: \.isEmpty) { throw UsageError(message: "--unset needs a field's name") }
        let deck = try context.openDeck()
        let id = try context.resolveCard(arguments.positionals[0], in: deck)
        if try deck.edit(id, edit) == nil {
            context.output.print("No change to card \(id).")
        } else {
            context.output.print("Edited card \(id).")
        }
        return 0
    }

    static let moveCommand = Command(
        spec: CommandSpec(
            name: "move",
            abstract: "Reorder a card (rewrites its rank; cards in the way where no rank fits move along).",
            usage: "move <id> (--before <id> | --after <id> | --top | --bottom)",
            arguments: [("id", "The card to move.")],
            options: [
                .value("--before", "id", "Put it just before this card."),
                .value("--after", "id", "Put it just after this card."),
                .flag("--top", "Put it first."),
                .flag("--bottom", "Put it last."),
            ],
            positionals: 1...1)
    ) { context, arguments in
        var positions: [CardPosition] = []
        if let before = arguments.value("--before") { positions.append(.before(before)) }
        if let after = arguments.value("--after") { positions.append(.after(after)) }
        if arguments.has("--top") { positions.append(.top) }
        if arguments.has("--bottom") { positions.append(.bottom) }
        guard positions.count == 1, let position = positions.first else {
            throw UsageError(message: "give exactly one of --before, --after, --top, --bottom")
        }
        let deck = try context.openDeck()
        let id = try context.resolveCard(arguments.positionals[0], in: deck)
        let moved = try context.sayingDeleted([arguments.value("--before"), arguments.value("--after")], in: deck) {
            () throws(StoreError) in try deck.move(id, to: position)
        }
        if moved == nil {
            context.output.print("Card \(id) is already there.")
        } else {
            context.output.print("Moved card \(id).")
        }
        return 0
    }

    static let deleteCommand = Command(
        spec: CommandSpec(
            name: "delete", abstract: "Delete cards in one commit (they stay in history: see restore).",
            usage: "delete <id> ...", arguments: [("id", "The cards to delete.")], positionals: 1...Int.max)
    ) { context, arguments in
        let deck = try context.openDeck()
        let ids = try context.sayingDeleted(arguments.positionals, in: deck) { () throws(StoreError) in
            try deck.snapshot().resolveAll(arguments.positionals)
        }
        try deck.delete(ids)
        for id in ids { context.output.print("Deleted card \(id).") }
        return 0
    }

    static let showCommand = Command(
        spec: CommandSpec(
            name: "show", abstract: "Show one card.", usage: "show <id> [--json]",
            arguments: [("id", "The card's id or a unique prefix.")],
            options: [.flag("--json", "Print the canonical card object.")], positionals: 1...1)
    ) { context, arguments in
        let deck = try context.openDeck()
        let card = try context.card(matching: arguments.positionals[0], in: deck)
        if arguments.has("--json") {
            context.output.write(card.encoded())
        } else {
            context.output.print(CardText.detail(card), terminator: "")
        }
        return 0
    }

    static let listCommand = Command(
        spec: CommandSpec(
            name: "list", abstract: "List the cards in deck order.", usage: "list [--json]",
            options: [.flag("--json", "Print a JSON array of the canonical card objects.")])
    ) { context, arguments in
        let deck = try context.openDeck()
        let problems: [CardProblem]
        if arguments.has("--json") {
            let json: [UInt8]
            (json, problems) = try deck.export()
            context.output.write(json)
        } else {
            // The cells are made on the threads that decode the cards; only they are kept.
            let rows: [[UInt8]]
            (rows, problems) = try deck.snapshot().allListings(encoding: { CardText.tableRow($0) })
            context.output.write(CardText.table(rows))
            if rows.isEmpty, problems.isEmpty {
                // On standard error, so that scripts reading the table still get nothing.
                context.output.error("The deck has no cards yet: add one with cards add --title <title> --url <url>")
            }
        }
        for problem in problems {
            context.output.error("warning: " + problem.said(outcome: "skipped"))
        }
        // The JSON is for scripts: one that lacks a card fails, as `export` does.
        return arguments.has("--json") && !problems.isEmpty ? 1 : 0
    }
}

extension CardProblem {
    /// "PATH is not a valid card and was OUTCOME: REASON", or, when its bytes could not be read from
    /// the object store (a damaged pack), that and what to run to see the damage: a file to fix by hand
    /// and an object to repair are not the same errand.
    func said(outcome: String) -> String {
        couldNotRead
            ? "\(path) could not be read and was \(outcome): \(reason) (its object is damaged or missing: "
                + "`cards fsck` names it, `git fsck` says more)"
            : "\(path) is not a valid card and was \(outcome): \(reason)"
    }
}
