import CardModel
import CardStore
import DeckPage
import GitCore
import Glibc
import QRCode
import TerminalUI
import VCard

extension Commands {
    static let qrCommand = Command(
        spec: CommandSpec(
            name: "qr", abstract: "Show a QR code of a card's link, or of the deck's contact (vCard).",
            usage: "qr [<id>] [--svg <file>] [--png <file>]",
            arguments: [("id", "The card's id or a unique prefix; none: the deck's contact as a vCard.")],
            options: [
                .value("--svg", "file", "Write the code as an SVG image instead of printing it."),
                .value("--png", "file", "Write the code as a PNG image instead of printing it."),
            ],
            positionals: 0...1,
            discussion: """
                Printed with ANSI colours (black on white) on a terminal (with NO_COLOR, light blocks for
                light text on a dark background), as dark blocks on a light background to a file or pipe. The deck's contact holds the owner's name and each
                card's link; `cards export --format vcard` gives the whole vCard.
                """)
    ) { context, arguments in
        let deck = try context.openDeck()
        let text: String
        if let reference = arguments.positionals.first {
            text = CardQR.text(for: try context.card(matching: reference, in: deck))
        } else {
            let snapshot = try deck.snapshot()
            let (cards, _) = try snapshot.allCards()
            let (name, owner) = try snapshot.nameAndOwner()
            text = CardQR.contact(owner: owner, deckName: name, cards: cards)
        }
        let matrix: QRMatrix
        do {
            matrix = try QRCode.encode(text)
        } catch {
            let hint = arguments.positionals.isEmpty ? " (give a card's id for its link alone)" : ""
            throw CLIError(message: "\(error)\(hint)")
        }
        let svg = arguments.value("--svg")
        let png = arguments.value("--png")
        if let svg { try FileSystem.writeAtomically(Array(matrix.svg().utf8), to: svg, durable: false) }
        if let png { try FileSystem.writeAtomically(matrix.png(), to: png, durable: false) }
        if svg == nil && png == nil {
            let terminal = Output.isTerminal(1)
            // Written as it is: its colours are ours (`print` would show them as text, as it shows a
            // remote's control characters).
            context.output.write(Array(matrix.terminalText(style: ServeAccess.qrStyle(terminal: terminal)).utf8))
            // Two quiet modules either side, one column each: a wrapped code cannot be scanned.
            let columns = matrix.width + 4
            if terminal, let size = RawTerminal.size(of: 1), size.columns < columns {
                context.output.error(
                    "This code is \(columns) columns wide and the terminal \(size.columns): widen the window, or "
                        + "write it to a file with --png FILE or --svg FILE"
                        + (arguments.positionals.isEmpty ? " (or give a card's id: its link alone is smaller)" : ""))
            }
        }
        return 0
    }

    static let publishCommand = Command(
        spec: CommandSpec(
            name: "publish", abstract: "Write the deck as a static profile page (and commit it to a branch).",
            usage: "publish <dir> [--url <url>] [--branch <branch>]",
            arguments: [
                ("dir", "The folder to write index.html, contact.vcf and icons-LICENSE.txt into (made if missing).")
            ],
            options: [
                .value("--url", "url", "The address the page will be served at: its h-card uid and QR code."),
                .value(
                    "--branch", "branch",
                    "Also commit the page to this branch of the deck (such as pages), only when it changed."),
            ],
            positionals: 1...1,
            discussion: """
                The page needs no JavaScript: the owner as an h-card, every card a link with rel="me" drawn as
                `cards serve` draws it (its colour, black or white text, its platform's glyph), the vCard to
                download, the QR code of --url; icons-LICENSE.txt is the glyphs' licence (SIL OFL 1.1). The
                same deck gives the same bytes on every device. Push the branch to serve it: `git push origin
                pages`.
                """)
    ) { context, arguments in
        let deck = try context.openDeck()
        let url = arguments.value("--url")
        if let url {
            // A card link's rule, said in its own words; a mailto: address is no page's.
            do throws(CardValidationError) {
                try Card.checkURL(url)
            } catch {
                throw UsageError(message: "--url: \(error.rule)")
            }
            guard Card.webHost(of: url) != nil else {
                throw UsageError(message: "--url \(Card.quoted(url)) is not an absolute http or https URL")
            }
        }
        // A branch the page cannot go on is refused before anything is written.
        if let branch = arguments.value("--branch") { try deck.checkPagesBranch(branch) }
        let (files, owner) = try profileFiles(deck, pageURL: url)
        let folder = arguments.positionals[0]
        try FileSystem.makeDirectories(folder)
        for (name, bytes) in files {
            try FileSystem.writeAtomically(bytes, to: "\(folder)/\(name)", durable: false)
        }
        let names = files.map(\.path)
        context.output.print("Wrote \(names.dropLast().joined(separator: ", ")) and \(names.last ?? "") to \(folder).")
        if owner == nil {
            context.output.error(
                "note: the deck has no owner, so the page is headed by the deck's name; `cards owner --name "
                    + "\"Your Name\"` puts yours there")
        }
        if let branch = arguments.value("--branch") {
            if let commit = try deck.publishPages(files, branch: branch, message: "Publish the profile page") {
                context.output.print(
                    "Committed the page to \(branch) as \(commit.short): `git push origin \(ShellWord.quoted(branch))` serves it."
                )
            } else {
                context.output.print("The page on \(branch) is already so; nothing to commit.")
            }
        }
        return 0
    }

    /// The published files: the page, the vCard it links to and the licence of the glyphs it inlines, made from `main` as it is, in one read of
    /// the cards: each card's page row and vCard line made together on the thread that decoded it, a NUL
    /// between them (no card text may hold one).
    static func profileFiles(_ deck: Deck, pageURL: String?) throws -> (
        files: [(path: String, bytes: [UInt8])], owner: DeckOwner?
    ) {
        let snapshot = try deck.snapshot()
        let (name, owner) = try snapshot.nameAndOwner()
        let (both, problems) = try snapshot.allCards(encoding: {
            ProfilePage.row($0) + [0] + VCardWriter.encoded($0, version: .v3)
        })
        if let problem = problems.first {
            throw CLIError(
                message: problem.said(outcome: "not published")
                    + "; fix it (`cards fsck` lists such files), then publish again; nothing was written")
        }
        var qr: String?
        if let pageURL {
            do {
                qr = try QRCode.encode(pageURL).svg(size: 200)
            } catch {
                throw CLIError(message: "\(error); nothing was written")
            }
        }
        var rows: [[UInt8]] = []
        rows.reserveCapacity(both.count)
        var vcard = VCardWriter(
            version: .v3, owner: owner, deckName: name, fallbackUID: VCardWriter.stableUID(for: name))
        for bytes in both {
            let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
            rows.append(Array(bytes[..<split]))
            vcard.append(encoded: Array(bytes[min(split + 1, bytes.endIndex)...]))
        }
        let page = ProfilePage.document(owner: owner, deckName: name, rows: rows, pageURL: pageURL, qrSVG: qr)
        let files = [
            (ProfilePage.pageFile, page), (ProfilePage.vcardFile, vcard.finish()),
            (ProfilePage.iconsLicenseFile, ProfilePage.iconsLicense),
        ]
        return (files, owner)
    }
}
