import CardModel
import CardStore
import Glibc
import SystemCalls

extension Commands {
    static let statusCommand = Command(
        spec: CommandSpec(
            name: "status", abstract: "Show hand edits in the working tree (and invalid card files).", usage: "status")
    ) { context, _ in
        let deck = try context.openDeck()
        // A write in progress (its files written, main not yet moved) would show as hand edits.
        let writersHeldOff = deck.isBare ? nil : try deck.holdingWritersOff()
        defer { withExtendedLifetime(writersHeldOff) {} }
        if !deck.isBare && deck.hasInterruptedWrite {
            // Its files would all look like hand edits (an import's cards, deleted).
            context.output.print(
                "A `cards` command was interrupted before it brought the working tree up to date with main: the next "
                    + "command that writes finishes it (`cards fsck --repair` does it now). Hand edits show after that."
            )
            return 0
        }
        let edits = deck.isBare ? [] : try deck.handEdits()
        // Committed files that are not valid cards (a `git commit` by hand, a merge that kept one as it
        // came) stay listed until fixed; one with a hand edit pending is listed as that edit.
        let edited = Set(edits.map(\.path))
        let committed = try deck.committedInvalidCards().filter { !edited.contains($0.path) }
        if deck.isBare && committed.isEmpty {
            context.output.print("A bare deck has no working tree, so no hand edits: change it with `cards` commands.")
            return 0
        }
        if edits.isEmpty && committed.isEmpty {
            context.output.print("Nothing to commit: the card files match the deck.")
            return 0
        }
        // One column as wide as its longest word, "reformatted".
        for edit in edits {
            let state = edit.problem == nil ? edit.change.rawValue : "invalid"
            let detail = edit.problem.map { ": \($0)" } ?? ""
            context.output.print("\(CardText.pad(state, 11)) \(CardText.path(edit.path))\(detail)")
        }
        for problem in committed {
            // Not the file's fault: the repository could not give its bytes.
            let detail =
                problem.couldNotRead ? "could not be read: \(problem.reason); `git fsck` says why" : problem.reason
            context.output.print("\(CardText.pad("invalid", 11)) \(CardText.path(problem.path)): \(detail) (committed)")
        }
        let invalid = edits.filter { $0.problem != nil }.count
        if !committed.isEmpty {
            context.output.error(
                deck.isBare
                    ? "Committed files that are not valid cards: fix them in a clone, commit and sync."
                    : "Committed files that are not valid cards: fix them by hand, then `cards commit`.")
        }
        if invalid > 0 {
            context.output.error(
                "\(invalid) invalid file\(invalid == 1 ? "" : "s"): fix \(invalid == 1 ? "it" : "them") before `cards commit`"
            )
        } else if edits.contains(where: { $0.problem == nil }) {
            context.output.error("`cards commit` records them (`cards sync` does too, first).")
        }
        return 0
    }

    static let commitCommand = Command(
        spec: CommandSpec(
            name: "commit", abstract: "Validate and commit hand edits to card files.",
            usage: "commit [-m <message>] [--allow-mass-delete]",
            options: [
                .value("--message", "message", "The commit's subject.", short: "-m"),
                .flag(
                    "--allow-mass-delete",
                    "Commit even when card files missing from the working tree would delete more than half of "
                        + "the cards."),
            ])
    ) { context, arguments in
        let deck = try context.openDeck()
        let (outcome, edits, reformatted) = try deck.commitHandEdits(
            message: arguments.value("--message"), allowMassDelete: arguments.has("--allow-mass-delete"))
        if reformatted > 0 {
            context.output.print(
                "Wrote back \(reformatted) reformatted card file\(reformatted == 1 ? "" : "s") as the deck has "
                    + "\(reformatted == 1 ? "it" : "them") (only the formatting differed).")
        }
        guard let outcome else {
            if reformatted == 0 { context.output.print("Nothing to commit: the card files match the deck.") }
            return 0
        }
        context.output.print(
            "Committed \(edits.count) hand edit\(edits.count == 1 ? "" : "s") as \(outcome.commit.short).")
        return 0
    }

    static let importCommand = Command(
        spec: CommandSpec(
            name: "import", abstract: "Import cards from a JSON array, JSON Lines or vCard file, in one commit.",
            usage: "import <file>", arguments: [("file", "The file to read, or - for standard input.")],
            positionals: 1...1,
            discussion: """
                Cards without an id get a new one. A card whose id is in the deck updates it: the fields given
                replace the deck's, those left out keep their values (its place in the deck too).
                A vCard file (.vcf, vCard 3.0 or 4.0, one or many vCards) gives a card for each URL,
                SOCIALPROFILE, X-SOCIALPROFILE and EMAIL; what cannot be a card is skipped and counted.
                """)
    ) { context, arguments in
        let path = arguments.positionals[0]
        var bytes: [UInt8]
        if path == "-" {
            bytes = try readStandardInput(limit: Deck.maximumImportSize)
        } else {
            do {
                // A link the user gives is theirs to give, and a pipe is read to its end (`cards import
                // <(jq …)` names /dev/fd/63, a link to a pipe).
                if FileSystem.isPipe(path) {
                    let fd = open(path, O_RDONLY | O_CLOEXEC)
                    guard fd >= 0 else {
                        throw CLIError(message: "cannot read \(path): \(SystemError.reason(errno))")
                    }
                    defer { close(fd) }
                    bytes = try readAll(fd, name: path, limit: Deck.maximumImportSize)
                } else {
                    bytes = try FileSystem.read(path, limit: Deck.maximumImportSize, followingLinks: true)
                }
            } catch let error as StoreError {
                throw CLIError(message: "\(error.message); give a readable JSON or JSON Lines file")
            }
        }
        let name = path == "-" ? "standard input" : path
        if isVCard(bytes, path: path) {
            return try importVCard(
                context, bytes: bytes, name: name, source: path == "-" ? "" : FileSystem.basename(of: path))
        }
        let cards = try Deck.encodeImport(bytes, name: name)
        bytes = []  // the file is parsed: free it before the commit's own memory peak
        let deck = try context.openDeck()
        if cards.count == 0 {
            context.output.print("Nothing to import: \(name) has no cards.")
            return 0
        }
        let summary = try deck.importCards(cards, source: path == "-" ? "" : FileSystem.basename(of: path))
        context.output.print(
            "Imported \(cards.count) card\(cards.count == 1 ? "" : "s"): \(summary.added) added, \(summary.updated) updated, \(summary.unchanged) unchanged."
        )
        return 0
    }

    static let exportCommand = Command(
        spec: CommandSpec(
            name: "export", abstract: "Print every card as a JSON array (deck order), or as a vCard.",
            usage: "export [--format json|vcard|vcard3]",
            options: [
                .value(
                    "--format", "format",
                    "json (the default), vcard (vCard 4.0: the owner with every card) or vcard3 (vCard 3.0).")
            ])
    ) { context, arguments in
        switch arguments.value("--format") ?? "json" {
        case "json": break
        case "vcard", "vcard4": return try exportVCard(context, version: .v4)
        case "vcard3": return try exportVCard(context, version: .v3)
        case let other:
            throw UsageError(message: "unknown format '\(other)'; give json, vcard or vcard3")
        }
        let deck = try context.openDeck()
        let (json, problems) = try deck.export()
        context.output.write(json)
        // A backup that lacks a card must not look like a whole one to the script that made it.
        for problem in problems {
            context.output.error(
                "error: " + problem.said(outcome: "not exported")
                    + (problem.couldNotRead
                        ? "; repair it, then export again"
                        : "; fix it (`cards fsck` lists such files), then export again"))
        }
        if !problems.isEmpty {
            context.output.error(
                "Error: the export lacks \(problems.count) card file\(problems.count == 1 ? "" : "s") (named above)")
        }
        return problems.isEmpty ? 0 : 1
    }

    static let fsckCommand = Command(
        spec: CommandSpec(
            name: "fsck", abstract: "Verify the deck: objects, card files, index and working tree.",
            usage: "fsck [--repair]",
            options: [
                .flag("--repair", "Remove stale locks and temp files, bring a working tree left behind up to date.")
            ])
    ) { context, arguments in
        let deck = try context.openDeck()
        let report = try deck.check(repair: arguments.has("--repair"))
        for line in report.repaired { context.output.print("repaired: \(line)") }
        for line in report.notes { context.output.print("note: \(line)") }
        for problem in report.problems { context.output.error("problem: \(problem)") }
        if report.problems.isEmpty {
            let edits =
                report.handEdits > 0
                ? " (\(report.handEdits) hand edit\(report.handEdits == 1 ? "" : "s") not committed: see `cards status`)"
                : ""
            context.output.print("The deck is consistent\(edits).")
            return 0
        }
        throw CLIError(
            message:
                "\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") found in \(deck.location)")
    }

    static func readStandardInput(limit: Int) throws -> [UInt8] {
        try readAll(0, name: "standard input", limit: limit)
    }

    /// Everything `fd` gives up to its end (a pipe, a terminal), `name` in errors.
    static func readAll(_ fd: Int32, name: String, limit: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { FileDescriptor(fd).read(into: $0) }
            if count < 0 { throw CLIError(message: "cannot read \(name): \(SystemError.reason(errno))") }
            if count == 0 { break }
            bytes += buffer[0..<count]
            if bytes.count > limit { throw CLIError(message: "\(name) is larger than \(limit) bytes") }
        }
        return bytes
    }
}
