import CardModel
import CardStore
import DeckMerge
import GitCore
import SwipeEngine

extension DeckService {
    /// A conflicted card's records as the page shows them: for a deleted-versus-edited card (`"*"`),
    /// the commit that deleted it (its subject and author when this deck has it) and the one that edited
    /// it; for a field, its numbered choices (as `cards conflicts` numbers them) and which one the merge kept.
    func conflictsJSON(_ card: Card) -> String {
        var items: [String] = []
        var fieldsDone = Set<String>()
        for record in ConflictRecord.records(in: card) {
            if record.isDeletion {
                items.append(
                    "{\"field\":\"*\",\"deletedIn\":\(JSONText.string(record.deletedIn ?? "")),"
                        + "\"deletedBy\":\(JSONText.string(commitSummary(record.deletedIn))),"
                        + "\"editedIn\":\(JSONText.string(record.editedIn ?? "")),"
                        + "\"editedBy\":\(JSONText.string(commitSummary(record.editedIn)))}")
                continue
            }
            guard fieldsDone.insert(record.field).inserted else { continue }
            let choices = ConflictResolver.choices(in: card, field: record.field)
            let current = card.fields[record.field]
            let listed = choices.enumerated().map { index, choice in
                "{\"n\":\(index + 1),\"text\":\(JSONText.string(Self.valueText(choice.value))),"
                    + "\"removed\":\(choice.value == nil),\"current\":\(choice.value == current),"
                    + "\"commit\":\(JSONText.string(choice.commit)),"
                    + "\"by\":\(JSONText.string(commitSummary(choice.commit)))}"
            }
            items.append(
                "{\"field\":\(JSONText.string(record.field)),\"choices\":[\(listed.joined(separator: ","))]}")
        }
        return "[\(items.joined(separator: ","))]"
    }

    /// A field's value as text: a string as it is, anything else as JSON, a removed field in words.
    static func valueText(_ value: JSONValue?) -> String {
        guard let value else { return "(no value: removed)" }
        if let text = value.stringValue { return text }
        return String(decoding: value.canonicalBytes(), as: UTF8.self)
    }

    /// Who made a side of a merge: "Ann, 1a2b3c4" for a commit this deck has, else its short id. (A
    /// record names the tip of each side, not the very commit that deleted or edited the card: its
    /// subject could name another card.)
    func commitSummary(_ hex: String?) -> String {
        guard let hex, let id = ObjectID(hex: hex), let commit = try? deck.commit(id) else {
            return hex.map { String($0.prefix(7)) } ?? ""
        }
        return "\(commit.author.name), \(id.short)"
    }

    /// `POST /api/resolve` `{"id", "field", "pick": N}` or `{"id", "field": "*", "action": "keep" | "delete"}`:
    /// settles one conflict as `cards resolve` does (one `resolve` commit, which Undo takes back); a card
    /// left with no conflict counts as kept (seen) on this device.
    func resolveResponse(_ body: [UInt8]) -> HTTPResponse {
        do {
            let object = try Self.jsonObject(body)
            let id = try Self.cardID(object)
            guard let field = object["field"]?.stringValue, !field.isEmpty, field.count <= 200 else {
                throw ServeError("\"field\": expected the field in conflict (\"*\" for a deleted-versus-edited card)")
            }
            let resolution: ConflictResolution
            if let pick = object["pick"] {
                guard let text = pick.numberText, let number = Int(text), (1...1000).contains(number) else {
                    throw ServeError("\"pick\": expected a choice's number, 1 or more")
                }
                resolution = .pick(number)
            } else {
                switch object["action"]?.stringValue {
                case "keep": resolution = .keep
                case "delete": resolution = .delete
                default: throw ServeError("\"action\": expected keep or delete (or give \"pick\": N for a field)")
                }
            }
            let card = try monitor.locked { () throws(StoreError) -> Card? in
                let card = try deck.resolve(id, field: field, resolution)
                if let card, card.conflicts.isEmpty { try deck.recordKept(card.id, commit: try deck.headCommit()) }
                return card
            }
            checkForChange()
            return .json(200, "{\"resolved\":\(card.map(Self.cardJSON) ?? "null")}")
        } catch let error as ServeError {
            return Self.badRequest(error)
        } catch {
            return Self.storeFailure(error)
        }
    }

    /// What a committed swipe does to a card that carries a deleted-versus-edited record: a left swipe
    /// deletes it, a right one keeps the edited card, each one `resolve` commit (as `cards resolve --delete`
    /// / `--keep`); nil for any other card or decision (the swipe goes on as usual). Called with `monitor`
    /// held.
    func settleBySwipe(_ card: Card, _ outcome: SwipeOutcome) throws(StoreError) -> String? {
        guard outcome.decision.name == "commit", let direction = outcome.decision.direction,
            try deck.settleBySwipe(card, left: direction == .left) != nil
        else { return nil }
        return direction == .left ? "delete" : "keep"
    }
}
