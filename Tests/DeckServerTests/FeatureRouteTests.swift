import CardStore
import SeededRandom
import TestSupport
import Testing

@testable import DeckServer

/// The page's own routes (add, edit, resolve, undo, kept) on a real deck: hostile bodies refused with the
/// field named and nothing committed, never a trap; a card the store refuses answers 422 with its field.
@Suite("Page feature routes")
struct FeatureRouteTests {
    static func service() throws -> (DeckService, Deck, ScratchFolder) {
        let scratch = try ScratchFolder()
        let deck = try Deck.create(at: scratch.path("deck"), name: "test", bare: false)
        try deck.add(title: "Ada", indexURL: "https://example.org/ada")
        return (
            DeckService(deck: deck, checks: RequestGuard(address: "127.0.0.1", port: 8025, token: nil)), deck, scratch
        )
    }

    static func post(_ service: DeckService, _ path: String, _ body: String) -> (Int, String) {
        let response = service.handle(
            HTTPRequest(
                method: "POST", path: path, host: "127.0.0.1:8025", origin: "http://127.0.0.1:8025",
                contentType: "application/json", body: Array(body.utf8)))
        return (response.status, String(decoding: response.bytes, as: UTF8.self))
    }

    @Test("hostile bodies: refused naming the field, nothing committed, no trap")
    func hostileBodies() throws {
        let (service, deck, scratch) = try Self.service()
        // The folder lives as long as the test.
        defer { withExtendedLifetime(scratch) {} }
        let head = try deck.headCommit()
        let cases: [(String, String, String)] = [
            ("/api/cards", "", "not JSON"), ("/api/cards", "[]", "JSON object"),
            ("/api/cards", #"{"title":1}"#, "\"title\""),
            ("/api/cards", #"{"title":"\#(String(repeating: "x", count: 2000))"}"#, "\"title\""),
            ("/api/cards", #"{"color":["red"]}"#, "\"color\""),
            ("/api/edit", #"{"title":"x"}"#, "\"id\""), ("/api/edit", #"{"id":"abcd"}"#, "nothing to change"),
            ("/api/resolve", #"{"id":"abcd"}"#, "\"field\""),
            ("/api/resolve", #"{"id":"abcd","field":"title","pick":"one"}"#, "\"pick\""),
            ("/api/resolve", #"{"id":"abcd","field":"title","pick":1e400}"#, "\"pick\""),
            ("/api/resolve", #"{"id":"abcd","field":"*","action":"maybe"}"#, "\"action\""),
            ("/api/kept", #"{"clear":"yes"}"#, "\"clear\""), ("/api/undo", "[", "not JSON"),
            ("/api/cards", String(repeating: "[", count: 5000), "not JSON"),
        ]
        for (path, body, named) in cases {
            let (status, text) = Self.post(service, path, body)
            // The answer is JSON: the field's quotes come escaped.
            let escaped = named.replacingOccurrences(of: "\"", with: "\\\"")
            #expect(status == 400 && text.contains(escaped), "\(path) \(body.prefix(60)): \(status) \(text)")
        }
        var random = SplitMix64(seed: 34)
        let alphabet = Array(#"{}[]",:0123456789.e-"idtitlecolorpickfieldaction*"#.utf8)
        for _ in 0..<1000 {
            let bytes = (0..<Int(random.next() % 48)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            for path in ["/api/cards", "/api/edit", "/api/resolve"] {
                _ = Self.post(service, path, String(decoding: bytes, as: UTF8.self))
            }
        }
        #expect(try deck.headCommit() == head, "a hostile body committed something")
    }

    @Test("a card the store refuses: 422 naming its field, nothing committed; a good one: one commit")
    func storeRefusal() throws {
        let (service, deck, scratch) = try Self.service()
        // The folder lives as long as the test.
        defer { withExtendedLifetime(scratch) {} }
        let head = try deck.headCommit()
        let (status, text) = Self.post(service, "/api/cards", #"{"title":"Bo","indexURL":"not a url"}"#)
        #expect(status == 422 && text.contains(#""field":"indexURL""#), "\(status) \(text)")
        let (colour, said) = Self.post(
            service, "/api/cards", #"{"title":"Bo","indexURL":"https://example.org","color":"nope"}"#)
        #expect(colour == 422 && said.contains(#""field":"color""#), "\(colour) \(said)")
        #expect(try deck.headCommit() == head)
        let (added, _) = Self.post(
            service, "/api/cards", #"{"title":"  Bo  ","indexURL":"https://example.org/bo","color":"Teal"}"#)
        #expect(added == 200)
        let card = try #require(try deck.snapshot().allCards().cards.first { $0.title == "Bo" })
        #expect(card.color == "teal")
        // Undo from the page is the deck's undo: the add is taken back by an `Undo:` commit.
        let (undone, undoText) = Self.post(service, "/api/undo", "{}")
        #expect(undone == 200 && undoText.contains("Add card"), "\(undoText)")
        #expect(try deck.snapshot().allCards().cards.allSatisfy { $0.title != "Bo" })
    }
}

/// What the phone page says when it has no address to show.
@Suite("Phone page without an address")
struct PhoneAddressMessageTests {
    @Test("on loopback: listen on the network; on the network without an address: connect, then start again")
    func whyNoAddress() {
        let loopback = DeckService.loopbackOnly("127.0.0.1")
        #expect(loopback.contains("--listen 0.0.0.0") && loopback.contains("this machine only"))
        let network = DeckService.loopbackOnly("0.0.0.0")
        #expect(network.contains("no network address") && !network.contains("this machine only"))
    }
}
