/// The parts of a remote URL that matter for messages, host-key checks and local-path rules.
/// Parses the forms libgit2 1.5 speaks: a path, `file://`, `git://`, `http(s)://`, `ssh://` and
/// the scp-like `user@host:path`.
package struct RemoteURL: Sendable, Equatable {
    /// The transport a URL selects.
    package enum Transport: String, Sendable {
        /// A path on this machine, or `file://`.
        case local
        /// `git://`
        case git
        /// `http://`
        case http
        /// `https://`
        case https
        /// `ssh://` or `user@host:path`
        case ssh
    }

    /// The URL as given.
    package var text: String
    /// The transport.
    package var transport: Transport
    /// The user in the URL, if any (`root` in `ssh://root@host/…`).
    package var user: String?
    /// Whether the URL carries a password (`https://user:token@host/…`).
    package var hasPassword: Bool
    /// The host (empty for local).
    package var host: String
    /// The port, when the URL gives one.
    package var port: Int?
    /// The path on the host (for local: the folder).
    package var path: String

    /// Parses a URL; nil for something no transport would take.
    package init?(_ text: String) {
        self.text = text
        user = nil
        hasPassword = false
        host = ""
        port = nil
        if let schemeEnd = text.schemeSeparator {
            let scheme = text[..<schemeEnd.lowerBound].lowercased()
            let rest = String(text[schemeEnd.upperBound...])
            switch scheme {
            case "file":
                transport = .local
                path = rest.hasPrefix("/") ? rest : "/" + rest
                return
            case "git": transport = .git
            case "http": transport = .http
            case "https": transport = .https
            case "ssh", "ssh+git", "git+ssh": transport = .ssh
            default: return nil
            }
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            var authority = String(rest[..<slash])
            path = String(rest[slash...])
            if let at = authority.lastIndex(of: "@") {
                let userInfo = authority[..<at]
                authority = String(authority[authority.index(after: at)...])
                if let colon = userInfo.firstIndex(of: ":") {
                    user = String(userInfo[..<colon]).removingPercentEncoding
                    hasPassword = true
                } else {
                    user = String(userInfo).removingPercentEncoding
                }
            }
            if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
                host = String(authority[authority.index(after: authority.startIndex)..<close])
                let after = authority[authority.index(after: close)...]
                if after.hasPrefix(":") { port = Int(after.dropFirst()) }
            } else if let colon = authority.lastIndex(of: ":") {
                host = String(authority[..<colon])
                port = Int(authority[authority.index(after: colon)...])
            } else {
                host = authority
            }
            if host.isEmpty { return nil }
            return
        }
        // scp-like `[user@]host:path`: a colon before any slash (and not a lone drive letter).
        if let colon = text.firstIndex(of: ":"), !text[..<colon].contains("/"),
            text.distance(from: text.startIndex, to: colon) > 1
        {
            transport = .ssh
            var authority = String(text[..<colon])
            path = String(text[text.index(after: colon)...])
            if let at = authority.lastIndex(of: "@") {
                user = String(authority[..<at])
                authority = String(authority[authority.index(after: at)...])
            }
            host = authority
            if host.isEmpty { return nil }
            return
        }
        if text.isEmpty { return nil }
        transport = .local
        path = text
    }

    /// Whether it is a path on this machine that does not start at the root (`../cards.git`): git counts
    /// such a path from the repository's top folder, a command-line argument from the current one.
    package var isRelativePath: Bool { transport == .local && !path.hasPrefix("/") }

    /// The port a connection uses (the URL's, else the transport's default).
    package var effectivePort: Int {
        if let port { return port }
        switch transport {
        case .git: return 9418
        case .http: return 80
        case .https: return 443
        case .ssh: return 22
        case .local: return 0
        }
    }

    /// The host as ssh names it in known_hosts: `host`, or `[host]:port` off port 22.
    package var knownHostsName: String {
        effectivePort == 22 ? host : "[\(host)]:\(effectivePort)"
    }

    /// The URL without a password, for messages.
    package var redacted: String {
        guard hasPassword, let schemeEnd = text.schemeSeparator else { return text }
        let rest = text[schemeEnd.upperBound...]
        guard let at = rest.firstIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<schemeEnd.upperBound]) + rest[..<colon] + ":***" + rest[at...]
    }
}

extension String {
    /// Where `://` is, as a range, or nil.
    var schemeSeparator: Range<String.Index>? {
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix("://") { return index..<self.index(index, offsetBy: 3) }
            index = self.index(after: index)
        }
        return nil
    }

    /// Decodes `%XX` escapes; nil when an escape is malformed.
    var removingPercentEncoding: String? {
        var bytes: [UInt8] = []
        var iterator = Array(utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
