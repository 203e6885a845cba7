/// The manual page cards(1), written from the same command specs as `--help` (so the two never
/// drift): `cards __manpage` prints it, and `./dev install` and `./dev deb` install what it prints.
enum ManPage {
    /// The page in man(7) markup: every command of `cards --help`, and the `remote` group's subcommands,
    /// with its usage, arguments, options and discussion.
    static var text: String {
        var page = """
            .TH CARDS 1 "" "cards \(CardsCLI.version)" "User Commands"
            .SH NAME
            cards \\- a deck of identity cards kept in git, synced through any git remote
            .SH SYNOPSIS
            .B cards
            [\\fB\\-\\-deck\\fR \\fIdir\\fR] \\fIcommand\\fR [\\fIoptions\\fR]
            .SH DESCRIPTION
            A deck keeps the links people put on a profile card (GitHub, Mastodon, a personal site, an email
            address) as one JSON file per card in a git repository. Every change is a git commit, and any git
            remote carries the deck between devices; decks that changed apart are merged card by card and
            field by field.
            .SH OPTIONS
            .TP
            \\fB\\-\\-deck\\fR \\fIdir\\fR
            The deck to use (default: \\fBCARDS_DECK\\fR, else the deck containing the current folder); before
            or after the command.
            .TP
            \\fB\\-\\-version\\fR
            Show the version.
            .TP
            \\fB\\-h\\fR, \\fB\\-\\-help\\fR
            Show help information.
            .SH COMMANDS

            """
        for command in Commands.all {
            page += section(command.spec)
            if let group = Commands.groups[command.spec.name] {
                for sub in group { page += section(sub.spec) }
            }
        }
        page += """
            .SH ENVIRONMENT
            .TP
            .B CARDS_DECK
            The deck to use when \\fB\\-\\-deck\\fR is not given.
            .TP
            .BR CARDS_AUTHOR_NAME ", " CARDS_AUTHOR_EMAIL
            The author of the commits, in place of git's \\fBuser.name\\fR and \\fBuser.email\\fR.
            .TP
            .B CARDS_TRANSPORT
            \\fBgit\\fR or \\fBlibgit2\\fR: what fetches and pushes (default: git's \\fBcards.transport\\fR, else the
            git executable where installed).
            .TP
            .B CARDS_NETWORK_TIMEOUT
            Seconds to wait for a server that sends nothing before giving up.
            .SH EXIT STATUS
            0 on success, 1 on failure, 64 when the command line is wrong.
            .SH SEE ALSO
            .BR git (1)

            """
        return page
    }

    /// One command's subsection.
    static func section(_ spec: CommandSpec) -> String {
        var text = ".SS \"cards \(escape(spec.name))\"\n"
        text += "\(escape(spec.abstract))\n.PP\n.B cards\n\(escape(spec.usage))\n"
        if let discussion = spec.discussion { text += paragraphs(discussion) }
        for (name, help) in spec.arguments {
            text += ".TP\n\\fI\(escape(name))\\fR\n\(escape(help))\n"
        }
        for option in spec.options {
            var label = option.short.map { "\\fB\(escape($0))\\fR, " } ?? ""
            label += "\\fB\(escape(option.name))\\fR"
            if let valueName = option.valueName { label += " \\fI\(escape(valueName))\\fR" }
            text += ".TP\n\(label)\n\(escape(option.help))\n"
        }
        for (name, help) in spec.subcommands {
            text += ".TP\n\\fB\(escape(name))\\fR\n\(escape(help))\n"
        }
        return text
    }

    /// `text`'s paragraphs (blank lines between them), each after a paragraph break.
    static func paragraphs(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .split(whereSeparator: { $0.allSatisfy(\.isWhitespace) })
            .map { ".PP\n" + $0.map { escape(String($0)) }.joined(separator: "\n") + "\n" }
            .joined()
    }

    /// `text` as roff reads it literally: backslashes and hyphens escaped, characters beyond ASCII named
    /// (`\[u2192]`: troff reads bytes), and a line that starts like a request (`.` or `'`) kept as text.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case _ where scalar.isASCII: out.unicodeScalars.append(scalar)
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\[u\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex)]"
            }
        }
        let trimmed = out.drop(while: { $0 == " " })
        if trimmed.hasPrefix(".") || trimmed.hasPrefix("'") { return "\\&" + trimmed }
        return String(trimmed)
    }
}
