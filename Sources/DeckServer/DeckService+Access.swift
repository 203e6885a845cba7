import CardLook
import CardModel
import CardStore
import QRCode

/// Getting in: the token exchanged for a cookie on the page's first load, the page's address as a QR
/// code for a phone, the home-screen manifest and icons, and a card's QR code.
extension DeckService {
    /// How long the token cookie lasts, in seconds (400 days, the most Chromium keeps one): the token
    /// is the deck's own (kept in its git folder), so a page added to a phone's home screen opens again
    /// after the server restarts.
    static let cookieSeconds = 400 * 24 * 3600

    /// The answer to a request that passed the checks, when it is one of this file's routes; else nil.
    func accessResponse(_ request: HTTPRequest) -> HTTPResponse? {
        let reading = request.method == "GET" || request.method == "HEAD"
        if reading, request.path == "/" || request.path == "/phone", request.tokenInQuery, let token = checks.token,
            let given = request.token, RequestGuard.sameSecret(given, token)
        {
            // The token leaves the address bar (and the history) for a cookie no script can read and no
            // other site's request carries. Not by a 303: when another site's link started the navigation
            // (a chat in a browser), the redirect's request is still that site's, and the browser withholds
            // a SameSite=Strict cookie from it. This page's own refresh is a navigation of our site.
            let page = PageAssets.redirectPage(to: request.path)
            return HTTPResponse(
                status: 200,
                headers: [
                    (
                        "Set-Cookie",
                        "\(checks.cookieName)=\(token); Path=/; Max-Age=\(Self.cookieSeconds); HttpOnly; "
                            + "SameSite=Strict"
                    ),
                    ("Content-Type", "text/html; charset=utf-8"),
                ], body: .bytes(Array(page.utf8)))
        }
        switch (reading, request.path) {
        case (true, "/manifest.webmanifest"):
            return .text(200, AppIcon.manifest, contentType: "application/manifest+json; charset=utf-8")
        case (true, "/icon.svg"):
            return .text(200, AppIcon.svg, contentType: "image/svg+xml")
        case (true, "/icon-192.png"):
            return HTTPResponse(status: 200, headers: [("Content-Type", "image/png")], body: .bytes(AppIcon.png192))
        case (true, "/icon-512.png"):
            return HTTPResponse(status: 200, headers: [("Content-Type", "image/png")], body: .bytes(AppIcon.png512))
        case (true, "/qr.svg"):
            guard let url = shareURLs.first else {
                return .text(404, "Error: \(Self.loopbackOnly(checks.address))\n")
            }
            return qrResponse(url)
        case (true, "/phone"):
            return .text(200, phonePage(), contentType: "text/html; charset=utf-8")
        case (true, "/phone.css"):
            return .text(200, Self.phoneStyle, contentType: "text/css; charset=utf-8")
        case (true, let path) where path.hasPrefix("/api/cards/") && path.hasSuffix("/qr.svg"):
            let id = path.dropFirst("/api/cards/".count).dropLast("/qr.svg".count)
            return cardQRResponse(String(id))
        case (false, "/manifest.webmanifest"), (false, "/icon.svg"), (false, "/icon-192.png"),
            (false, "/icon-512.png"), (false, "/qr.svg"), (false, "/phone"), (false, "/phone.css"):
            return notAllowed(request)
        default:
            return nil
        }
    }

    /// Why there is no address for a phone: the server listens on this machine only, or it listens on
    /// the network but the machine had no network address when it started.
    static func loopbackOnly(_ address: String) -> String {
        guard RequestGuard.isLoopback(address) else {
            return "this machine had no network address when `cards serve` started: connect it to the phone's "
                + "network (Wi-Fi or cable), then stop the server (Ctrl-C) and start it again"
        }
        return "this server listens on \(address), this machine only: to open the deck on a phone, stop it "
            + "(Ctrl-C) and start `cards serve --listen 0.0.0.0`"
    }

    /// `text` as a QR code in SVG.
    func qrResponse(_ text: String) -> HTTPResponse {
        do {
            let matrix = try QRCode.encode(text)
            return .text(200, matrix.svg(size: 320), contentType: "image/svg+xml")
        } catch {
            return .text(503, "Error: \(error)\n")
        }
    }

    /// `GET /api/cards/<id>/qr.svg`: the card's URL as a QR code, for a phone to open it.
    func cardQRResponse(_ id: String) -> HTTPResponse {
        let found: Card?
        do {
            found = try monitor.locked { () throws(StoreError) -> Card? in try deck.snapshot().card(id: id) }
        } catch {
            return .text(500, "Error: \(error)\n")
        }
        guard let card = found else {
            return .text(404, "Error: no card \(id) in the deck (give its full id, as /api/deck lists it)\n")
        }
        guard !card.indexURL.isEmpty else { return .text(404, "Error: card \(id) has no URL\n") }
        return qrResponse(card.indexURL)
    }

    /// `/phone`: the page's address for a phone, as a QR code and as text, with what to do.
    func phonePage() -> String {
        var body: String
        if shareURLs.isEmpty {
            body = "<p>\(CardLook.htmlEscaped(Self.loopbackOnly(checks.address))).</p>"
        } else {
            body =
                "<img src=\"qr.svg\" width=\"320\" height=\"320\" alt=\"QR code of the deck's address\">"
                + "<p>Scan it with the phone's camera, on the same network as this machine. Or type:</p><ul>"
            for url in shareURLs { body += "<li><code>\(CardLook.htmlEscaped(url))</code></li>" }
            body +=
                "</ul><p>The address holds the deck's secret: anyone with it can change the deck. Show it to "
                + "your own phone only.</p>"
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Open on a phone</title>
            <link rel="stylesheet" href="phone.css">
            </head>
            <body>
            <main>
            <h1>Open the deck on a phone</h1>
            \(body)
            <p><a href="./">Back to the deck</a></p>
            </main>
            </body>
            </html>

            """
    }

    /// The phone page's few rules (a file of its own, as the CSP allows no inline style).
    static let phoneStyle = """
        body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f8fafc; color: #0f172a; }
        main { max-width: 36rem; margin: 0 auto; padding: 1rem; text-align: center; }
        img { width: min(320px, 90vw); height: auto; image-rendering: pixelated; border-radius: 8px; }
        ul { list-style: none; padding: 0; }
        code { overflow-wrap: anywhere; font-size: 0.9rem; }
        a { color: #1d4ed8; }
        @media (prefers-color-scheme: dark) {
          body { background: #0f172a; color: #f1f5f9; }
          a { color: #93c5fd; }
        }

        """
}
