import Glibc
import TestSupport
import Testing

@testable import DeckServer

/// The libmicrohttpd server in-process: a request reaches the handler with its headers, a body over the
/// limit is refused before it is read, and the swipe body parser takes hostile bytes without trapping.
@Suite("HTTP server")
struct HTTPServerTests {
    /// Sends `request` to 127.0.0.1:`port` and returns what came back (until the server closes).
    static func exchange(_ request: String, port: UInt16) -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return "" }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    static func server() throws -> HTTPServer {
        var limits = HTTPServer.Limits()
        limits.body = 1000
        return try HTTPServer(address: "127.0.0.1", port: 0, limits: limits) { request in
            .text(
                200,
                "\(request.method) \(request.path) host=\(request.host ?? "-") token=\(request.token ?? "-") "
                    + "origin=\(request.origin ?? "-") body=\(request.body.count)")
        }
    }

    @Test("a request reaches the handler with its method, path, Host, Origin, token and body")
    func roundTrip() throws {
        let server = try Self.server()
        defer { server.stop() }
        let answer = Self.exchange(
            "POST /api/x?token=abc HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nOrigin: http://o\r\n"
                + "Content-Length: 5\r\nConnection: close\r\n\r\nhello", port: server.port)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        #expect(answer.contains("POST /api/x host=127.0.0.1:\(server.port) token=abc origin=http://o body=5"))
    }

    @Test("a body over the limit is refused with 413, declared or chunked")
    func bodyLimit() throws {
        let server = try Self.server()
        defer { server.stop() }
        let declared = Self.exchange(
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n", port: server.port)
        #expect(declared.hasPrefix("HTTP/1.1 413"), "\(declared)")
        let chunk = String(repeating: "x", count: 800)
        let chunked = Self.exchange(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "320\r\n\(chunk)\r\n320\r\n\(chunk)\r\n0\r\n\r\n", port: server.port)
        #expect(chunked.hasPrefix("HTTP/1.1 413"), "\(chunked)")
    }

    @Test("a head larger than the connection's memory is refused, and the server goes on")
    func hugeHeaders() throws {
        let server = try Self.server()
        defer { server.stop() }
        let big = String(repeating: "a", count: 100_000)
        let answer = Self.exchange("GET / HTTP/1.1\r\nHost: h\r\nX-Big: \(big)\r\n\r\n", port: server.port)
        #expect(!answer.hasPrefix("HTTP/1.1 200"))
        let after = Self.exchange("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", port: server.port)
        #expect(after.hasPrefix("HTTP/1.1 200"), "\(after)")
    }

    @Test("a port in use is named, with what to do")
    func portInUse() throws {
        let server = try Self.server()
        defer { server.stop() }
        #expect(throws: ServeError.self) {
            try HTTPServer(address: "127.0.0.1", port: server.port) { _ in .text(200, "") }
        }
        do {
            _ = try HTTPServer(address: "not-an-ip", port: 0) { _ in .text(200, "") }
        } catch {
            #expect(error.message.contains("not an IP address"))
        }
    }

    @Test("swipe bodies: good ones parse, hostile ones are refused with the field named, none traps")
    func swipeBodies() throws {
        let good = try DeckService.parseSwipe(
            Array(#"{"id":"a","preset":"row","width":360,"height":450,"samples":[[0,0,0],[0.1,-200,1]]}"#.utf8))
        #expect(good.configuration.name == "row" && good.script?.samples.count == 2)
        let programmatic = try DeckService.parseSwipe(Array(#"{"id":"a","direction":"left"}"#.utf8))
        #expect(programmatic.direction == .left && programmatic.configuration.name == "stack")
        let bad = [
            "", "[]", "{}", #"{"id":1}"#, #"{"id":"a","preset":"x","samples":[[0,0,0]]}"#,
            #"{"id":"a","samples":[]}"#, #"{"id":"a","samples":[[0,0]]}"#, #"{"id":"a","samples":[["0",0,0]]}"#,
            #"{"id":"a","width":0,"height":1,"samples":[[0,0,0]]}"#,
            #"{"id":"a","width":1e999,"height":1,"samples":[[0,0,0]]}"#,
            #"{"id":"a","direction":"up"}"#, #"{"id":"a","samples":[[0,0,0]],"cancel":"x"}"#,
            String(repeating: "[", count: 5000),
        ]
        for body in bad {
            #expect(throws: ServeError.self, "\(body.prefix(60))") { try DeckService.parseSwipe(Array(body.utf8)) }
        }
        var random = SplitMix64(seed: 25)
        let alphabet = Array(#"{}[]",:0123456789.e-"idsamplespresetwidth"#.utf8)
        for _ in 0..<2000 {
            let bytes = (0..<Int(random.next() % 64)).map { _ in
                alphabet[Int(random.next() % UInt64(alphabet.count))]
            }
            _ = try? DeckService.parseSwipe(bytes)
        }
    }
}
