import CardModel
import CardStore
import GitCore
import SwipeEngine

/// The deck behind the web page: its routes, the checks before them, the commits after a swipe, and
/// the watcher that tells open pages when `main` moves.
///
/// Every use of the deck holds `monitor`: libmicrohttpd answers on one thread per connection, and a
/// `Deck` is one repository handle.
public final class DeckService: @unchecked Sendable {
    let deck: Deck
    let checks: RequestGuard
    let changes = DeckChanges()
    let monitor = Monitor()
    /// What Undo would revert, read once per commit of `main` (DeckService+State.swift).
    let undoCache = UndoCandidateCache()
    private var watcher: WorkerThread?
    private var lastHead: ObjectID?
    /// How often the watcher reads `main`'s ref (one small file read when nothing changed).
    public var pollInterval = 0.2
    /// The page's addresses for a phone, token included, best first (`/qr.svg`, `/phone`); empty when
    /// listening on loopback. Set before the server answers its first request.
    public var shareURLs: [String] = []

    /// Serves `deck` under `checks`.
    public init(deck: Deck, checks: RequestGuard) {
        self.deck = deck
        self.checks = checks
        // A swipe waits at most this long for another command's deck lock, then says who holds it.
        deck.lockTimeout = min(deck.lockTimeout, 2)
        lastHead = try? deck.headCommit()
    }

    /// Starts watching `main` for changes made elsewhere.
    public func startWatching() throws(ServeError) {
        guard watcher == nil else { return }
        watcher = try WorkerThread { [self] in
            while changes.pause(seconds: pollInterval) { checkForChange() }
        }
    }

    /// Ends every event stream and the watcher: call before stopping the HTTP server, which waits for the
    /// streams' threads.
    public func stop() {
        changes.stop()
        watcher?.join()
        watcher = nil
    }

    /// Bumps the change counter when `main` moved since the last look.
    func checkForChange() {
        let moved: Bool = monitor.locked {
            guard let head = try? deck.headCommit(), head != lastHead else { return false }
            lastHead = head
            return true
        }
        if moved { changes.bump() }
    }

    /// Answers one request: the checks first, then the route.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        if let refusal = checks.refusal(request) {
            response = .text(refusal.status, "Error: \(refusal.message)\n")
        } else {
            response = accessResponse(request) ?? route(request)
        }
        response.headers += Self.securityHeaders
        return response
    }

    /// On every answer: scripts and styles from this server only (so even text that became HTML could run
    /// nothing), no framing by another site, no referrer (the URL may hold the token), no sniffing.
    static let securityHeaders: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
                + "manifest-src 'self'; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        ("Cache-Control", "no-store"),
    ]

    func route(_ request: HTTPRequest) -> HTTPResponse {
        if let answer = featureRoute(request) { return answer }
        if let file = PageAssets.files[request.path] {
            guard request.method == "GET" || request.method == "HEAD" else { return notAllowed(request) }
            return .text(200, file.text, contentType: file.type)
        }
        switch (request.method, request.path) {
        case ("GET", "/api/deck"):
            return deckResponse()
        case ("GET", "/events"):
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "text/event-stream")],
                body: .stream(DeckEventStream(changes: changes)))
        case ("POST", "/api/swipe"):
            return swipeResponse(request.body)
        case (_, "/api/deck"), (_, "/events"), (_, "/api/swipe"):
            return notAllowed(request)
        default:
            return .text(404, "Error: no page at \(request.path); the deck is at /\n")
        }
    }

    /// `GET /api/deck`: the deck's name, `main`'s commit, its cards in deck order, and the presets' geometry.
    func deckResponse() -> HTTPResponse {
        do {
            let text: String = try monitor.locked { () throws(StoreError) -> String in
                let snapshot = try deck.snapshot()
                let all = try snapshot.allCards()
                let name = (try? snapshot.name()) ?? nil
                let cards = all.cards.map(Self.cardJSON).joined(separator: ",")
                return "{\"name\":\(JSONText.string(name ?? "")),"
                    + "\"head\":\(JSONText.string(snapshot.commit.map { "\($0)" } ?? "")),"
                    + "\"version\":\(changes.current),\"skipped\":\(all.problems.count),"
                    + "\"cards\":[\(cards)],\"presets\":\(PageGeometry.presetsJSON)\(stateJSON(all.cards))}"
            }
            return .json(200, text)
        } catch {
            return .json(500, "{\"error\":\(JSONText.string("\(error)"))}")
        }
    }

    /// A card as the page shows it: only the fields it draws, every one a JSON string the page puts in as
    /// text.
    static func cardJSON(_ card: Card) -> String {
        "{\"id\":\(JSONText.string(card.id)),\"title\":\(JSONText.string(card.title)),"
            + "\"platformName\":\(JSONText.string(card.platformName)),"
            + "\"platformIcon\":\(JSONText.string(card.platformIcon)),"
            + "\"indexURL\":\(JSONText.string(card.indexURL)),\"color\":\(JSONText.string(card.color))}"
    }
}
