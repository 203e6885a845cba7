import Glibc

/// An OpenSSH `known_hosts` file, read to check a server's host key: plain and hashed (`|1|…`)
/// host names, `[host]:port`, patterns with `*`/`?` and `!`, and `@revoked` lines.
package struct KnownHosts: Sendable {
    /// What the file says about one host and key.
    package enum Verdict: Sendable, Equatable {
        /// A line names this host with exactly this key.
        case match
        /// Lines name this host, but with other keys: the key changed, or someone is in between.
        case mismatch
        /// No line names this host.
        case unknown
        /// The key is marked `@revoked`.
        case revoked
    }

    struct Entry: Sendable {
        var marker: String?
        var patterns: [String]
        var key: [UInt8]
    }

    let entries: [Entry]

    /// Reads the file; a missing or unreadable file has no entries.
    package init(path: String) {
        guard let file = fopen(path, "r") else {
            self.init(text: "")
            return
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        self.init(text: String(decoding: bytes, as: UTF8.self))
    }

    /// Parses the text of a known_hosts file.
    package init(text: String) {
        var entries: [Entry] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            var fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            var marker: String?
            if first.hasPrefix("@") {
                marker = first
                fields.removeFirst()
            }
            guard fields.count >= 3, let key = Base64.decode(fields[2]) else { continue }
            entries.append(Entry(marker: marker, patterns: fields[0].split(separator: ",").map(String.init), key: key))
        }
        self.entries = entries
    }

    /// Checks `key` (the raw ssh public-key blob) for `host` (`name` or `[name]:port`).
    package func verdict(host: String, key: [UInt8]) -> Verdict {
        var sawHost = false
        var matched = false
        for entry in entries where entry.marker != "@cert-authority" && Self.matches(entry.patterns, host) {
            if entry.marker == "@revoked" {
                if entry.key == key { return .revoked }
                continue
            }
            sawHost = true
            if entry.key == key { matched = true }
        }
        if matched { return .match }
        return sawHost ? .mismatch : .unknown
    }

    /// Whether a host-name field (comma-separated patterns) names `host`: some pattern matches and no `!pattern` does.
    static func matches(_ patterns: [String], _ host: String) -> Bool {
        var positive = false
        for pattern in patterns {
            if pattern.hasPrefix("|1|") {
                if hashedMatches(pattern, host) { positive = true }
            } else if pattern.hasPrefix("!") {
                if glob(Array(pattern.dropFirst().lowercased().utf8), Array(host.lowercased().utf8)) { return false }
            } else if glob(Array(pattern.lowercased().utf8), Array(host.lowercased().utf8)) {
                positive = true
            }
        }
        return positive
    }

    /// `|1|salt|hash`: hash = HMAC-SHA1(salt, host), both base64.
    static func hashedMatches(_ pattern: String, _ host: String) -> Bool {
        let parts = pattern.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 4, let salt = Base64.decode(String(parts[2])), let hash = Base64.decode(String(parts[3]))
        else {
            return false
        }
        return SHA1.hmac(key: salt, message: Array(host.utf8)) == hash
    }

    /// Shell-style `*` and `?` matching, as ssh does for host patterns.
    static func glob(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
        var p = 0
        var t = 0
        var star = -1
        var mark = 0
        while t < text.count {
            if p < pattern.count && (pattern[p] == UInt8(ascii: "?") || pattern[p] == text[t]) {
                p += 1
                t += 1
            } else if p < pattern.count && pattern[p] == UInt8(ascii: "*") {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}

/// Standard base64 (RFC 4648), as known_hosts and ssh fingerprints use it.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func decode(_ text: String) -> [UInt8]? {
        var lookup = [Int16](repeating: -1, count: 256)
        for (index, char) in alphabet.enumerated() { lookup[Int(char)] = Int16(index) }
        var out: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for char in text.utf8 {
            if char == UInt8(ascii: "=") { break }
            let value = lookup[Int(char)]
            guard value >= 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return out
    }

    static func encode(_ bytes: [UInt8], padding: Bool = true) -> String {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value: UInt32 = 0
            for byte in chunk { value = value << 8 | UInt32(byte) }
            value <<= UInt32(8 * (3 - chunk.count))
            for position in 0..<4 {
                if position <= chunk.count {
                    out.append(alphabet[Int((value >> UInt32(18 - 6 * position)) & 0x3f)])
                } else if padding {
                    out.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
