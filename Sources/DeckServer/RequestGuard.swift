/// The checks every request passes before a route sees it: the Host (no DNS rebinding), the Origin and
/// `Sec-Fetch-Site` (no cross-site request, so no other page can delete a card), the token (from the
/// page's cookie, the `token` query argument or the `X-Cards-Token` header), and for a write, a JSON body
/// (a plain HTML form cannot send one).
///
/// Pure: tested with every combination in DeckServerTests.
public struct RequestGuard: Sendable {
    /// The address listened on, as given (`127.0.0.1`, `0.0.0.0`, `::1`, `192.168.1.20`).
    public var address: String
    /// The port listened on.
    public var port: UInt16
    /// The token a request must carry, or nil (no token asked: tests of the other checks).
    public var token: String?
    /// The names this machine answers to besides IP literals and `localhost` (its host name and
    /// `hostname.local`, its addresses), lowercased: accepted as Host.
    public var names: Set<String>

    /// Creates the checks for a server.
    public init(address: String, port: UInt16, token: String?, names: [String] = []) {
        self.address = address
        self.port = port
        self.token = token
        self.names = Set(names.map { $0.lowercased() })
    }

    /// The cookie that carries the token once the page's first load has exchanged it: named after the
    /// port, since a browser sends a host's cookies to every port of it (two servers on one machine
    /// must not overwrite each other's).
    public var cookieName: String { "cards_token_\(port)" }

    /// The paths anyone who reaches the server may read without the token: the manifest and icons a
    /// phone fetches to add the page to its home screen (a manifest is fetched without cookies), which
    /// tell nothing about the deck.
    public static let publicPaths: Set<String> = [
        "/manifest.webmanifest", "/icon.svg", "/icon-192.png", "/icon-512.png",
    ]

    /// Whether `address` is the loopback interface only (127.0.0.0/8 or ::1): only this machine reaches it.
    public static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address == "localhost" || IPLiteral.v4(address).map { $0[0] == 127 } == true
    }

    /// Whether the request opens the page (or the phone page) from a link elsewhere — a chat or a mail read
    /// in the browser — with this server's token in the address: the token is the secret, so the link's site
    /// learns nothing it did not hold, and the answer only trades the token for a cookie (DeckService+Access)
    /// whose page then reloads as our own site. Without it, the address `cards serve` printed, sent to
    /// oneself and tapped, met a 403 nobody could act on.
    func isTokenedNavigation(_ request: HTTPRequest) -> Bool {
        guard request.method == "GET" || request.method == "HEAD", request.fetchMode == "navigate",
            request.path == "/" || request.path == "/phone", request.tokenInQuery, let token, let given = request.token
        else { return false }
        return Self.sameSecret(given, token)
    }

    /// Why the request is refused (a status and a message), or nil when it may go on.
    public func refusal(_ request: HTTPRequest) -> (status: Int, message: String)? {
        guard request.hostCount == 1, let host = request.host, acceptsHost(host) else {
            return (
                421,
                "the Host header '\(request.host ?? "")' is not this server's: open the address `cards serve` "
                    + "printed (a page reached through another name could be a DNS-rebinding attack)"
            )
        }
        if let origin = request.origin, origin != "http://" + host {
            return (403, "a request from another site (Origin \(origin)) is refused: open the deck's own page")
        }
        if let site = request.fetchSite, site != "same-origin", site != "none", !isTokenedNavigation(request) {
            return (403, "a request from another site (Sec-Fetch-Site: \(site)) is refused: open the deck's own page")
        }
        if let token, !(request.method == "GET" && Self.publicPaths.contains(request.path)) {
            let given = [request.token, request.cookie.flatMap { Self.cookie(cookieName, in: $0) }]
            guard given.contains(where: { $0.map { Self.sameSecret($0, token) } == true }) else {
                return (
                    401,
                    "this server needs its token: open the address with ?token=… that `cards serve` printed, "
                        + "or scan its QR code (a script sends the token as the X-Cards-Token header)"
                )
            }
        }
        if request.method == "POST" {
            // Browsers send Origin with every POST from a page; a request without one is no page's.
            guard request.origin != nil else {
                return (403, "a write needs the Origin header a browser sends: use the deck's page")
            }
            let type = request.contentType?.split(separator: ";").first.map {
                $0.trimmingSpaces.lowercased()
            }
            guard type == "application/json" else {
                return (415, "a write takes a JSON body (Content-Type: application/json)")
            }
        }
        return nil
    }

    /// Whether a Host header names this server: its port, and a name no DNS can rebind (an IP literal, or
    /// `localhost`, which browsers resolve to loopback themselves).
    func acceptsHost(_ host: String) -> Bool {
        let name: Substring
        let portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            name = host[host.index(after: host.startIndex)..<close]
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return false }
            portText = rest.isEmpty ? nil : rest.dropFirst()
        } else if let colon = host.lastIndex(of: ":") {
            name = host[..<colon]
            portText = host[host.index(after: colon)...]
        } else {
            name = host[...]
            portText = nil
        }
        if let portText {
            guard UInt16(portText) == port else { return false }
        } else if port != 80 {
            return false
        }
        var lowered = name.lowercased()
        // `mylaptop.local.` (a fully qualified name) is the same name as `mylaptop.local`.
        if lowered.hasSuffix("."), lowered.count > 1 { lowered.removeLast() }
        if lowered == "localhost" || names.contains(lowered) { return true }
        if Self.isLoopback(address) {
            return lowered == "::1" || IPLiteral.v4(lowered).map { $0[0] == 127 } == true
        }
        if address == "0.0.0.0" || address == "::" {
            return IPLiteral.v4(lowered) != nil || IPLiteral.isV6(lowered)
        }
        return lowered == address.lowercased()
    }

    /// The value of cookie `name` in a `Cookie` header (`a=1; b=2`), or nil.
    static func cookie(_ name: String, in header: String) -> String? {
        for pair in header.split(separator: ";") {
            let trimmed = pair.trimmingSpaces
            guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
            return String(trimmed[trimmed.index(after: equals)...])
        }
        return nil
    }

    /// Compares two secrets in time that depends on their lengths only, not on where they first differ.
    static func sameSecret(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

/// IP literals, read without the C library (a Host header is hostile text).
enum IPLiteral {
    /// The four bytes of a dotted-quad IPv4 literal, or nil.
    static func v4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    /// Whether `text` looks like an IPv6 literal: hex digits, colons and dots only, with at least two colons.
    static func isV6(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 45 && text.filter({ $0 == ":" }).count >= 2
            && text.allSatisfy { $0 == ":" || $0 == "." || $0.isHexDigit }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
