import CardModel
import CardStore

extension Commands {
    static let ownerCommand = Command(
        spec: CommandSpec(
            name: "owner", abstract: "Show or set the person the cards belong to (deck.json), in one commit.",
            usage: "owner [--name <name>] [--note <text>] [--pronouns <text>] [--json]",
            options: [
                .value("--name", "name", "The owner's full name (1 to 200 characters, one line)."),
                .value("--note", "text", "A short note about the owner (at most 1,000 characters; \"\" removes it)."),
                .value("--pronouns", "text", "The owner's pronouns, as `she/her` (\"\" removes them)."),
                .flag("--json", "Print the owner object as deck.json holds it."),
            ],
            discussion: """
                With no option, prints the owner. The owner is the vCard's name (`cards export --format vcard`)
                and the heading of the published page (`cards publish`); a sync merges it member by member.
                """)
    ) { context, arguments in
        let deck = try context.openDeck()
        let name = arguments.value("--name")
        let note = arguments.value("--note")
        let pronouns = arguments.value("--pronouns")
        if name != nil || note != nil || pronouns != nil {
            guard let outcome = try deck.setOwner(name: name, note: note, pronouns: pronouns) else {
                context.output.print("The owner is already so; nothing to commit.")
                return 0
            }
            context.output.print("Set the deck's owner in \(outcome.commit.short).")
            return 0
        }
        guard let owner = try deck.snapshot().owner() else {
            if arguments.has("--json") {
                context.output.print("null")
            } else {
                context.output.print("The deck has no owner yet: `cards owner --name NAME` sets one.")
            }
            return 0
        }
        if arguments.has("--json") {
            context.output.write(owner.jsonValue.canonicalBytes())
            return 0
        }
        context.output.print("Name:      \(Output.visible(owner.name))")
        if !owner.pronouns.isEmpty { context.output.print("Pronouns:  \(Output.visible(owner.pronouns))") }
        if !owner.note.isEmpty {
            let lines = owner.note.split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                context.output.print("\(index == 0 ? "Note:      " : "           ")\(Output.visible(String(line)))")
            }
        }
        return 0
    }
}
