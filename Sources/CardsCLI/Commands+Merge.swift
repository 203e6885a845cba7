import CardModel
import CardStore
import DeckMerge
import GitCore
import Glibc

extension Commands {
    static let mergeCommand = Command(
        spec: CommandSpec(
            name: "merge", abstract: "Merge another branch or ref into this deck, card by card and field by field.",
            usage: "merge <ref> [--policy keep|delete] [--dry-run] [--allow-unrelated-histories]",
            arguments: [("ref", "A branch, remote-tracking ref (origin/main) or commit.")],
            options: [
                .value(
                    "--policy", "keep|delete",
                    "Deleted on one side, edited on the other: keep the card (default) or delete it."),
                .flag("--dry-run", "Print the decisions and write nothing."),
                .flag("--allow-unrelated-histories", "Merge a ref that shares no commit with this deck."),
                .flag(
                    "--verbose",
                    "One line for every changed card (a merge of more than \(MergeText.summaryThreshold) prints a "
                        + "summary)."),
            ],
            positionals: 1...1)
    ) { context, arguments in
        let policy = try parsePolicy(arguments.value("--policy"))
        let deck = try context.openDeck()
        let reference = arguments.positionals[0]
        let resolved: ObjectID?
        do throws(StoreError) {
            resolved = try deck.resolveCommit(reference)
        } catch {
            throw CLIError(message: "cannot read '\(reference)': \(error.cause?.message ?? error.message)")
        }
        guard let theirs = resolved else {
            let remotes = ((try? deck.remotes()) ?? []).map(\.name)
            let remote = reference.split(separator: "/", maxSplits: 1).first.map(String.init)
            let hint =
                if let remote, reference.contains("/"), remotes.contains(remote) {
                    "; fetch it first (`git fetch \(ShellWord.operand(remote))`), or let `cards sync \(ShellWord.operand(remote))` fetch and merge"
                } else if remotes.isEmpty {
                    "; this deck has no remote: `cards remote add origin URL`, then `cards sync` fetches and merges"
                } else {
                    "; try a branch such as \(remotes[0])/main (`git branch -a` lists them)"
                }
            throw CLIError(message: "'\(reference)' names no commit in this deck\(hint)")
        }
        let dryRun = arguments.has("--dry-run")
        let report = try deck.merge(
            theirs: theirs, theirsName: reference, policy: policy, dryRun: dryRun,
            allowUnrelatedHistories: arguments.has("--allow-unrelated-histories"))
        printMergeReport(
            report, name: reference, dryRun: dryRun, verbose: arguments.has("--verbose"), output: context.output)
        if !report.invalid.isEmpty && !dryRun { context.output.error(MergeText.invalidSummary(report.invalid.count)) }
        return report.invalid.isEmpty ? 0 : 1
    }

    static func parsePolicy(_ text: String?) throws -> MergePolicy {
        guard let text else { return .keep }
        guard let policy = MergePolicy(rawValue: text) else {
            throw UsageError(message: "--policy '\(text)': expected keep or delete")
        }
        return policy
    }

    static func printMergeReport(_ report: MergeReport, name: String, dryRun: Bool, verbose: Bool, output: Output) {
        let would = dryRun ? "Would " : ""
        switch report.kind {
        case .upToDate:
            output.print("Already up to date with \(name).")
        case .fastForward:
            output.print(
                dryRun ? "Would fast-forward to \(name)." : "Fast-forwarded to \(name) (\(report.commit?.short ?? ""))."
            )
            for line in report.otherFiles { output.print("  \(line)") }
        case .merged:
            let changed = SyncText.changedCards(report.decisions)
            let count = changed.count + report.changedWithoutDecision
            output.print(
                dryRun
                    ? "Would merge \(name): \(count) card\(count == 1 ? "" : "s") changed on either side."
                    : "Merged \(name) into main (merge commit \(report.commit?.short ?? "")): \(count) card\(count == 1 ? "" : "s") changed on either side\(MergeText.invalidCount(report))."
            )
            // One line a card, or a summary of a big merge, as `cards sync` prints them.
            for line in MergeText.decisionLines(changed, others: report.changedWithoutDecision, verbose: verbose) {
                output.print("  \(line)")
            }
            for line in report.otherFiles { output.print("  \(line)") }
            let conflicts = report.conflicts
            if conflicts > 0 {
                output.print(
                    "\(would)\(dryRun ? "record" : "Recorded") \(conflicts) conflict\(conflicts == 1 ? "" : "s"): see `cards conflicts`, settle with `cards resolve`."
                )
            }
        }
        for line in MergeText.invalidLines(report, theirsName: name) { output.error(line) }
    }

    static let conflictsCommand = Command(
        spec: CommandSpec(
            name: "conflicts", abstract: "List what merges decided on their own (conflict records).",
            usage: "conflicts [--json]",
            options: [.flag("--json", "Print a JSON array: one object per card with its records.")])
    ) { context, arguments in
        let deck = try context.openDeck()
        let cards = try deck.conflictedCards()
        if arguments.has("--json") {
            let items: [JSONValue] = cards.map { card in
                .object(["id": .string(card.id), "title": .string(card.title), "conflicts": .array(card.conflicts)])
            }
            context.output.write(JSONValue.array(items).canonicalBytes())
            return 0
        }
        if cards.isEmpty {
            context.output.print("No conflicts.")
            return 0
        }
        for card in cards {
            context.output.print("\(card.id.prefix(8))  \(card.title)")
            for record in ConflictRecord.records(in: card) {
                if record.isDeletion {
                    context.output.print(
                        "    deleted in \(record.deletedIn.map { String($0.prefix(7)) } ?? "?") but edited in \(record.editedIn.map { String($0.prefix(7)) } ?? "?"): kept"
                    )
                    context.output.print("    settle: cards resolve \(card.id.prefix(8)) --keep | --delete")
                    continue
                }
                // The value the card holds: the merge's pick, or an edit's since.
                let kept = card.fields[record.field].map { CardText.oneLine($0.canonicalText()) } ?? "(removed)"
                context.output.print("    \(CardText.fieldName(record.field)): kept \(kept)")
                let choices = ConflictResolver.choices(in: card, field: record.field)
                if choices.isEmpty {
                    context.output.print(
                        "    settle: cards resolve \(card.id.prefix(8)) \(CardText.fieldOption(record.field)) --keep "
                            + "(the record holds no values to choose from)")
                    continue
                }
                for (index, choice) in choices.enumerated() {
                    let value = choice.value.map { CardText.oneLine($0.canonicalText()) } ?? "(removed)"
                    context.output.print("      \(index + 1). \(value)  (\(choice.commit.prefix(7)))")
                }
                context.output.print(
                    "    settle: cards resolve \(card.id.prefix(8)) \(CardText.fieldOption(record.field)) --pick N")
            }
        }
        return 0
    }

    static let resolveCommand = Command(
        spec: CommandSpec(
            name: "resolve", abstract: "Settle a conflict record as an ordinary commit.",
            usage: "resolve <id> (--field <field> (--pick <n> | --keep) | --keep | --delete)",
            arguments: [("id", "The card.")],
            options: [
                .value("--field", "field", "The field in conflict (as `cards conflicts` lists it)."),
                .value("--pick", "n", "The number of the value to keep."),
                .flag(
                    "--keep",
                    "Deleted on one side, edited on the other: keep the card; with --field, keep the field as it is."),
                .flag("--delete", "Deleted on one side, edited on the other: delete it."),
            ],
            positionals: 1...1)
    ) { context, arguments in
        let field: String
        let resolution: ConflictResolution
        switch (
            arguments.value("--field"), arguments.value("--pick"), arguments.has("--keep"), arguments.has("--delete")
        ) {
        case (let name?, let pick?, false, false):
            guard let number = Int(pick), number >= 1 else {
                throw UsageError(message: "--pick '\(pick)': expected a choice number from 1")
            }
            field = name
            resolution = .pick(number)
        case (let name, nil, true, false):
            field = name ?? "*"
            resolution = .keep
        case (nil, nil, false, true):
            field = "*"
            resolution = .delete
        default:
            throw UsageError(message: "give --field F --pick N, --field F --keep, or --keep, or --delete")
        }
        let deck = try context.openDeck()
        let id = try context.resolveCard(arguments.positionals[0], in: deck)
        let result = try deck.resolve(id, field: field, resolution)
        context.output.print(result == nil ? "Deleted card \(id)." : "Resolved card \(id).")
        return 0
    }

    static let mergeDriverCommand = Command(
        spec: CommandSpec(
            name: "merge-driver", abstract: "git merge driver: merges one card file field by field into OURS.",
            usage: "merge-driver <base> <ours> <theirs> [<path>]",
            arguments: [
                ("base", "The common ancestor's version (%O)."),
                ("ours", "Our version, overwritten with the result (%A)."),
                ("theirs", "Their version (%B)."), ("path", "The card's path in the deck (%P)."),
            ],
            positionals: 3...4,
            discussion:
                "Registered by `cards init` and `cards clone` as merge.cards.driver, for `git merge` and `git pull`.")
    ) { context, arguments in
        let paths = arguments.positionals
        let label = paths.count > 3 ? paths[3] : paths[1]
        let expectedID = paths.count > 3 ? CardID.id(fromPath: paths[3]) : nil
        func load(_ path: String) throws -> (card: Card?, blob: String) {
            let bytes = try FileSystem.read(path, limit: Card.maximumFileSize)
            if bytes.isEmpty { return (nil, ObjectID.blobHash(of: bytes).hex) }
            do {
                return (try Card.decode(bytes, expectedID: expectedID), ObjectID.blobHash(of: bytes).hex)
            } catch {
                throw CLIError(message: "\(label): \(error); merge it by hand")
            }
        }
        // A broken base (both sides since wrote valid cards): the sides merge as two additions, as `cards merge` does.
        let base: (card: Card?, blob: String) =
            FileSystem.exists(paths[0]) ? (try? load(paths[0])) ?? (nil, "") : (nil, "")
        let ours = try load(paths[1])
        let theirs = try load(paths[2])
        // git gives no commits: name each side by its blob, which is the same on every machine.
        let outcome = DeckMerger.mergeCard(
            id: ours.card?.id ?? theirs.card?.id ?? expectedID ?? "",
            CardVersions(base: base.card, ours: ours.card, theirs: theirs.card),
            ours: MergeSide(commit: ours.blob, time: 0), theirs: MergeSide(commit: theirs.blob, time: 0))
        guard let card = outcome.card else {
            throw CLIError(message: "\(label): the merge deletes this card; resolve it with git rm")
        }
        // Each side was a valid card, but what the merge adds (a conflict record wraps a value in two more
        // levels and keeps both values) can take a card past a limit: then it is git's conflict, OURS kept.
        let merged = card.encoded()
        do {
            _ = try Card.decode(merged, expectedID: expectedID)
        } catch {
            throw CLIError(message: "\(label): the merged card would break a card rule (\(error)); merge it by hand")
        }
        try FileSystem.writeAtomically(merged, to: paths[1], durable: false)
        if !outcome.newConflicts.isEmpty {
            context.output.error("\(label): \(outcome.decision.summary) (recorded in the card; see `cards conflicts`)")
        }
        return 0
    }
}

/// What `cards merge` and `cards sync` say of a merge's cards, and of card files it found invalid.
enum MergeText {
    /// Up to this many changed cards, a merge prints a line for each; more, a summary (as git prints a
    /// diffstat): how many of each kind, every conflict in full, the first `summaryFirst` others, and how
    /// to see the rest.
    static let summaryThreshold = 10
    /// How many of the other changes a summary names.
    static let summaryFirst = 5

    /// The lines for a merge's changed cards (`decisions`, in print order; `others` more changed cards that
    /// no decision names), each a card's line or, past `summaryThreshold` unless `verbose`, the summary.
    static func decisionLines(_ decisions: [CardDecision], others: Int = 0, verbose: Bool) -> [String] {
        guard !verbose && decisions.count > summaryThreshold else { return decisions.map(\.summary) }
        // Counted in one pass (a filtered copy of every decision for each kind was most of printing a report).
        var tally: [CardDecision.Kind: Int] = [:]
        for decision in decisions { tally[decision.kind, default: 0] += 1 }
        var counts: [(String, Int)] = []
        for kind in kindOrder {
            if let count = tally[kind], count > 0 { counts.append((kindWords(kind), count)) }
        }
        var lines = [counts.map { "\($0.1) \($0.0)" }.joined(separator: ", ") + (others > 0 ? ", \(others) other" : "")]
        // What a person must look at is never summed up.
        let needsLook: Set<CardDecision.Kind> = [.conflict, .keptEditedOverDelete, .deletedOverEdit]
        let conflicts = decisions.filter { needsLook.contains($0.kind) }
        lines += conflicts.map(\.summary)
        let rest = decisions.filter { !needsLook.contains($0.kind) }
        lines += rest.prefix(summaryFirst).map(\.summary)
        if rest.count > summaryFirst {
            lines.append(
                "… and \(rest.count - summaryFirst) more (--verbose lists every card; `cards log` shows the commits "
                    + "that changed them)")
        }
        return lines
    }

    /// The kinds in the order a summary counts them.
    static let kindOrder: [CardDecision.Kind] = [
        .tookOurs, .tookTheirs, .merged, .sameOnBoth, .deletedOnBoth, .conflict, .keptEditedOverDelete,
        .deletedOverEdit,
    ]

    /// How a summary names a kind of decision.
    static func kindWords(_ kind: CardDecision.Kind) -> String {
        switch kind {
        case .unchanged: "unchanged"
        case .tookOurs: "changed on ours"
        case .tookTheirs: "changed on theirs"
        case .merged: "merged field by field"
        case .sameOnBoth: "changed alike on both"
        case .deletedOnBoth: "deleted on both"
        case .conflict: "with a conflict"
        case .keptEditedOverDelete: "kept (edited over a deletion)"
        case .deletedOverEdit: "deleted over an edit"
        }
    }

    /// The last line when the deck now holds card files that are not valid cards (exit 1).
    static func invalidSummary(_ count: Int) -> String {
        "Error: the deck now holds \(count) card file\(count == 1 ? "" : "s") that \(count == 1 ? "is" : "are") not "
            + "a valid card (named above): fix \(count == 1 ? "it" : "them") by hand, then `cards commit` (`cards status` "
            + "lists them)"
    }

    /// "; 1 card file not valid" when the merge found any, for the line that counts the changed cards.
    static func invalidCount(_ report: MergeReport) -> String {
        let count = Set((report.invalid + report.setAside).map(\.path)).count
        return count == 0 ? "" : "; \(count) card file\(count == 1 ? "" : "s") not valid"
    }

    /// One line a file (`cards sync` indents them under the merge's card lines).
    static func invalidLines(_ report: MergeReport, theirsName: String) -> [String] {
        func side(_ version: InvalidVersion) -> String { version.isOurs ? "this deck's" : "\(theirsName)'s" }
        return report.invalid.map {
            "error: \($0.path), \(side($0)) version, is not a valid card (\($0.reason)); kept as it came: fix it "
                + "and `cards commit`"
        }
            + report.setAside.map {
                "note: \($0.path), \(side($0)) version, is not a valid card (\($0.reason)); the other side's change "
                    + "to it is kept (the invalid file: `git show \(ShellWord.quoted($0.commit.short + ":" + $0.path))`)"
            }
    }
}
