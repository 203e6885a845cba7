import CardModel
import CardStore
import VCard

extension Commands {
    /// `cards export --format vcard|vcard3`: the deck's owner with every card as one vCard, in deck order;
    /// what the JSON export says of files that are not valid cards, said the same way.
    static func exportVCard(_ context: Context, version: VCardVersion) throws -> Int32 {
        let deck = try context.openDeck()
        let (bytes, problems) = try deckVCard(deck.snapshot(), version: version)
        context.output.write(bytes)
        for problem in problems {
            context.output.error(
                "error: " + problem.said(outcome: "not exported")
                    + "; fix it (`cards fsck` lists such files), then export again")
        }
        if !problems.isEmpty {
            context.output.error(
                "Error: the vCard lacks \(problems.count) card file\(problems.count == 1 ? "" : "s") (named above)")
        }
        return problems.isEmpty ? 0 : 1
    }

    /// The deck's vCard (`VCardWriter`) and the card files left out of it: its owner, or the deck's name
    /// when it has none, with a UID made from that name.
    static func deckVCard(_ snapshot: DeckSnapshot, version: VCardVersion) throws -> (
        bytes: [UInt8], problems: [CardProblem]
    ) {
        let (name, owner) = try snapshot.nameAndOwner()
        let (lines, problems) = try snapshot.allCards(encoding: { VCardWriter.encoded($0, version: version) })
        var writer = VCardWriter(
            version: version, owner: owner, deckName: name, fallbackUID: VCardWriter.stableUID(for: name))
        for line in lines { writer.append(encoded: line) }
        return (writer.finish(), problems)
    }

    /// Whether an import file is a vCard: named `.vcf`/`.vcard`, or starting (after a byte-order mark
    /// and blank lines) with `BEGIN:VCARD`.
    static func isVCard(_ bytes: [UInt8], path: String) -> Bool {
        let lowered = path.lowercased()
        if lowered.hasSuffix(".vcf") || lowered.hasSuffix(".vcard") { return true }
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        rest = rest.drop { $0 == 13 || $0 == 10 || $0 == 32 || $0 == 9 }
        return String(decoding: rest.prefix(11), as: UTF8.self).uppercased() == "BEGIN:VCARD"
    }

    /// `cards import FILE.vcf`: each link of each vCard a card, in one commit; what cannot be a card said
    /// and counted. A malformed file is refused naming its line, nothing committed.
    static func importVCard(_ context: Context, bytes: [UInt8], name: String, source: String) throws -> Int32 {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let found: VCardImport
        do {
            found = try VCardImport(Array(body))
        } catch {
            throw CLIError(message: "\(name): \(error); nothing was imported")
        }
        for (line, reason) in found.skipped.prefix(20) {
            context.output.error("skipped: \(name): line \(line): \(Output.visible(reason))")
        }
        if found.skipped.count > 20 { context.output.error("skipped: … and \(found.skipped.count - 20) more") }
        let deck = try context.openDeck()
        // A link the deck already has, from a vCard that names no card id (a contact from a phone, the same
        // file imported twice): already there, not a second card, and the deck's own title and colour kept.
        // Read only when a vCard names no card id, and through the listing's path (no card decoded whole).
        var known: Set<String> = []
        if found.cards.contains(where: { $0["id"] == nil }) {
            let links = try deck.snapshot().allListings(encoding: { Array($0.indexURL.utf8) }).encoded
            known = Set(links.map { String(decoding: $0, as: UTF8.self) })
        }
        let fresh = found.cards.filter { fields in
            fields["id"] != nil || !known.contains(fields["indexURL"]?.stringValue ?? "")
        }
        let alreadyThere = found.cards.count - fresh.count
        let json = JSONValue.canonicalArray(elements: fresh.map { JSONValue.object($0).canonicalArrayElement() })
        let cards = try Deck.encodeImport(json, name: name)
        let skipped = found.skipped.count
        let skippedSaid = skipped == 0 ? "" : " (\(skipped) propert\(skipped == 1 ? "y" : "ies") skipped, named above)"
        let thereSaid = alreadyThere == 0 ? "" : ", \(alreadyThere) already in the deck (the same link)"
        if cards.count == 0 {
            if alreadyThere > 0 {
                context.output.print("Nothing to import: every link of \(name) is in the deck already\(skippedSaid).")
            } else {
                context.output.print("Nothing to import: \(name) has no links that can be cards\(skippedSaid).")
            }
            return 0
        }
        let summary = try deck.importCards(cards, source: source)
        context.output.print(
            "Imported \(cards.count) card\(cards.count == 1 ? "" : "s") from \(found.contacts) vCard\(found.contacts == 1 ? "" : "s"): "
                + "\(summary.added) added, \(summary.updated) updated, \(summary.unchanged) unchanged\(thereSaid)"
                + "\(skippedSaid).")
        return 0
    }
}
