import DeckServer
import Testing

/// The checks before every route: Host (DNS rebinding), Origin and Sec-Fetch-Site (cross-site writes),
/// the token on a non-loopback listen, a JSON body for writes.
@Suite("Request checks")
struct RequestGuardTests {
    static let loopback = RequestGuard(address: "127.0.0.1", port: 8025, token: nil)
    static let network = RequestGuard(address: "0.0.0.0", port: 8025, token: "s3cret")

    static func get(_ host: String?, origin: String? = nil, site: String? = nil, token: String? = nil) -> HTTPRequest {
        HTTPRequest(method: "GET", path: "/", host: host, origin: origin, fetchSite: site, token: token)
    }

    @Test(
        "loopback: the names a browser on this machine uses pass, any other Host is refused",
        arguments: [
            ("127.0.0.1:8025", true), ("localhost:8025", true), ("LOCALHOST:8025", true), ("[::1]:8025", true),
            ("127.0.0.1:8026", false), ("127.0.0.1", false), ("evil.example:8025", false),
            ("attacker.rebind.example:8025", false), ("192.168.1.5:8025", false), ("", false), ("[::1:8025", false),
            ("127.0.0.1:99999999999999999999", false), ("127.0.0.1:", false),
        ])
    func loopbackHosts(host: String, accepted: Bool) {
        #expect((Self.loopback.refusal(Self.get(host)) == nil) == accepted)
    }

    @Test("no Host, or two, is refused")
    func missingHost() {
        #expect(Self.loopback.refusal(Self.get(nil))?.status == 421)
        #expect(
            Self.loopback.refusal(HTTPRequest(method: "GET", path: "/", host: "127.0.0.1:8025", hostCount: 2))?.status
                == 421)
    }

    @Test(
        "another Origin, or a cross-site fetch, is refused; the page's own passes",
        arguments: [
            ("http://127.0.0.1:8025", nil, true), (nil, "same-origin", true), (nil, "none", true),
            ("http://evil.example", nil, false), ("null", nil, false), ("http://127.0.0.1:8025", "cross-site", false),
            (nil, "same-site", false), ("https://127.0.0.1:8025", nil, false),
        ] as [(String?, String?, Bool)])
    func origins(origin: String?, site: String?, accepted: Bool) {
        let refusal = Self.loopback.refusal(Self.get("127.0.0.1:8025", origin: origin, site: site))
        #expect((refusal == nil) == accepted)
        if !accepted { #expect(refusal?.status == 403) }
    }

    @Test("a link from another site opens the page when it carries the token, and only then")
    func tokenedNavigation() {
        func request(
            _ path: String, token: String?, mode: String? = "navigate", method: String = "GET", inQuery: Bool = true
        ) -> HTTPRequest {
            HTTPRequest(
                method: method, path: path, host: "192.168.1.5:8025", fetchSite: "cross-site", fetchMode: mode,
                token: token, tokenInQuery: inQuery && token != nil)
        }
        // The address `cards serve` printed, tapped in a web chat: traded for the cookie.
        #expect(Self.network.refusal(request("/", token: "s3cret")) == nil)
        #expect(Self.network.refusal(request("/phone", token: "s3cret")) == nil)
        // Without the token, with a wrong one, from a script (no navigation), to the API, or as a header: refused.
        #expect(Self.network.refusal(request("/", token: nil))?.status == 403)
        #expect(Self.network.refusal(request("/", token: "s3cre"))?.status == 403)
        #expect(Self.network.refusal(request("/", token: "s3cret", mode: "cors"))?.status == 403)
        #expect(Self.network.refusal(request("/api/deck", token: "s3cret"))?.status == 403)
        #expect(Self.network.refusal(request("/", token: "s3cret", inQuery: false))?.status == 403)
        #expect(Self.network.refusal(request("/", token: "s3cret", method: "POST"))?.status == 403)
    }

    @Test("a non-loopback listen needs the token; IP literals pass as Host, names do not")
    func token() {
        #expect(Self.network.refusal(Self.get("192.168.1.5:8025"))?.status == 401)
        #expect(Self.network.refusal(Self.get("192.168.1.5:8025", token: "s3cre"))?.status == 401)
        #expect(Self.network.refusal(Self.get("192.168.1.5:8025", token: "s3cret")) == nil)
        #expect(Self.network.refusal(Self.get("[fe80::1]:8025", token: "s3cret")) == nil)
        #expect(Self.network.refusal(Self.get("phone.rebind.example:8025", token: "s3cret"))?.status == 421)
    }

    @Test("a write needs an Origin and a JSON body")
    func writes() {
        func post(origin: String?, type: String?) -> HTTPRequest {
            HTTPRequest(method: "POST", path: "/api/swipe", host: "127.0.0.1:8025", origin: origin, contentType: type)
        }
        #expect(Self.loopback.refusal(post(origin: "http://127.0.0.1:8025", type: "application/json")) == nil)
        #expect(
            Self.loopback.refusal(post(origin: "http://127.0.0.1:8025", type: "Application/JSON; charset=utf-8"))
                == nil)
        #expect(Self.loopback.refusal(post(origin: nil, type: "application/json"))?.status == 403)
        #expect(
            Self.loopback.refusal(post(origin: "http://127.0.0.1:8025", type: "application/x-www-form-urlencoded"))?
                .status == 415)
        #expect(Self.loopback.refusal(post(origin: "http://127.0.0.1:8025", type: "text/plain"))?.status == 415)
    }

    @Test("which addresses are loopback")
    func loopbackAddresses() {
        #expect(RequestGuard.isLoopback("127.0.0.1") && RequestGuard.isLoopback("127.1.2.3"))
        #expect(RequestGuard.isLoopback("::1") && RequestGuard.isLoopback("localhost"))
        #expect(!RequestGuard.isLoopback("0.0.0.0") && !RequestGuard.isLoopback("192.168.1.5"))
        #expect(!RequestGuard.isLoopback("::"))
    }
}
