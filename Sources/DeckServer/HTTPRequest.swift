/// One HTTP request as the server's handler sees it: the parts the routes and the checks read, copied
/// out of libmicrohttpd while the request is in (its strings are not valid after).
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path, without the query (`/api/deck`).
    public var path: String
    /// The `Host` header, if any.
    public var host: String?
    /// How many `Host` headers came (a request with two is refused: which one would a proxy read?).
    public var hostCount: Int
    /// The `Origin` header, if any.
    public var origin: String?
    /// The `Sec-Fetch-Site` header, if any (`same-origin`, `cross-site`, `none`, …).
    public var fetchSite: String?
    /// The `Sec-Fetch-Mode` header, if any (`navigate` for a page opened in the address bar or by a link).
    public var fetchMode: String?
    /// The `Content-Type` header, if any.
    public var contentType: String?
    /// The token, from the `token` query argument or the `X-Cards-Token` header.
    public var token: String?
    /// Whether `token` came in the URL's query (the page's first load, to be exchanged for a cookie).
    public var tokenInQuery: Bool
    /// The `Cookie` header, if any (the page's token cookie is read from it).
    public var cookie: String?
    /// The body (at most the server's limit).
    public var body: [UInt8]

    /// Creates a request.
    public init(
        method: String, path: String, host: String? = nil, hostCount: Int? = nil, origin: String? = nil,
        fetchSite: String? = nil, fetchMode: String? = nil, contentType: String? = nil, token: String? = nil,
        tokenInQuery: Bool = false, cookie: String? = nil, body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.host = host
        self.hostCount = hostCount ?? (host == nil ? 0 : 1)
        self.origin = origin
        self.fetchSite = fetchSite
        self.fetchMode = fetchMode
        self.contentType = contentType
        self.token = token
        self.tokenInQuery = tokenInQuery
        self.cookie = cookie
        self.body = body
    }
}

/// A stream answer (server-sent events): each `next` returns the next bytes to send, blocking until there
/// are some, or nil to end the stream.
public protocol HTTPStream: AnyObject, Sendable {
    /// The next bytes (at most `capacity`), or nil to end.
    func next(capacity: Int) -> [UInt8]?
}

/// An answer: a status, headers and a body or a stream.
public struct HTTPResponse: Sendable {
    /// The body of an answer.
    public enum Body: Sendable {
        /// Bytes, sent at once.
        case bytes([UInt8])
        /// A stream of unknown length.
        case stream(any HTTPStream)
    }

    /// The status code.
    public var status: Int
    /// Headers, in order.
    public var headers: [(String, String)]
    /// The body.
    public var body: Body

    /// Creates an answer.
    public init(status: Int, headers: [(String, String)] = [], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A UTF-8 answer of `contentType`.
    public static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8")
        -> HTTPResponse
    {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: .bytes(Array(text.utf8)))
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ text: String) -> HTTPResponse {
        .text(status, text, contentType: "application/json; charset=utf-8")
    }

    /// The body's bytes (empty for a stream).
    public var bytes: [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }
}
