import CardModel
import Glibc
import CardStore
import DeckMerge
import GitCore
import SwipeEngine
import TerminalUI

extension Commands {
    static let swipeCommand = Command(
        spec: CommandSpec(
            name: "swipe", abstract: "Swipe cards: interactively on a terminal, or one card from a script.",
            usage:
                "swipe [<id> (--drag <samples> | --left | --right)] [--preset <preset>] [--width <w>] [--height <h>] [--grab <x,y>] [--dry-run] [--json]",
            arguments: [("id", "The card to swipe (scripted form); without it, the interactive session starts.")],
            options: [
                .value(
                    "--drag", "samples",
                    "Space-separated T:X,Y samples (seconds, points); first = touch-down, last = touch-up; end with 'cancel' for a system cancel."
                ),
                .flag("--left", "Swipe left programmatically (deletes when the preset allows left)."),
                .flag("--right", "Swipe right programmatically: keeps the card (stack presets; row allows left only)."),
                .value(
                    "--preset", "preset",
                    "classic-stack, classic-row, stack or row (default: row scripted, stack interactive)."),
                .value("--width", "w", "Card width in points (default: the preset's: 300 stacks, 360 rows)."),
                .value("--height", "h", "Card height in points (default: 450)."),
                .value(
                    "--grab", "x,y",
                    "Where the finger touched down on the card, in card points (for the rotation sign)."),
                .flag("--dry-run", "Decide, but do not delete."),
                .flag("--json", "Print the decision as a JSON object."),
            ],
            positionals: 0...1,
            discussion: """
                Interactive keys: drag the top card with the mouse, or ←/→ to move it (hold to move faster) and \
                Enter or Space to release; past the threshold the card turns red ("release to delete"). \
                Left deletes (a commit), right keeps and shows the next card; u undoes the last swipe; q or Esc quits.
                Cards with conflict records come first: on a deleted-versus-edited card left deletes and right keeps \
                the edited card (one resolve commit each; so does a scripted --left or --right); keys 1-9 pick a \
                field conflict's value. A keep is noted on this device only (.git/cards-kept), never committed.
                """)
    ) { context, arguments in
        if arguments.positionals.isEmpty {
            return try runInteractive(context, arguments)
        }
        return try runScripted(context, arguments)
    }

    static func configuration(_ arguments: ParsedArguments, default name: String) throws -> SwipeConfiguration {
        let name = arguments.value("--preset") ?? name
        guard let preset = SwipeConfiguration.preset(named: name) else {
            let names = SwipeConfiguration.presets.map(\.name).joined(separator: ", ")
            throw UsageError(message: "--preset '\(name)': expected one of \(names)")
        }
        return preset
    }

    static func cardSize(_ arguments: ParsedArguments, _ configuration: SwipeConfiguration) throws -> SwipeSize? {
        guard arguments.value("--width") != nil || arguments.value("--height") != nil else { return nil }
        func number(_ option: String, _ fallback: Double) throws -> Double {
            guard let text = arguments.value(option) else { return fallback }
            guard let value = Double(text), value.isFinite, value > 0, value <= 100_000 else {
                throw UsageError(message: "\(option) '\(text)': expected a positive number of points")
            }
            return value
        }
        return SwipeSize(
            width: try number("--width", configuration.defaultCardSize.width),
            height: try number("--height", configuration.defaultCardSize.height))
    }

    static func runScripted(_ context: Context, _ arguments: ParsedArguments) throws -> Int32 {
        let configuration = try configuration(arguments, default: "row")
        let size = try cardSize(arguments, configuration)
        let modes = [arguments.value("--drag") != nil, arguments.has("--left"), arguments.has("--right")].filter { $0 }
        guard modes.count == 1 else {
            throw UsageError(
                message: "give exactly one of --drag <samples>, --left, --right (or no id for the interactive session)")
        }
        var grab: SwipeVector?
        if let text = arguments.value("--grab") {
            do { grab = try DragScript.parseGrab(text) } catch {
                throw UsageError(message: "--grab '\(text)': \(error)")
            }
        }
        let deck = try context.openDeck()
        let card = try context.card(matching: arguments.positionals[0], in: deck)
        let outcome: SwipeOutcome
        if let samples = arguments.value("--drag") {
            let script: DragScript
            do { script = try DragScript.parse(samples, grab: grab) } catch {
                throw UsageError(message: "--drag: \(error)")
            }
            outcome = SwipeOutcome.run(script, configuration: configuration, cardSize: size, cardID: card.id)
        } else {
            let direction: SwipeDirection = arguments.has("--left") ? .left : .right
            do {
                outcome = try SwipeOutcome.programmatic(
                    direction, configuration: configuration, cardSize: size, cardID: card.id)
            } catch let refusal as SwipeRefusal where refusal.code == .directionNotAllowed {
                let others = SwipeConfiguration.presets.filter { $0.allowedDirections.contains(direction) }
                let hint = others.isEmpty ? "" : " (presets that do: \(others.map(\.name).joined(separator: ", ")))"
                throw UsageError(message: "\(refusal)\(hint)")
            } catch {
                throw CLIError(message: "\(error)")
            }
        }
        var deleted = false
        var settled: String?
        if !arguments.has("--dry-run"), let direction = outcome.decision.direction,
            let settlement = try deck.settleBySwipe(card, left: direction == .left)
        {
            // A deleted-versus-edited card: the swipe settles it, one `resolve` commit (`cards resolve
            // --delete` / `--keep`), as on the page and in the interactive session.
            deleted = settlement.deleted
            settled = direction == .left ? "deleted" : "kept"
        } else if let note = outcome.deletionNote, !arguments.has("--dry-run") {
            deleted = try deck.delete([card.id], gesture: note) != nil
        } else if outcome.decision.direction == .right, !arguments.has("--dry-run") {
            // Seen on this device: the page's stack and the session show it after the unseen cards.
            try deck.recordKept(card.id)
        }
        // The engine drops such samples (`SwipeGesture` takes samples in time order only): said on stderr, so a typo in a script is seen.
        let dropped = outcome.events.compactMap { event -> String? in
            guard case .sampleDropped(let reason) = event else { return nil }
            switch reason {
            case .nonFiniteTime: return "a time that is not finite"
            case .nonFiniteTranslation: return "a point that is not finite"
            case .timeWentBackwards: return "a time before the previous sample's"
            }
        }
        if !dropped.isEmpty {
            context.output.error(
                "warning: \(dropped.count) drag sample\(dropped.count == 1 ? "" : "s") ignored: "
                    + dropped.joined(separator: "; "))
        }
        // The swipe deleted it, but another command deleted it first (two swipes at once): not a dry run.
        let deletedElsewhere = outcome.deletes && !deleted && !arguments.has("--dry-run")
        if deletedElsewhere {
            context.output.error(
                "Error: card \(card.id) \"\(card.title)\" was deleted by another command meanwhile; nothing was "
                    + "deleted here (`cards log` shows that commit)")
        }
        if arguments.has("--json") {
            var json = outcome.json(cardID: card.id, deleted: deleted)
            if let settled {
                json.removeLast()
                json += ", \"resolved\": \"\(settled == "deleted" ? "delete" : "keep")\"}"
            }
            context.output.print(json)
        } else if let settled {
            context.output.print(
                "Settled the conflict on card \(card.id) \"\(card.title)\": \(settled) it (one resolve commit; "
                    + "`cards undo` takes it back).")
        } else if deletedElsewhere {
            return 1
        } else {
            let decision = outcome.decision
            // `--left`/`--right` say it all; a drag's decision is told in the gesture spec's words.
            let detail =
                decision.reasonName == "programmatic"
                ? decision.direction.map { "swiped \($0)" } ?? ""
                : [decision.name, decision.direction.map { "\($0)" }, decision.reasonName].compactMap { $0 }
                    .joined(separator: " ")
            if deleted {
                // A field's open conflict goes with the card: said, so a swipe meant to settle one is noticed.
                let fields = ConflictRecord.records(in: card).map(\.field).filter { $0 != "*" }
                let conflict =
                    fields.isEmpty
                    ? ""
                    : " Its open conflict on \(fields.map(CardText.fieldName).joined(separator: ", ")) went with it; "
                        + "`cards undo` brings both back, and "
                        + "`cards resolve \(card.id.prefix(8)) \(CardText.fieldOption(fields[0])) --pick N` settles it."
                context.output.print("Deleted card \(card.id) \"\(card.title)\" (\(detail)).\(conflict)")
            } else if outcome.deletes {
                context.output.print("Would delete card \(card.id) \"\(card.title)\" (\(detail)); --dry-run kept it.")
            } else {
                context.output.print("Kept card \(card.id) \"\(card.title)\" (\(detail)).")
            }
        }
        return deletedElsewhere ? 1 : 0
    }

    static func runInteractive(_ context: Context, _ arguments: ParsedArguments) throws -> Int32 {
        for option in ["--drag", "--grab", "--width", "--height"] where arguments.value(option) != nil {
            // The session's card is the size the terminal gives it; a size is for a scripted swipe's engine.
            throw UsageError(message: "\(option) needs a card id: cards swipe <id> \(option) …")
        }
        if arguments.has("--left") || arguments.has("--right") || arguments.has("--json") || arguments.has("--dry-run")
        {
            throw UsageError(message: "--left, --right, --json and --dry-run need a card id: cards swipe <id> --left")
        }
        let configuration = try configuration(arguments, default: "stack")
        if let term = getenv("TERM").map({ String(cString: $0) }), term == "dumb" {
            throw CLIError(
                message: "TERM=dumb cannot show the interactive swipe session; use a full terminal, "
                    + "or the scripted form `cards swipe ID --drag 'T:X,Y …' | --left | --right`")
        }
        let deck = try context.openDeck()
        var adapter = try StoreSwipeDeck(deck: deck, preset: configuration.name)
        do {
            try SwipeSessionRunner.run(deck: &adapter, preset: configuration)
        } catch let error as TerminalError {
            throw CLIError(message: error.message)
        }
        let deleted = adapter.stillDeleted()
        let summary =
            deleted == 0
            ? "No cards deleted."
            : "Deleted \(deleted) card\(deleted == 1 ? "" : "s") (each one commit; `cards undo` or `cards restore ID` brings one back)."
        context.output.print(summary)
        // Not in the session, and not said on its screen: said once the terminal is back, as `list` says it.
        for problem in adapter.skipped {
            context.output.error("warning: " + problem.said(outcome: "not shown"))
        }
        return 0
    }
}

/// The deck as the interactive swipe session sees it: a left swipe deletes through the store (one
/// commit with a `Gesture` trailer), undo restores the same bytes (so the card returns to its place).
/// Cards carrying conflict records come first, then those this device has not kept, then the kept ones
/// (the page's order); a deleted-versus-edited card is settled by the swipe (left deletes, right keeps
/// the edited card, one `resolve` commit each, which undo takes back), a field conflict by keys 1…9.
struct StoreSwipeDeck: SwipeDeck {
    let deck: Deck
    let preset: String
    private(set) var cards: [SwipeCardInfo]
    /// The cards this session deleted, in order (a restore here takes one out).
    private(set) var deletedIDs: [String] = []
    /// How long a swipe waits for another command's deck lock, in seconds.
    static let lockTimeout = 2.0
    /// The commit of main the cards were read from.
    private var loadedHead: ObjectID?
    /// The card files of that commit that are not valid cards: not in the session, said after it.
    private(set) var skipped: [CardProblem] = []
    /// The session's order, fixed when it starts (a conflict settled does not move the card under the
    /// finger); cards that come in later go after.
    private var order: [String: Int] = [:]
    /// The `resolve` commit a swipe made for a card, which undo reverts.
    private var settledBy: [String: ObjectID] = [:]

    init(deck: Deck, preset: String) throws {
        self.deck = deck
        // The screen cannot redraw while a write waits for the deck lock: a short wait, then the swipe is
        // refused with who holds the lock, and the user can try again.
        deck.lockTimeout = min(deck.lockTimeout, StoreSwipeDeck.lockTimeout)
        // Nor may a line on standard error be drawn over the cards: the refusal shows in the status line.
        Deck.lockWaitNotice = nil
        self.preset = preset
        cards = []
        try reload()
    }

    mutating func reload() throws {
        let snapshot = try deck.snapshot()
        loadedHead = snapshot.commit
        let all = try snapshot.allCards()
        skipped = all.problems
        if order.isEmpty {
            let stack = Deck.stackOrder(all.cards, kept: deck.keptCards())
            for card in stack.stack + stack.seen { order[card.id] = order.count }
        }
        for card in all.cards where order[card.id] == nil { order[card.id] = order.count }
        cards = all.cards.sorted { (order[$0.id] ?? 0) < (order[$1.id] ?? 0) }.map(Self.info)
    }

    /// A card as the session shows it, with its conflict's lines.
    static func info(_ card: Card) -> SwipeCardInfo {
        var notes: [String] = []
        var choices = 0
        let records = ConflictRecord.records(in: card)
        if records.contains(where: \.isDeletion) {
            // Short lines: a card is 40-odd columns wide.
            // Which side was this device's is not known here (a record names each side's tip).
            notes.append("⚠ conflict: deleted vs. edited")
            notes.append("← delete it · keep it as edited →")
        }
        if let field = records.first(where: { !$0.isDeletion })?.field {
            let values = ConflictResolver.choices(in: card, field: field)
            choices = min(values.count, 9)
            // A record written by hand can hold no values: nothing to press (`cards resolve … --keep` settles it).
            if choices == 0 {
                notes.append("⚠ conflict on \(field): no values to pick")
                // Short: a card is 40-odd columns wide (`cards conflicts` gives the whole command).
                notes.append("see `cards conflicts` to settle it")
            } else {
                notes.append("⚠ conflict on \(field): press 1–\(choices) to pick")
            }
            for (index, value) in values.prefix(9).enumerated() {
                let text = value.value.map { $0.stringValue ?? String(decoding: $0.canonicalBytes(), as: UTF8.self) }
                let current = value.value == card.fields[field] ? " (kept by the merge)" : ""
                notes.append("\(index + 1) \(text ?? "(removed)")\(current)")
            }
        }
        return SwipeCardInfo(
            id: card.id, title: card.title, platformName: card.platformName, platformIcon: card.platformIcon,
            indexURL: card.indexURL, color: card.color, notes: notes, choices: choices)
    }

    /// The card `id` as the deck has it now (nil when it is gone).
    func current(_ id: String) throws(StoreError) -> Card? { try deck.snapshot().card(id: id) }

    mutating func delete(id: String, reason: String) throws {
        if let card = try current(id), let settlement = try deck.settleBySwipe(card, left: true) {
            settledBy[id] = settlement.commit
            deletedIDs.append(id)
            try reload()
            return
        }
        let outcome = try deck.delete([id], gesture: SwipeOutcome.deletionNote(reason: reason, preset: preset))
        if outcome != nil { deletedIDs.append(id) }
        // Our commit right on top of the cards held here: they are the deck's, less this one, without
        // reading every card again (~0.4 s a swipe at 100,000 cards). Anything else (another writer came
        // in between) is read again.
        if let outcome, let loadedHead, outcome.parent == loadedHead {
            cards.removeAll { $0.id == id }
            self.loadedHead = outcome.commit
            return
        }
        try reload()
    }

    mutating func keep(id: String) throws {
        if let card = try current(id), let settlement = try deck.settleBySwipe(card, left: false) {
            settledBy[id] = settlement.commit
            try reload()
        } else {
            try deck.recordKept(id)
        }
    }

    mutating func unkeep(id: String) throws {
        if let commit = settledBy.removeValue(forKey: id) {
            _ = try deck.undo(commit.hex)
            try reload()
        } else {
            try deck.forgetKept(id)
        }
    }

    mutating func pick(id: String, choice number: Int) throws {
        guard let card = try deck.snapshot().card(id: id),
            let field = ConflictRecord.records(in: card).first(where: { !$0.isDeletion })?.field
        else { return }
        // The session's `u` takes the pick back through `unkeep`, which undoes this commit.
        let made = try deck.resolveCommitting(id, field: field, .pick(number)).commit
        settledBy[id] = made == nil ? try deck.headCommit() : made
        try reload()
    }

    /// How many of the cards this session deleted are not in the deck now: one brought back meanwhile
    /// by another command (`cards undo` in another shell) is not counted.
    func stillDeleted() -> Int {
        guard let snapshot = try? deck.snapshot() else { return deletedIDs.count }
        return Set(deletedIDs).filter { (try? snapshot.card(id: $0)) == nil }.count
    }

    mutating func refresh() throws -> Bool {
        // One small file read (main's ref) when nothing changed.
        guard try deck.headCommit() != loadedHead else { return false }
        let before = cards
        try reload()
        return cards != before
    }

    mutating func restore(_ card: SwipeCardInfo, at index: Int) throws {
        if let commit = settledBy.removeValue(forKey: card.id) {
            // A conflict settled by deleting: undoing that commit brings the card back with its record.
            _ = try deck.undo(commit.hex)
        } else {
            _ = try deck.restore(card.id)
        }
        deletedIDs.removeAll { $0 == card.id }
        try reload()
    }
}
