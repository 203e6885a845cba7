import CardStore
import DeckMerge
import GitCore
import Glibc
import TerminalUI

extension Commands {
    static let cloneCommand = Command(
        spec: CommandSpec(
            name: "clone", abstract: "Clone a deck from any git URL.", usage: "clone <url> [<dir>]",
            arguments: [
                ("url", "A path, file://, git://, http(s)://, ssh:// URL or user@host:path."),
                ("dir", "A new (or empty) folder for the deck (default: --deck, else the URL's last name, less .git)."),
            ],
            positionals: 1...2,
            discussion: """
                The clone gets the remote as origin and the merge driver config, like `cards init`.
                A remote that is empty or has no deck.json on main is refused, leaving nothing behind.
                The transfer goes through git (your ssh config, credential helpers, proxies and http.* settings
                apply), or libgit2 where no git is installed (`git config cards.transport git|libgit2`,
                CARDS_TRANSPORT). One silent for 60 s (CARDS_NETWORK_TIMEOUT) is given up.
                """)
    ) { context, arguments in
        let url = arguments.positionals[0]
        // `--deck DIR` names the new deck's folder, as for init.
        let given = try context.newDeckFolder(given: arguments.positionals.dropFirst().first, for: "clone")
        guard let path = given ?? Deck.cloneFolderName(for: url) else {
            throw UsageError(message: "no folder name in '\(url)': give one, cards clone <url> <dir>")
        }
        let progress = ProgressLine()
        var settings = progress.settings()
        settings.isInterrupted = { Interruption.isInterrupted }
        // A clone stopped by Ctrl-C removes what it made (the deck appears under its name only whole).
        Interruption.begin()
        let deck: Deck
        do {
            deck = try Deck.clone(from: url, to: path, settings: settings)
        } catch {
            progress.finish()
            if Interruption.isInterrupted { context.output.error("Error: \(error)") }
            Interruption.end(stopped: true)
            throw error
        }
        progress.finish()
        // Still caught while the clone is counted and said: a late Ctrl-C does not hide that it is whole.
        defer { Interruption.end(stopped: false) }
        let all = try deck.snapshot().allCards()
        let count = all.cards.count
        let remote = DeckRemote(name: "origin", url: url)
        context.output.print(
            "Cloned a deck of \(count) card\(count == 1 ? "" : "s") from \(remote.displayURL) into \(deck.location).")
        if !all.problems.isEmpty {
            context.output.error(
                "note: and \(all.problems.count) card file\(all.problems.count == 1 ? " that is not a valid card" : "s that are not valid cards")"
                    + ": `cards status` lists them")
        }
        if let origin = (try? deck.remotes())?.first(where: { $0.name == "origin" }) {
            Self.notePushable(origin, deck, context)
        }
        return 0
    }

    /// A note on standard error when `remote` is on this machine and a sync could not push there: no
    /// repository there yet, or one with a working tree (said now, not at the first sync).
    static func notePushable(_ remote: DeckRemote, _ deck: Deck, _ context: Context) {
        if let problem = deck.pushProblem(remote) { context.output.error("note: \(problem)") }
    }

    static let remoteSpec = CommandSpec(
        name: "remote", abstract: "Add, list and remove remotes.", usage: "remote <subcommand>",
        subcommands: [
            ("add", "Add a remote: remote add <name> <url>."),
            ("list", "List the remotes and their URLs."),
            ("remove", "Remove a remote: remote remove <name>."),
        ])

    // Reached only through the group dispatch, which handles a missing subcommand itself.
    static let remoteCommand = Command(spec: remoteSpec) { context, _ in
        context.output.print(remoteSpec.helpText, terminator: "")
        return 64
    }

    static let remoteAddCommand = Command(
        spec: CommandSpec(
            name: "remote add", abstract: "Add a remote (in the repository's git config).",
            usage: "remote add <name> <url>",
            arguments: [
                ("name", "Its name, e.g. origin."),
                ("url", "A path, file://, git://, http(s)://, ssh:// URL or user@host:path."),
            ],
            positionals: 2...2)
    ) { context, arguments in
        let deck = try context.openDeck()
        let name = arguments.positionals[0]
        let remote = try deck.addRemote(name: name, url: arguments.positionals[1])
        context.output.print("Added remote \(name) (\(remote.displayURL)).")
        Self.notePushable(remote, deck, context)
        return 0
    }

    static let remoteListCommand = Command(
        spec: CommandSpec(
            name: "remote list", abstract: "List the remotes: name and URL, one per line.", usage: "remote list [-v]",
            options: [.flag("--verbose", "The same list (for the habit of `git remote -v`).", short: "-v")])
    ) { context, _ in
        let deck = try context.openDeck()
        let remotes = try deck.remotes()
        for remote in remotes {
            context.output.print("\(remote.name)\t\(remote.displayURL)")
        }
        if remotes.isEmpty {
            // On standard error, so that scripts reading the list still get nothing.
            context.output.error("This deck has no remotes: add one with cards remote add origin <url>")
        }
        return 0
    }

    static let remoteRemoveCommand = Command(
        spec: CommandSpec(
            name: "remote remove", abstract: "Remove a remote and its remote-tracking refs.",
            usage: "remote remove <name>",
            arguments: [("name", "The remote to remove.")], positionals: 1...1)
    ) { context, arguments in
        let deck = try context.openDeck()
        try deck.removeRemote(name: arguments.positionals[0])
        context.output.print("Removed remote \(arguments.positionals[0]).")
        return 0
    }

    static let syncCommand = Command(
        spec: CommandSpec(
            name: "sync", abstract: "Make the deck and a remote equal: fetch, merge, push.",
            usage:
                "sync [<remote>] [--dry-run] [--rebase|--no-rebase] [--allow-mass-delete] [--allow-unrelated-histories] "
                + "[--policy keep|delete]",
            arguments: [("remote", "The remote (default: the only one, else origin).")],
            options: [
                .flag("--dry-run", "Fetch and show what would happen; change nothing else."),
                .flag(
                    "--allow-mass-delete",
                    "Push even when it deletes more than half of the remote's cards, and commit hand edits first "
                        + "even when missing card files delete more than half of the deck's."),
                .flag(
                    "--allow-unrelated-histories",
                    "Merge a remote's main that shares no commit with this deck (another deck, or a rewritten one)."),
                .value(
                    "--policy", "keep|delete",
                    "A card deleted on one side and edited on the other: keep it (default) or delete it."),
                .flag(
                    "--rebase",
                    "When both moved, replay this deck's commits onto the remote's: no merge commit (default: as "
                        + "pull.rebase says)."),
                .flag("--no-rebase", "When both moved, merge (a merge commit), whatever pull.rebase says."),
                .flag(
                    "--verbose",
                    "One line for every changed card of a merge (more than \(MergeText.summaryThreshold) print a "
                        + "summary)."),
            ],
            positionals: 0...1,
            discussion: """
                Commits valid hand edits first (an invalid card file stops the sync before anything is sent or
                any ref moves; a sync that then fails before a push or merge of its own takes that commit back),
                fetches the remote's main, then: nothing (up to date), fast-forward, push, or merge and push. A
                push the remote refuses because it moved is retried after a new fetch, up to 5 times; never
                forced. Any other refusal (a hook, a protected branch) fails at once with the server's reason.
                Exit 0 only when the deck and the remote are equal at the end (with --dry-run: when the plan
                would go through).
                """)
    ) { context, arguments in
        var policy = MergePolicy.keep
        if let text = arguments.value("--policy") {
            guard let parsed = MergePolicy(rawValue: text) else {
                throw UsageError(message: "--policy must be keep or delete, not '\(text)'")
            }
            policy = parsed
        }
        let deck = try context.openDeck()
        let progress = ProgressLine()
        var options = SyncOptions(
            remote: arguments.positionals.first, dryRun: arguments.has("--dry-run"),
            allowMassDelete: arguments.has("--allow-mass-delete"), policy: policy, settings: progress.settings())
        options.allowUnrelatedHistories = arguments.has("--allow-unrelated-histories")
        if arguments.has("--rebase") && arguments.has("--no-rebase") {
            throw UsageError(message: "--rebase and --no-rebase: give one")
        }
        if arguments.has("--rebase") { options.rebase = true }
        if arguments.has("--no-rebase") { options.rebase = false }
        options.settings.isInterrupted = { Interruption.isInterrupted }
        // Ctrl-C or SIGTERM stops the git it runs (see GitProcess), then this process dies of it.
        Interruption.begin()
        let report: SyncReport
        do {
            report = try deck.sync(options)
        } catch {
            progress.finish()
            // Said before the process dies of the signal it caught.
            if Interruption.isInterrupted { context.output.error("Error: \(error)") }
            Interruption.end(stopped: true)
            throw error
        }
        progress.finish()
        Interruption.end(stopped: false)
        // The server's own words (a post-receive hook's "CI started"), as git shows them.
        for message in report.serverMessages { context.output.error("remote: \(message)") }
        for warning in report.pushWarnings { context.output.error("warning: \(warning)") }
        for line in SyncText.lines(report, verbose: arguments.has("--verbose")) { context.output.print(line) }
        // Equal, but not sound: a card file that is not a valid card is in the deck now.
        let invalid = Set(report.invalidCards.map(\.path) + (report.merge?.invalid.map(\.path) ?? [])).count
        if invalid > 0 && !report.dryRun {
            context.output.error(MergeText.invalidSummary(invalid))
        }
        return (report.dryRun && report.massDelete != nil) || invalid > 0 ? 1 : 0
    }
}

/// The few lines `cards sync` prints: what happened (or would), per-card merge decisions, the end state.
enum SyncText {
    static func lines(_ report: SyncReport, verbose: Bool = false) -> [String] {
        let name = report.remote.name
        let would = report.dryRun
        var lines: [String] = []
        if report.handEdits > 0 {
            let count = "\(report.handEdits) hand edit\(report.handEdits == 1 ? "" : "s")"
            if would {
                lines.append("Would commit \(count) first (what follows is planned without them).")
            } else {
                lines.append("Committed \(count) (\(report.handEditsCommit?.short ?? "?")).")
            }
        }
        switch report.action {
        case .upToDate:
            lines.append("Up to date with \(name) (\(report.head?.short ?? "?")).")
        case .fastForward(let from, let to):
            lines.append(
                "\(would ? "Would fast-forward" : "Fast-forwarded") \(report.branchName) \(from.short)..\(to.short) from \(report.remote.trackingName) "
                    + "(\(cards(report.changedCards)) changed).")
        case .push(let from, let to):
            if let from {
                lines.append(
                    "\(would ? "Would push" : "Pushed") \(report.branchName) \(from.short)..\(to.short) to \(name) (\(cards(report.changedCards)) changed)."
                )
            } else {
                lines.append(
                    "\(would ? "Would push" : "Pushed") \(report.branchName) \(to.short) to the empty remote \(name) (\(cards(report.changedCards)))."
                )
            }
        case .mergeAndPush(let ours, let theirs):
            let decisions = changedCards(report.merge?.decisions ?? [])
            let changed = decisions.count + (report.merge?.changedWithoutDecision ?? 0)
            let verb =
                report.rebased
                ? "\(would ? "Would rebase" : "Rebased") \(report.branchName) \(ours.short) onto \(report.remote.trackingName) \(theirs.short)"
                : "\(would ? "Would merge" : "Merged") \(report.remote.trackingName) \(theirs.short) into \(report.branchName) \(ours.short)"
            lines.append(
                "\(verb) (\(cards(changed))"
                    + "\(report.merge.map(MergeText.invalidCount) ?? "")):")
            for line in MergeText.decisionLines(
                decisions, others: report.merge?.changedWithoutDecision ?? 0, verbose: verbose)
            {
                lines.append("  \(line)")
            }
            if let merge = report.merge {
                lines += MergeText.invalidLines(merge, theirsName: "\(report.remote.trackingName)").map { "  " + $0 }
            }
            // Under the merge they belong to, not after the push.
            for note in report.otherFiles { lines.append("  \(note)") }
            for problem in report.invalidCards {
                lines.append(
                    "  \(problem.path) is not a valid card (\(problem.reason)) and \(would ? "would go" : "goes") to \(name) "
                        + "with the merge: fix it and `cards commit`")
            }
            let what = report.rebased ? "the rebased commits" : "the merge"
            if would {
                lines.append("Would push \(what) to \(name).")
            } else {
                lines.append("Pushed \(what) \(report.head?.short ?? "?") to \(name).")
            }
        }
        // A merge's notes were printed under it; a fast-forward names where its invalid files came from.
        if case .mergeAndPush = report.action {
        } else {
            for note in report.otherFiles { lines.append("  \(note)") }
            let from = if case .fastForward = report.action { " from \(name)" } else { "" }
            for problem in report.invalidCards {
                lines.append(
                    "  \(problem.path)\(from) is not a valid card (\(problem.reason)): fix it and `cards commit`")
            }
        }
        if let refused = report.massDelete {
            lines.append(
                "The push would be refused: it deletes \(refused.deleted) of the \(refused.of) cards on \(name) "
                    + "(use --allow-mass-delete if that is what you want).")
        }
        if report.refusedPushes > 0 && !would {
            lines.append("(\(name) moved meanwhile: fetched \(report.rounds) times.)")
        }
        if would {
            lines.append("Dry run: nothing changed except \(report.remote.trackingReference).")
        } else if let head = report.head, report.action != .upToDate {
            lines.append("Deck and \(name) are equal at \(head.short).")
        }
        return lines
    }

    static func cards(_ count: Int) -> String { "\(count) card\(count == 1 ? "" : "s")" }

    /// The decisions about cards that changed on either side, in the order of their lines (by title):
    /// the merge makes them in path order, which is the order of random ids.
    static func changedCards(_ decisions: [CardDecision]) -> [CardDecision] {
        // In the order String's `<` gives the summaries, compared as bytes where both are ASCII (the same
        // order: ASCII text is in normal form and its scalars are its bytes); through `<` each of a 200-card
        // merge's ~1,600 comparisons cost ~1,000 instructions, a twentieth of the whole `cards merge`.
        let changed = decisions.filter { $0.kind != .unchanged }
        let keys = changed.map { Array($0.summary.utf8) }
        let ascii = keys.map { $0.allSatisfy { $0 < 0x80 } }
        return changed.indices.sorted { left, right in
            guard ascii[left] && ascii[right] else { return changed[left].summary < changed[right].summary }
            return keys[left].lexicographicallyPrecedes(keys[right])
        }.map { changed[$0] }
    }
}

/// A progress line on standard error, only when it is a terminal: objects and bytes as they move.
final class ProgressLine: @unchecked Sendable {
    private let enabled = Output.isTerminal(2)
    private var shown = false
    private var last = ""
    private var lastDraw: ContinuousClock.Instant?
    private let dumb = getenv("TERM").map { String(cString: $0) == "dumb" } ?? true

    func settings() -> RemoteSettings {
        var settings = RemoteSettings.fromEnvironment()
        if enabled {
            settings.progress = { [self] progress in self.show(progress) }
        }
        return settings
    }

    private func show(_ progress: TransferProgress) {
        let verb: String
        switch progress.phase {
        case .receiving: verb = "Receiving objects"
        case .resolving: verb = "Resolving deltas"
        case .sending: verb = "Sending objects"
        }
        let percent = progress.totalObjects > 0 ? progress.objects * 100 / progress.totalObjects : 0
        let line = "\(verb): \(percent)% (\(progress.objects)/\(progress.totalObjects)), \(Self.bytes(progress.bytes))"
        guard line != last else { return }
        // At most ten redraws a second, but always the last one of a phase.
        let now = ContinuousClock.now
        let complete = progress.objects == progress.totalObjects
        guard complete || lastDraw.map({ $0.duration(to: now) >= .milliseconds(100) }) ?? true else { return }
        lastDraw = now
        last = line
        shown = true
        // Cut to the terminal's width: a line that wraps leaves its first rows behind at the next "\r".
        let width = RawTerminal.size(of: 2).map { max(1, $0.columns - 1) } ?? 79
        let shownLine = line.count > width ? String(line.prefix(width)) : line
        // A dumb terminal gets no escape sequence: pad over the old line instead.
        let text = dumb ? "\r" + shownLine.padding(to: min(70, width)) : "\r\u{1B}[K" + shownLine
        _ = text.withCString { write(2, $0, strlen($0)) }
    }

    /// Ends the line so what follows starts on its own.
    func finish() {
        guard shown else { return }
        shown = false
        _ = "\n".withCString { write(2, $0, 1) }
    }

    static func bytes(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1024 * 1024 { return "\(count / 1024) KiB" }
        return "\(count / (1024 * 1024)) MiB"
    }
}

extension String {
    /// The text padded with spaces to at least `width` characters.
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
