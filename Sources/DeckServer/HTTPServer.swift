import CMicroHTTPD
import Glibc
import SystemCalls

/// An HTTP/1.1 server on libmicrohttpd: one thread per connection, bounded headers (the connection's
/// memory limit), bodies and connections. Requests go to `handler` on the connection's thread.
///
/// libmicrohttpd parses HTTP (the part a hand-written server gets wrong: pipelining, chunked bodies,
/// header folding, slow clients); this class turns its callbacks into `HTTPRequest` values. It is
/// loaded on first use (CMicroHTTPD), so other commands never load it.
public final class HTTPServer: @unchecked Sendable {
    /// Answers one request; called on the connection's thread, possibly on several at once.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The limits that bound what a client can make the server hold.
    public struct Limits: Sendable {
        /// The largest body taken, in bytes; a larger one is answered 413 without being read.
        public var body = 256 * 1024
        /// The memory libmicrohttpd gives a connection for its request line and headers (a longer head: 431).
        public var connectionMemory = 64 * 1024
        /// Connections open at once (an event stream holds one per open page). Each is a thread, mostly
        /// asleep; well above `connectionsPerAddress`, so one address filling its share leaves room for
        /// several others.
        public var connections: UInt32 = 128
        /// Connections open at once from one address: a browser opens at most 6 to a server by each name,
        /// and one more a page for its event stream; the laptop the server runs on may reach it by several
        /// names from the one address 127.0.0.1 (`localhost`, `127.0.0.1`, its host name, `hostname.local`:
        /// with 16, the idle connections Chromium keeps for three of them left none for a fourth, and its
        /// manifest failed to load). A flood of idle sockets from one address stops here (libmicrohttpd
        /// closes the ones over) and locks out no other address.
        public var connectionsPerAddress: UInt32 = 32
        /// Seconds a connection may stay silent (no byte either way) before it is closed: a flood of idle
        /// sockets from the page's own address is cleared within this, and the event stream's keep-alive
        /// (`DeckEventStream.keepAlive`) comes well before it.
        public var idleTimeout: UInt32 = 15
        /// Seconds a connection may take to send a whole request (head and body), from its start or the end
        /// of its previous request: a slow trickle, which the idle timeout never catches, is cut here. An
        /// answer being sent (an event stream) is never cut. 0: no deadline.
        public var requestDeadline: UInt32 = 30

        /// The defaults.
        public init() {}
    }

    let handler: Handler
    let limits: Limits
    private var daemon: OpaquePointer?
    /// The port listened on (the one the system chose for port 0).
    public private(set) var port: UInt16 = 0

    /// Starts listening on `address` (an IPv4 or IPv6 literal) and `port` (0: any free port).
    /// - Throws: `ServeError` naming the address and the cause (port taken, address not this machine's,
    ///   libmicrohttpd missing).
    public init(address: String, port: UInt16, limits: Limits = Limits(), handler: @escaping Handler)
        throws(ServeError)
    {
        self.handler = handler
        self.limits = limits
        guard cards_http_available() != 0 else {
            let reason = cards_http_load_error().map { String(cString: $0) } ?? "not found"
            throw ServeError(
                "cannot load libmicrohttpd (\(reason)): install it (`apt-get install libmicrohttpd12`, or "
                    + "`./dev` installs libmicrohttpd-dev) and try again")
        }
        var errorNumber: Int32 = 0
        // The server outlives its daemon (`deinit` stops it, and no callback comes once stopped), so an
        // unretained pointer is safe, and a retained one would keep the server alive forever.
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started = cards_http_start(
            address, port, httpAccess, httpCompleted, context, limits.connectionMemory, limits.connections,
            limits.connectionsPerAddress, limits.idleTimeout, limits.requestDeadline, &errorNumber)
        guard let started else {
            let cause: String
            switch errorNumber {
            case EINVAL: cause = "'\(address)' is not an IP address; give one such as 127.0.0.1, 0.0.0.0 or ::1"
            case EADDRINUSE: cause = "port \(port) is in use; give another with --port, or --port 0 for any free one"
            case EADDRNOTAVAIL: cause = "\(address) is not an address of this machine; see `ip address`"
            case EACCES: cause = "port \(port) needs privileges; use a port above 1023"
            default: cause = SystemError.reason(errorNumber)
            }
            throw ServeError("cannot listen on \(address) port \(port): \(cause)")
        }
        daemon = started
        self.port = cards_http_port(started)
    }

    deinit {
        stop()
    }

    /// Stops listening, closes every connection and waits for their threads. Streams must have been told
    /// to end first (their `next` returns nil), or this waits for them.
    public func stop() {
        guard let daemon else { return }
        self.daemon = nil
        cards_http_stop(daemon)
    }
}

/// A request being received: its body so far.
final class PendingRequest {
    var body: [UInt8] = []
    var tooLarge = false
}

/// libmicrohttpd's access handler: notes the request, takes its body, then answers it.
private let httpAccess: cards_http_access = { context, connection, url, method, upload, uploadSize, state in
    guard let context, let connection, let uploadSize, let state else { return 0 }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    return server.access(connection, url, method, upload, uploadSize, state) ? 1 : 0
}

/// libmicrohttpd's completion callback: frees the request's state.
private let httpCompleted: cards_http_completed = { _, state in
    guard let state, let pointer = state.pointee else { return }
    Unmanaged<PendingRequest>.fromOpaque(pointer).release()
    state.pointee = nil
}

extension HTTPServer {
    func access(
        _ connection: OpaquePointer, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
        _ upload: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>,
        _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> Bool {
        guard let pointer = state.pointee else {
            let pending = PendingRequest()
            state.pointee = Unmanaged.passRetained(pending).toOpaque()
            // Refused before a byte of the body is read: a client cannot make us hold a large one.
            if let length = header(connection, "Content-Length").flatMap({ UInt64($0) }), length > limits.body {
                return send(tooLarge(), on: connection)
            }
            return true
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(pointer).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            if !pending.tooLarge, let upload {
                if pending.body.count + count > limits.body {
                    pending.tooLarge = true
                    pending.body = []
                } else {
                    upload.withMemoryRebound(to: UInt8.self, capacity: count) {
                        pending.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                    }
                }
            }
            uploadSize.pointee = 0
            return true
        }
        if pending.tooLarge { return send(tooLarge(), on: connection) }
        let queryToken = cards_http_query(connection, "token").map { String(cString: $0) }
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "",
            path: url.map { String(cString: $0) } ?? "/",
            host: header(connection, "Host"), hostCount: Int(cards_http_header_count(connection, "Host")),
            origin: header(connection, "Origin"), fetchSite: header(connection, "Sec-Fetch-Site"),
            fetchMode: header(connection, "Sec-Fetch-Mode"), contentType: header(connection, "Content-Type"),
            token: queryToken ?? header(connection, "X-Cards-Token"), tokenInQuery: queryToken != nil,
            cookie: header(connection, "Cookie"), body: pending.body)
        pending.body = []
        return send(handler(request), on: connection)
    }

    func tooLarge() -> HTTPResponse {
        .text(413, "Error: the request body is over \(limits.body) bytes; send less.\n")
    }

    func header(_ connection: OpaquePointer, _ name: String) -> String? {
        cards_http_header(connection, name).map { String(cString: $0) }
    }

    /// Queues `response` on the connection.
    func send(_ response: HTTPResponse, on connection: OpaquePointer) -> Bool {
        // Header names and values are the server's own constants, never a client's text.
        let strings = response.headers.flatMap { [strdup($0.0), strdup($0.1)] }
        defer { strings.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = strings.map { $0.map { UnsafePointer($0) } }
        pointers.append(nil)
        let status = UInt32(clamping: response.status)
        switch response.body {
        case .bytes(let bytes):
            return pointers.withUnsafeBufferPointer { headers in
                bytes.withUnsafeBytes { body in
                    cards_http_respond(connection, status, body.baseAddress, body.count, headers.baseAddress) != 0
                }
            }
        case .stream(let stream):
            let context = Unmanaged.passRetained(StreamBox(stream)).toOpaque()
            return pointers.withUnsafeBufferPointer { headers in
                cards_http_respond_stream(
                    connection, status, streamRead, context, streamFree, headers.baseAddress) != 0
            }
        }
    }
}

/// A stream held by libmicrohttpd until its `free` callback.
final class StreamBox {
    let stream: any HTTPStream
    init(_ stream: any HTTPStream) { self.stream = stream }
}

private let streamRead: cards_http_reader = { context, buffer, capacity in
    guard let context, let buffer else { return -1 }
    let box = Unmanaged<StreamBox>.fromOpaque(context).takeUnretainedValue()
    guard let bytes = box.stream.next(capacity: capacity) else { return -1 }
    let count = min(bytes.count, capacity)
    bytes.withUnsafeBytes { source in
        if let base = source.baseAddress { memcpy(buffer, base, count) }
    }
    return count
}

private let streamFree: cards_http_reader_free = { context in
    guard let context else { return }
    Unmanaged<StreamBox>.fromOpaque(context).release()
}
