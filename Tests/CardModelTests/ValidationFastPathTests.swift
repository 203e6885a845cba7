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
