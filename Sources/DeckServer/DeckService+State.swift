import CardModel
import CardStore
import DeckMerge
import GitCore
import SwipeEngine

/// The page's state kept in the deck, not in the open page: the stack's order (conflicts first, then
/// the cards this device has not kept), this device's undo (`cards undo`'s, plus its keeps), and the
/// routes of the page's own features (adding, editing, settling conflicts), each in a file of its own.
extension DeckService {
    /// The API routes of this file and its siblings, or nil for the others (DeckService.route).
    func featureRoute(_ request: HTTPRequest) -> HTTPResponse? {
        // The page's files (state.js, editor.js, conflicts.js, features.css) are in PageAssets.files.
        let posts: [String: ([UInt8]) -> HTTPResponse] = [
            "/api/undo": undoResponse, "/api/kept": keptResponse, "/api/cards": addResponse,
            "/api/edit": editResponse, "/api/resolve": resolveResponse,
        ]
        guard let handler = posts[request.path] else { return nil }
        guard request.method == "POST" else { return notAllowed(request) }
        return handler(request.body)
    }

    /// 405 for a method a route does not take.
    func notAllowed(_ request: HTTPRequest) -> HTTPResponse {
        .text(405, "Error: \(request.method) is not allowed on \(request.path)\n")
    }

    /// The members `/api/deck` adds for the page's state: `stack` (the ids the stack shows, in order:
    /// cards carrying conflict records first, then those this device has not kept, in deck order),
    /// `keptCount`, `conflicts` (each conflicted card's records, as the page shows them) and `undo` (what
    /// the Undo button takes back, or null). Starts with a comma. Called with `monitor` held.
    func stateJSON(_ cards: [Card]) -> String {
        let kept = deck.keptCards()
        let order = Deck.stackOrder(cards, kept: kept)
        let stack = order.stack.map { JSONText.string($0.id) }.joined(separator: ",")
        let conflicted = cards.filter { !$0.conflicts.isEmpty }
        let records = conflicted.map { "\(JSONText.string($0.id)):\(conflictsJSON($0))" }.joined(separator: ",")
        return ",\"stack\":[\(stack)],\"keptCount\":\(order.seen.count),\"conflicts\":{\(records)},"
            + "\"undo\":\(undoJSON(cards, kept: kept))"
    }

    /// What Undo would take back now, in words, or `null`. The walk through the history that finds this
    /// device's newest operation runs once per commit of `main`, not at every reload of every page.
    func undoJSON(_ cards: [Card], kept: [KeptCard]) -> String {
        guard let head = try? deck.headCommit() else { return "null" }
        if undoCache.head != head {
            guard let found = try? deck.undoCandidate() else { return "null" }
            undoCache.head = head
            undoCache.operation = found
        }
        let (keep, operation) = deck.latestUndoable(after: undoCache.operation, kept: kept)
        if let keep {
            let title = cards.first { $0.id == keep.id }?.title ?? keep.id
            return "{\"kind\":\"keep\",\"id\":\(JSONText.string(keep.id)),\"title\":\(JSONText.string(title)),"
                + "\"label\":\(JSONText.string("Undo: keep \(title)"))}"
        }
        guard let operation else { return "null" }
        let subject = operation.commit.subject
        return "{\"kind\":\"operation\",\"commit\":\(JSONText.string(operation.commit.id.hex)),"
            + "\"subject\":\(JSONText.string(subject)),\"label\":\(JSONText.string(Deck.undoSubject(of: subject)))}"
    }

    /// `POST /api/undo` `{}`: undoes what this device did last, as `cards undo` does (a new commit,
    /// `Undo: …`), or takes back its last keep; it survives a reload because it reads the deck.
    func undoResponse(_ body: [UInt8]) -> HTTPResponse {
        do {
            _ = try Self.jsonObject(body)
            let done = try monitor.locked { () throws(StoreError) -> DeviceUndo in try deck.undoLatest() }
            checkForChange()
            switch done {
            case .keep(let keep):
                // Nothing was committed: the other open pages learn of it from the event.
                changes.bump()
                return .json(200, "{\"undid\":\"keep\",\"id\":\(JSONText.string(keep.id))}")
            case .operation(let subject, let undone, let skipped):
                let ids = undone.cardIDs.map(JSONText.string).joined(separator: ",")
                let left = skipped.map { JSONText.string($0.description) }.joined(separator: ",")
                return .json(
                    200,
                    "{\"undid\":\"operation\",\"subject\":\(JSONText.string(subject)),"
                        + "\"ids\":[\(ids)],\"skipped\":[\(left)]}")
            }
        } catch let error as ServeError {
            return Self.badRequest(error)
        } catch {
            return Self.storeFailure(error)
        }
    }

    /// `POST /api/kept` `{"clear": true}`: every card is unseen again (the stack starts over).
    func keptResponse(_ body: [UInt8]) -> HTTPResponse {
        do {
            let object = try Self.jsonObject(body)
            guard object["clear"]?.boolValue == true else {
                throw ServeError("\"clear\": expected true (the only thing this route does: start the stack over)")
            }
            try monitor.locked { () throws(StoreError) in try deck.forgetKept() }
            changes.bump()
            return .json(200, "{\"cleared\":true}")
        } catch let error as ServeError {
            return Self.badRequest(error)
        } catch {
            return Self.storeFailure(error)
        }
    }

    /// 400 for a body the route cannot read, naming the field.
    static func badRequest(_ error: ServeError) -> HTTPResponse {
        .json(400, "{\"error\":\(JSONText.string(error.message))}")
    }

    /// A store failure as the page shows it: 422 with the field at fault for a card the store refused
    /// (the page marks that field), 404 for a card not found, 409 otherwise.
    static func storeFailure(_ error: any Error) -> HTTPResponse {
        guard let error = error as? StoreError else { return .json(409, "{\"error\":\(JSONText.string("\(error)"))}") }
        let field = error.field.map { ",\"field\":\(JSONText.string($0))" } ?? ""
        let status: Int
        switch error.code {
        case .invalidCard, .invalidInput: status = 422
        case .cardNotFound: status = 404
        default: status = 409
        }
        return .json(status, "{\"error\":\(JSONText.string(error.message))\(field)}")
    }
}

/// The newest operation this device can undo, as read at `head` (used with `DeckService.monitor` held).
final class UndoCandidateCache: @unchecked Sendable {
    /// `main` when it was read; nil before the first read.
    var head: ObjectID?
    /// What `Deck.undoCandidate` said then.
    var operation: LogEntry?
}
