import TestSupport
import Testing

@testable import CardModel

/// The byte-level fast paths only ever accept; these check, over many generated texts, that what
/// they accept the character-level rules accept too, and that the array overloads and helpers give
/// the same answers as the general forms.
@Suite struct ValidationFastPathTests {
    /// Texts made of pieces that sit near the edges of the rules: spaces, colons, brackets, `@`,
    /// schemes in any case, non-ASCII whitespace, combining marks, controls.
    static func randomText(_ generator: inout SplitMix64) -> String {
        let pieces = [
            " ", "  ", ":", "/", "//", "?", "#", "@", "[", "]", "[::1]", "http", "HTTPS", "hTtP", "mailto", "MAILTO",
            "a", "x.y", "é", "e\u{301}", "\u{3000}", "\u{2003}", "\u{A0}", "\u{85}", "\t", "\r\n", "\u{7F}", "%20",
            "日本", "🎉", "-", "_", "0", "Z",
        ]
        var text = ""
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            text += pieces[Int.random(in: 0..<pieces.count, using: &generator)]
        }
        return text
    }

    @Test("an URL the byte-level check accepts passes checkURL")
    func urlFastPathOnlyAccepts() {
        var generator = SplitMix64(seed: 7)
        var accepted = 0
        let starts = ["", "http:", "https://", "HTTPS://", "mailto:", "hTtP://", "ftp://", "http:/"]
        for _ in 0..<50_000 {
            let url = starts[Int.random(in: 0..<starts.count, using: &generator)] + Self.randomText(&generator)
            guard Card.isPlainValidURL(url) else { continue }
            accepted += 1
            #expect(throws: Never.self, "\(url)") { try Card.checkURL(url) }
        }
        #expect(accepted > 1_000)
        #expect(Card.isPlainValidURL("https://example.com/x"))
        #expect(Card.isPlainValidURL("HTTP://[::1]:80/"))
        #expect(Card.isPlainValidURL("mailto:a@b"))
        #expect(!Card.isPlainValidURL("https://u@:80/"))
        #expect(!Card.isPlainValidURL("https://[]/"))
        #expect(!Card.isPlainValidURL("mailto:"))
        #expect(!Card.isPlainValidURL("ftp://x"))
    }

    @Test("a title the byte-level check accepts passes the title rules, and short plain titles are accepted")
    func titleFastPathOnlyAccepts() {
        var generator = SplitMix64(seed: 11)
        for _ in 0..<50_000 {
            let title = Self.randomText(&generator)
            if Card.isPlainTitle(title) {
                #expect(throws: Never.self, "\(title)") { try Card.checkTitle(title) }
            }
        }
        #expect(Card.isPlainTitle(" a "))
        #expect(Card.isPlainTitle(String(repeating: "x", count: 200)))
        #expect(!Card.isPlainTitle(String(repeating: "x", count: 201)))
        #expect(!Card.isPlainTitle("   "))
        #expect(!Card.isPlainTitle(""))
    }

    @Test("no control character hides from mayHoldControl")
    func controlScreen() {
        for value in UInt32(0)...0x2FF {
            guard let scalar = Unicode.Scalar(value), Card.isControl(scalar) else { continue }
            #expect(Card.mayHoldControl("a\(Character(scalar))b"))
        }
        #expect(!Card.mayHoldControl("plain text é 日本"))
    }

    @Test("id(folder:fileName:) answers as id(fromPath:)")
    func idFromFolderAndName() {
        let id = "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f"
        let names = [
            "\(id).json", "\(id).JSON", "\(id)", "\(id).json.json", "3F2A9C1E-7B1D-4C55-9A0E-1D2B3C4D5E6F.json",
            "\(id.dropLast()).json", "x\(id.dropFirst()).json", "é\(id.dropFirst(2)).json", "",
        ]
        for folder in ["3f", "3F", "4f", "", "3f2"] {
            for name in names {
                #expect(CardID.id(folder: folder, fileName: name) == CardID.id(fromPath: "cards/\(folder)/\(name)"))
            }
        }
    }

    /// `id(fromPath:)` as it was written first: split on "/", then the folder and file name checked.
    static func splitPathID(_ path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "cards" else { return nil }
        let name = parts[2].utf8
        guard name.count == 41, name.dropFirst(36).elementsEqual(".json".utf8) else { return nil }
        let id = String(decoding: name.prefix(36), as: UTF8.self)
        guard CardID.isValid(id), parts[1].utf8.elementsEqual(id.utf8.prefix(2)) else { return nil }
        return id
    }

    @Test("id(fromPath:) in place answers as the split-based definition, on card paths and mutations of them")
    func idFromPathBytes() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("ValidationFastPathTests.idFromPathBytes seed: \(seed)")
        var generator = SplitMix64(seed: seed)
        let pieces = ["/", "cards", ".json", "é", "\u{301}", "3f", "-", "A", "K", "\u{212A}", "", "cards/", "//"]
        for _ in 0..<20_000 {
            var bytes = Array(CardID.path(for: CardID.random(using: &generator)).utf8)
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let position = Int.random(in: 0...bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0 where position < bytes.count: bytes.remove(at: position)
                case 1 where position < bytes.count: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                default:
                    let piece = pieces[Int.random(in: 0..<pieces.count, using: &generator)]
                    bytes.insert(contentsOf: Array(piece.utf8), at: position)
                }
            }
            let path = String(decoding: bytes, as: UTF8.self)
            #expect(CardID.id(fromPath: path) == Self.splitPathID(path), "\(path) (seed \(seed))")
        }
    }

    /// `==` on objects as it was written first: both sides' entries sorted by key bytes, compared pairwise.
    static func sortedEqual(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            let left = JSONValue.sortedEntries(x)
            let right = JSONValue.sortedEntries(y)
            return zip(left, right).allSatisfy { l, r in
                l.key.utf8.elementsEqual(r.key.utf8) && sortedEqual(l.value, r.value)
            }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { sortedEqual($0, $1) }
        case (.string(let x), .string(let y)), (.number(let x), .number(let y)):
            return x.utf8.elementsEqual(y.utf8)
        default:
            return a == b
        }
    }

    @Test("object equality by lookup answers as by sorted entries, keys alike only canonically included")
    func objectEqualityByLookup() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("ValidationFastPathTests.objectEqualityByLookup seed: \(seed)")
        var generator = SplitMix64(seed: seed)
        // Pairs of keys Swift calls equal that differ in bytes: a lookup finds one for the other.
        let keys = ["K", "\u{212A}", "e\u{301}", "\u{E9}", "title", "color", "a\u{301}\u{316}", "a\u{316}\u{301}", ""]
        let values: [JSONValue] = [
            .string("x"), .string("\u{E9}"), .string("e\u{301}"), .number("1"), .null, .bool(true),
        ]
        func randomObject() -> JSONValue {
            var object: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                object[keys[Int.random(in: 0..<keys.count, using: &generator)]] =
                    values[Int.random(in: 0..<values.count, using: &generator)]
            }
            return .object(object)
        }
        var equalSeen = 0
        for _ in 0..<20_000 {
            let a = randomObject()
            // Half the time a near copy of `a`, so that equal pairs come up often.
            var b = Bool.random(using: &generator) ? a : randomObject()
            if case .object(var members) = b, Bool.random(using: &generator),
                let key = members.keys.randomElement(using: &generator)
            {
                let value = members.removeValue(forKey: key)
                members[keys[Int.random(in: 0..<keys.count, using: &generator)]] = value
                b = .object(members)
            }
            let expected = Self.sortedEqual(a, b)
            if expected { equalSeen += 1 }
            #expect((a == b) == expected, "\(a) vs \(b) (seed \(seed))")
            #expect((b == a) == expected, "\(b) vs \(a) (seed \(seed))")
        }
        #expect(equalSeen > 1000)
    }

    @Test("array elements joined give the array's canonical bytes")
    func canonicalArrayFromElements() throws {
        let values: [JSONValue] = [
            .object(["b": .string("x\ny"), "a": .array([.number("1"), .null, .object([:])])]),
            .string("plain"), .array([]), .bool(true), .object(["k": .object(["n": .string("\"q\"")])]),
        ]
        for count in 0...values.count {
            let prefix = Array(values.prefix(count))
            let joined = JSONValue.canonicalArray(elements: prefix.map { $0.canonicalArrayElement() })
            #expect(joined == JSONValue.array(prefix).canonicalBytes())
        }
    }

    @Test("the array overloads decode and parse as the generic forms")
    func arrayOverloads() throws {
        let text = Array(
            "{\"color\": \"blue\", \"id\": \"3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f\", \"indexURL\": \"https://x.y\", \"rank\": \"a0\", \"title\": \"T\"}"
                .utf8)
        #expect(try Card.decode(text) == Card.decode(text[...]))
        #expect(try JSONValue.parse(text) == JSONValue.parse(text[...]))
        #expect(throws: CardDecodingError.self) { try Card.decode(Array("[1]".utf8)) }
    }
}
