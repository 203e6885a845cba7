import CardModel
import CardStore
import SwipeEngine

extension DeckService {
    /// The card fields the page's form sends, by their JSON names, and the most characters each may
    /// have before the body is refused unread (the store's own rules, 200 for a title, 2048 for a URL,
    /// then say what is wrong in the card's words).
    static let formFields: [(name: String, limit: Int)] = [
        ("title", 1_000), ("indexURL", 10_000), ("platformName", 1_000), ("platformIcon", 1_000), ("color", 100),
    ]

    /// The form's fields from a body: each absent, or a string no longer than its limit; anything else is
    /// refused naming the field (a hostile body is text like any other).
    static func formValues(_ object: [String: JSONValue]) throws(ServeError) -> [String: String] {
        var values: [String: String] = [:]
        for (name, limit) in formFields {
            guard let value = object[name], !value.isNull else { continue }
            guard let text = value.stringValue else { throw ServeError("\"\(name)\": expected a string") }
            guard text.unicodeScalars.count <= limit else {
                throw ServeError("\"\(name)\": at most \(limit) characters")
            }
            // As `cards add`/`cards edit` take typed text: without the spaces around it; a colour in any case.
            let trimmed = String(Card.trimmed(text))
            values[name] = name == "color" ? trimmed.lowercased() : trimmed
        }
        return values
    }

    /// The card's id from a body, or a refusal naming `"id"`.
    static func cardID(_ object: [String: JSONValue]) throws(ServeError) -> String {
        guard let id = object["id"]?.stringValue, !id.isEmpty, id.count <= 100 else {
            throw ServeError("\"id\": expected the card's id as a string")
        }
        return id
    }

    /// `POST /api/cards` `{"title", "indexURL", "platformName", "platformIcon", "color"}`: adds a card at
    /// the end of the deck, as `cards add --title … --url … [--platform] [--icon] [--color]` adds it (the
    /// same store call, the same checks, the same commit); a refused field is named in `field`.
    func addResponse(_ body: [UInt8]) -> HTTPResponse {
        do {
            let values = try Self.formValues(try Self.jsonObject(body))
            let card = try monitor.locked { () throws(StoreError) -> Card in
                try deck.add(
                    title: values["title"] ?? "", indexURL: values["indexURL"] ?? "",
                    platformName: values["platformName"] ?? "", platformIcon: values["platformIcon"] ?? "",
                    color: values["color"].flatMap { $0.isEmpty ? nil : $0 } ?? "blue")
            }
            checkForChange()
            return .json(200, "{\"added\":\(Self.cardJSON(card))}")
        } catch let error as ServeError {
            return Self.badRequest(error)
        } catch {
            return Self.storeFailure(error)
        }
    }

    /// `POST /api/edit` `{"id", and any of the form's fields}`: changes them as `cards edit ID --title …`
    /// does (no commit when nothing changes: `"changed": false`).
    func editResponse(_ body: [UInt8]) -> HTTPResponse {
        do {
            let object = try Self.jsonObject(body)
            let id = try Self.cardID(object)
            let values = try Self.formValues(object)
            guard !values.isEmpty else { throw ServeError("nothing to change: give at least one field") }
            let edit = CardEdit(
                title: values["title"], indexURL: values["indexURL"], platformName: values["platformName"],
                platformIcon: values["platformIcon"], color: values["color"])
            let (changed, card) = try monitor.locked { () throws(StoreError) -> (Bool, Card) in
                let outcome = try deck.edit(id, edit)
                return (outcome != nil, try deck.snapshot().card(matching: id))
            }
            if changed { checkForChange() }
            return .json(200, "{\"changed\":\(changed),\"card\":\(Self.cardJSON(card))}")
        } catch let error as ServeError {
            return Self.badRequest(error)
        } catch {
            return Self.storeFailure(error)
        }
    }
}
