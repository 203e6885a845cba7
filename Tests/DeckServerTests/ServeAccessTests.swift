import CardStore
import Glibc
import SystemCalls
import TestSupport
import Testing

@testable import DeckServer

/// Getting in: the token from the cookie, header or query; the names this machine answers to; the
/// addresses printed; the home-screen icon; and per-address connection limits against a flood.
@Suite("Serve access", .scratchFolder)
struct ServeAccessTests {
    static let names = MachineAddresses(ipv4: ["192.168.1.5"], ipv6: [], hostName: "mylaptop").hostNames
    static let network = RequestGuard(address: "0.0.0.0", port: 8025, token: "s3cret", names: names)
    static let loopback = RequestGuard(address: "127.0.0.1", port: 8025, token: "s3cret", names: names)

    static func get(
        _ path: String = "/", host: String = "127.0.0.1:8025", token: String? = nil, cookie: String? = nil
    ) -> HTTPRequest {
        HTTPRequest(method: "GET", path: path, host: host, token: token, cookie: cookie)
    }

    @Test("the token passes as the cookie of this port, a header or a query; a wrong or another port's cookie does not")
    func cookie() {
        for checks in [Self.network, Self.loopback] {
            #expect(checks.refusal(Self.get())?.status == 401)
            #expect(checks.refusal(Self.get(cookie: "cards_token_8025=s3cret")) == nil)
            #expect(checks.refusal(Self.get(cookie: "a=1; cards_token_8025=s3cret; b=2")) == nil)
            #expect(checks.refusal(Self.get(cookie: "cards_token_8025=s3cre"))?.status == 401)
            #expect(checks.refusal(Self.get(cookie: "cards_token_8026=s3cret"))?.status == 401)
            #expect(checks.refusal(Self.get(cookie: "xcards_token_8025=s3cret"))?.status == 401)
            #expect(checks.refusal(Self.get(token: "s3cret")) == nil)
            #expect(checks.refusal(Self.get(token: "wrong", cookie: "cards_token_8025=s3cret")) == nil)
        }
    }

    @Test("the manifest and icons need no token (a manifest is fetched without cookies); the rest does")
    func publicPaths() {
        for path in ["/manifest.webmanifest", "/icon.svg", "/icon-192.png", "/icon-512.png"] {
            #expect(Self.network.refusal(Self.get(path)) == nil, "\(path)")
            #expect(Self.network.refusal(Self.get(path, host: "evil.example:8025"))?.status == 421)
        }
        for path in ["/", "/app.js", "/app.css", "/api/deck", "/events", "/qr.svg", "/phone", "/api/cards/x/qr.svg"] {
            #expect(Self.network.refusal(Self.get(path))?.status == 401, "\(path)")
        }
        let post = HTTPRequest(
            method: "POST", path: "/icon.svg", host: "127.0.0.1:8025", origin: "http://127.0.0.1:8025",
            contentType: "application/json")
        #expect(Self.network.refusal(post)?.status == 401)
    }

    @Test(
        "the machine's names and addresses pass as Host, on every listen address; other names are refused",
        arguments: [
            ("mylaptop:8025", true), ("MyLaptop.local:8025", true), ("mylaptop.local.:8025", true),
            ("192.168.1.5:8025", true), ("localhost:8025", true), ("mylaptop:8026", false),
            ("evil.example:8025", false), ("mylaptop.evil.example:8025", false), ("local:8025", false),
            (".:8025", false),
        ])
    func hostNames(host: String, accepted: Bool) {
        for checks in [Self.network, Self.loopback] {
            #expect((checks.refusal(Self.get(host: host, token: "s3cret"))?.status != 421) == accepted, "\(host)")
        }
    }

    @Test("addresses: private networks first, no loopback or link-local; URLs bracket IPv6")
    func addresses() {
        let machine = MachineAddresses(
            ipv4: [
                "172.17.0.1", "203.0.113.9", "127.0.0.1", "192.168.1.20", "10.0.0.3", "169.254.1.1", "192.168.1.20",
            ],
            ipv6: ["::1", "fe80::1", "fd00::2", "2001:db8::5"], hostName: "box.example.org"
        ).ordered()
        #expect(machine.ipv4 == ["192.168.1.20", "10.0.0.3", "172.17.0.1", "203.0.113.9"])
        #expect(machine.ipv6 == ["fd00::2", "2001:db8::5"])
        #expect(machine.reachable(listening: "0.0.0.0") == machine.ipv4)
        #expect(machine.reachable(listening: "::") == machine.ipv4 + machine.ipv6)
        #expect(machine.reachable(listening: "127.0.0.1").isEmpty && machine.reachable(listening: "::1").isEmpty)
        #expect(machine.reachable(listening: "10.0.0.3") == ["10.0.0.3"])
        #expect(machine.hostNames.prefix(3) == ["box.example.org", "box", "box.local"])
        #expect(MachineAddresses.url(host: "fd00::2", port: 80, token: "t") == "http://[fd00::2]:80/?token=t")
        #expect(MachineAddresses.url(host: "10.0.0.3", port: 8025, token: nil) == "http://10.0.0.3:8025/")
        let current = MachineAddresses.current()
        #expect(!current.ipv4.contains { $0.hasPrefix("127.") })
        #expect(!current.ipv6.contains("::1"))
    }

    @Test("the icon: PNGs of 192 and 512 pixels with the picture drawn, an SVG, a manifest naming them")
    func icon() {
        for (png, side) in [(AppIcon.png192, 192), (AppIcon.png512, 512)] {
            #expect(png.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            #expect(Array(png[16..<24]) == PNGFileBytes.bigEndian(side) + PNGFileBytes.bigEndian(side))
            #expect(png.count > side * side * 3)
        }
        #expect(AppIcon.svg.hasPrefix("<svg") && AppIcon.svg.contains("rotate(12"))
        for name in ["icon-192.png", "icon-512.png", "icon.svg", "\"display\":\"standalone\"", "\"start_url\":\"./\""] {
            #expect(AppIcon.manifest.contains(name))
        }
        // The middle of the front card is white, the corner is the background's blue.
        #expect(AppIcon.shapes[1].distance(0.45, 0.52) < 0 && AppIcon.shapes[0].distance(0.02, 0.02) > 0)
    }

    @Test("the first load trades a right query token for the cookie, never a wrong one; the routes of the way in")
    func exchange() throws {
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "Test", bare: false)
        let id = try deck.add(title: "Ada", indexURL: "https://example.org/ada").id
        let checks = RequestGuard(address: "0.0.0.0", port: 8025, token: "s3cret", names: [])
        let service = DeckService(deck: deck, checks: checks)
        service.shareURLs = ["http://192.168.1.5:8025/?token=s3cret"]
        func answer(_ path: String, token: String? = nil, inQuery: Bool = false, cookie: String? = nil) -> HTTPResponse
        {
            service.handle(
                HTTPRequest(
                    method: "GET", path: path, host: "192.168.1.5:8025", token: token, tokenInQuery: inQuery,
                    cookie: cookie))
        }
        func setCookie(_ response: HTTPResponse) -> String? { response.headers.first { $0.0 == "Set-Cookie" }?.1 }
        let first = answer("/", token: "s3cret", inQuery: true)
        #expect(first.status == 200)
        #expect(
            setCookie(first)
                == "cards_token_8025=s3cret; Path=/; Max-Age=34560000; HttpOnly; SameSite=Strict")
        #expect(String(decoding: first.bytes, as: UTF8.self).contains("content=\"0; url=/\""))
        #expect(setCookie(answer("/phone", token: "s3cret", inQuery: true)) != nil)
        // A wrong token in the query beside a good cookie: served by the cookie, and the cookie is not replaced.
        let wrong = answer("/", token: "guess", inQuery: true, cookie: "cards_token_8025=s3cret")
        #expect(wrong.status == 200 && setCookie(wrong) == nil)
        #expect(setCookie(answer("/", token: "s3cret")) == nil, "a header's token is a script's: no cookie")
        #expect(answer("/", token: "guess", inQuery: true).status == 401)
        let qr = answer("/qr.svg", cookie: "cards_token_8025=s3cret")
        #expect(qr.status == 200 && String(decoding: qr.bytes, as: UTF8.self).hasPrefix("<svg"))
        #expect(answer("/api/cards/\(id)/qr.svg", token: "s3cret").status == 200)
        #expect(answer("/api/cards/\(String(repeating: "0", count: 36))/qr.svg", token: "s3cret").status == 404)
        #expect(answer("/manifest.webmanifest").status == 200)
        #expect(answer("/icon-192.png").headers.contains { $0 == ("Content-Type", "image/png") })
        let phone = String(decoding: answer("/phone", token: "s3cret").bytes, as: UTF8.self)
        #expect(phone.contains("<code>http://192.168.1.5:8025/?token=s3cret</code>"))
        let csp = answer("/", token: "s3cret").headers.first { $0.0 == "Content-Security-Policy" }?.1 ?? ""
        #expect(csp.contains("manifest-src 'self'"))
    }

    /// A TCP connection from `source` to `destination`:`port`, or -1.
    static func connect(from source: String, to destination: String, port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        func address(_ text: String, _ port: UInt16) -> sockaddr_in {
            var value = sockaddr_in()
            value.sin_family = sa_family_t(AF_INET)
            value.sin_port = port.bigEndian
            inet_pton(AF_INET, text, &value.sin_addr)
            return value
        }
        var local = address(source, 0)
        var remote = address(destination, port)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        let made = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) }
        }
        guard bound == 0, made == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    /// One GET from `source`; the status line, or "" when the connection was closed or timed out.
    static func status(from source: String, port: UInt16) -> String {
        let fd = connect(from: source, to: "127.0.0.1", port: port)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return "" }
        return String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
    }

    @Test(
        "64 idle sockets and a trickle from one address: another address is served at once, the first after the timeout"
    )
    func flood() throws {
        var limits = HTTPServer.Limits()
        limits.idleTimeout = 2
        let server = try HTTPServer(address: "0.0.0.0", port: 0, limits: limits) { _ in .text(200, "ok") }
        defer { server.stop() }
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for _ in 0..<64 {
            let fd = Self.connect(from: "127.0.0.1", to: "127.0.0.1", port: server.port)
            if fd >= 0 { sockets.append(fd) }
        }
        // A trickle: a request head sent a byte at a time, never finished, from the same address.
        let trickle = Self.connect(from: "127.0.0.1", to: "127.0.0.1", port: server.port)
        defer { if trickle >= 0 { close(trickle) } }
        let head = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
        for byte in head.prefix(8) {
            _ = withUnsafeBytes(of: byte) { send(trickle, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
            usleep(50_000)
        }
        #expect(Self.status(from: "127.0.0.2", port: server.port) == "HTTP/1.1 200 OK")
        #expect(Self.status(from: "127.0.0.1", port: server.port) == "", "the flooding address is at its limit")
        // The idle sockets are closed after the timeout; the address is served again (bounded wait).
        var recovered = false
        for _ in 0..<40 where !recovered {
            usleep(250_000)
            recovered = Self.status(from: "127.0.0.1", port: server.port) == "HTTP/1.1 200 OK"
        }
        #expect(recovered, "the flooding address was not served again after the idle timeout")
    }
}

extension ServeAccessTests {
    @Test("a trickle (a byte every 0.2 s, never a whole request) from the page's own address is cut at the deadline")
    func trickle() throws {
        var limits = HTTPServer.Limits()
        limits.idleTimeout = 30
        limits.requestDeadline = 2
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: limits) { _ in .text(200, "ok") }
        defer { server.stop() }
        let tricklers = (0..<Int(limits.connectionsPerAddress)).map { _ in
            Self.connect(from: "127.0.0.1", to: "127.0.0.1", port: server.port)
        }
        defer { tricklers.forEach { if $0 >= 0 { close($0) } } }
        let start = MonotonicClock.now()
        var blocked = false
        var served = false
        var round = 0
        while MonotonicClock.now() - start < 8 && !served {
            let byte = Array("GET / HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8)[
                min(round, 50)]
            for fd in tricklers where fd >= 0 {
                _ = withUnsafeBytes(of: byte) { send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
            }
            round += 1
            usleep(200_000)
            if round == 3 { blocked = Self.status(from: "127.0.0.1", port: server.port) == "" }
            if round > 3 { served = Self.status(from: "127.0.0.1", port: server.port) == "HTTP/1.1 200 OK" }
        }
        let seconds = MonotonicClock.now() - start
        #expect(blocked, "the tricklers did not fill the address's share")
        #expect(served && seconds >= 2, "the trickle still held the address after \(seconds) s")
    }

    @Test("listening on :: takes IPv4 too, as `cards serve` prints the machine's IPv4 addresses first")
    func dualStack() throws {
        guard let server = try? HTTPServer(address: "::", port: 0, handler: { _ in .text(200, "ok") }) else {
            try Test.cancel("this machine cannot listen on :: (no IPv6)")
        }
        defer { server.stop() }
        #expect(Self.status(from: "127.0.0.1", port: server.port) == "HTTP/1.1 200 OK")
    }

    /// A stream that sends a line every 0.4 s, five times.
    final class SlowStream: HTTPStream, @unchecked Sendable {
        var left = 5
        func next(capacity: Int) -> [UInt8]? {
            guard left > 0 else { return nil }
            left -= 1
            usleep(400_000)
            return Array("data: \(left)\n\n".utf8)
        }
    }

    @Test("an answer being streamed (an event stream) is never cut by the request deadline")
    func streamOutlivesDeadline() throws {
        var limits = HTTPServer.Limits()
        limits.requestDeadline = 1
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: limits) { _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")], body: .stream(SlowStream()))
        }
        defer { server.stop() }
        let answer = HTTPServerTests.exchange(
            "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n", port: server.port)
        #expect(answer.contains("data: 4") && answer.contains("data: 0"), "\(answer)")
    }
}

/// Big-endian bytes, as PNG writes its sizes.
enum PNGFileBytes {
    static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8((value >> 24) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
