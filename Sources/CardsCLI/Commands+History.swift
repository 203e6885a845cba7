import CardModel
import CardStore

extension Commands {
    static let undoCommand = Command(
        spec: CommandSpec(
            name: "undo", abstract: "Revert the last card operation as a new commit.", usage: "undo [<commit>]",
            arguments: [("commit", "The commit of the operation to undo (default: this deck's newest).")],
            positionals: 0...1,
            discussion: """
                Without a commit: the newest card operation made on this deck and not yet undone; repeat to go
                further back. With one (an id or a prefix from `cards log`): that operation, wherever it was made;
                the commit of an undo is undone too, which makes its change again (a redo).
                A deleted card comes back with the same id and content. What changed since is kept: of a card
                edited since, only the fields still as the operation left them are changed back.
                """)
    ) { context, arguments in
        let deck = try context.openDeck()
        let result = try deck.undo(arguments.positionals.first)
        // Said as the new commit's subject says it (`Deck.undoSubject`): "Undo: X" undid X, "Redo: X" redid it.
        let undone = result.undone.commit
        let subject = Deck.undoSubject(of: undone.subject)
        if subject.hasPrefix("Redo: ") {
            context.output.print("Redid: \(subject.dropFirst(6)) (the undo \(undone.id.short) undone).")
        } else {
            context.output.print("Undid: \(subject.dropFirst(6)) (\(undone.id.short)).")
        }
        for skip in result.skipped {
            context.output.error("note: \(skip) changed since; left as it is now")
        }
        for problem in result.invalid {
            context.output.error(
                "note: \(problem.path) is back as it was, which is not a valid card (\(problem.reason)): fix it by hand "
                    + "and `cards commit`")
        }
        return 0
    }

    static let restoreCommand = Command(
        spec: CommandSpec(
            name: "restore", abstract: "Bring back a deleted card from history.", usage: "restore <id>",
            arguments: [("id", "The deleted card's id or a unique prefix.")], positionals: 1...1)
    ) { context, arguments in
        let deck = try context.openDeck()
        let (card, commit) = try deck.restore(arguments.positionals[0])
        context.output.print("Restored card \(card.id) \"\(card.title)\" from \(commit.short).")
        return 0
    }

    static let logCommand = Command(
        spec: CommandSpec(
            name: "log", abstract: "Show the deck's history, newest first.", usage: "log [-n <n>] [--json]",
            options: [
                .value("--max-count", "n", "Show at most n commits.", short: "-n"),
                .flag("--json", "Print a JSON array of commits."),
            ])
    ) { context, arguments in
        var limit: Int?
        if let text = arguments.value("--max-count") {
            guard let value = Int(text), value >= 0 else {
                throw UsageError(message: "-n '\(text)': expected a whole number")
            }
            limit = value
        }
        let deck = try context.openDeck()
        let entries = limit == 0 ? [] : try deck.log(limit: limit)
        if arguments.has("--json") {
            context.output.write(
                JSONValue.array(entries.map { logJSON($0, signed: deck.isSigned($0.commit.id)) }).canonicalBytes())
        } else {
            for entry in entries {
                let commit = entry.commit
                context.output.print(
                    "\(commit.id.short) \(DateText.text(commit.author.time, offsetMinutes: commit.author.offsetMinutes))  \(commit.subject)"
                )
            }
        }
        if deck.isShallow && limit.map({ entries.count < $0 }) ?? true {
            context.output.error(
                "note: this deck is a shallow clone: its history stops here (`git fetch --unshallow` brings the rest)")
        }
        return 0
    }

    static func logJSON(_ entry: LogEntry, signed: Bool) -> JSONValue {
        let commit = entry.commit
        var trailers: [String: JSONValue] = [:]
        for (key, value) in commit.trailers {
            var list = trailers[key]?.arrayValue ?? []
            list.append(.string(value))
            trailers[key] = .array(list)
        }
        return .object([
            "commit": .string(commit.id.hex),
            "parents": .array(commit.parents.map { .string($0.hex) }),
            "author": .object(["name": .string(commit.author.name), "email": .string(commit.author.email)]),
            "time": .number(String(commit.author.time)),
            "date": .string(DateText.iso8601(commit.author.time, offsetMinutes: commit.author.offsetMinutes)),
            "signed": .bool(signed),
            "subject": .string(commit.subject),
            "message": .string(commit.message),
            "op": entry.operation.map { .string($0) } ?? .null,
            "cards": .array(entry.cardIDs.map { .string($0) }),
            "trailers": .object(trailers),
        ])
    }
}

/// Dates without Foundation, in the time zone each commit was recorded in (as `git log` shows them).
enum DateText {
    /// "2026-11-29 19:30 +0545": the time where it was made, with its offset from UTC.
    static func text(_ seconds: Int64, offsetMinutes: Int32) -> String {
        let (year, month, day, hour, minute, _) = civil(local(seconds, offsetMinutes))
        return "\(year)-\(two(month))-\(two(day)) \(two(hour)):\(two(minute)) \(zone(offsetMinutes, colon: false))"
    }

    /// "2026-11-29T19:30:05+05:45" (ISO 8601 with the commit's offset).
    static func iso8601(_ seconds: Int64, offsetMinutes: Int32) -> String {
        let (year, month, day, hour, minute, second) = civil(local(seconds, offsetMinutes))
        return "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))"
            + zone(offsetMinutes, colon: true)
    }

    /// The wall-clock seconds where the commit was made. A commit's time comes from whoever made it (any
    /// 64-bit number libgit2 read): kept to ±2^50 s, far beyond any calendar, so no sum here overflows.
    private static func local(_ seconds: Int64, _ offsetMinutes: Int32) -> Int64 {
        let limit: Int64 = 1 << 50
        return min(max(seconds, -limit), limit) + Int64(offsetMinutes) * 60
    }

    /// "+0545" or "+05:45".
    private static func zone(_ offsetMinutes: Int32, colon: Bool) -> String {
        let magnitude = Int64(offsetMinutes.magnitude)
        return (offsetMinutes < 0 ? "-" : "+") + two(magnitude / 60) + (colon ? ":" : "") + two(magnitude % 60)
    }

    private static func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Howard Hinnant's days-to-civil algorithm.
    private static func civil(_ seconds: Int64) -> (Int64, Int64, Int64, Int64, Int64, Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, rest / 3_600, (rest % 3_600) / 60, rest % 60)
    }
}
