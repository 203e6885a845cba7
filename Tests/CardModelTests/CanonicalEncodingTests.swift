import TestSupport
import Testing

@testable import CardModel

@Suite struct CanonicalEncodingTests {
    static let sample = """
        {
          "color": "blue",
          "id": "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f",
          "indexURL": "https://github.com/octocat",
          "platformIcon": "github",
          "platformName": "GitHub",
          "rank": "a0",
          "title": "Octocat on GitHub"
        }

        """

    @Test func sampleCardGoldenBytes() throws {
        let card = Card(
            id: "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f", title: "Octocat on GitHub",
            indexURL: "https://github.com/octocat", platformName: "GitHub", platformIcon: "github",
            color: "blue", rank: "a0")
        #expect(card.encoded() == Array(Self.sample.utf8))
        // Reading any layout of the same JSON gives the same bytes.
        let scrambled =
            #"{"title":"Octocat on GitHub","rank":"a0","platformName":"GitHub","platformIcon":"github","#
            + #""indexURL":"https:\/\/github.com\/octocat","id":"3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f","color":"blue"}"#
        #expect(try Card.decode(Array(scrambled.utf8)).encoded() == Array(Self.sample.utf8))
    }

    @Test func nestedValuesAndEscapes() {
        let value = JSONValue.object([
            "b": .array([.number("1"), .object(["x": .null]), .array([]), .object([:])]),
            "a": .string("tab\t nl\n quote\" back\\ slash/ bell\u{7} é 😀 del\u{7F}"),
            "B": .bool(true),
        ])
        let expected = """
            {
              "B": true,
              "a": "tab\\t nl\\n quote\\" back\\\\ slash/ bell\\u0007 é 😀 del\u{7F}",
              "b": [
                1,
                {
                  "x": null
                },
                [],
                {}
              ]
            }

            """
        #expect(String(decoding: value.canonicalBytes(), as: UTF8.self) == expected)
    }

    @Test func keysSortByUTF8Bytes() {
        // "Z" < "a" < "é" (0xC3) < "😀" (0xF0) by bytes.
        let value = JSONValue.object(["😀": .null, "é": .null, "a": .null, "Z": .null])
        let text = String(decoding: value.canonicalBytes(), as: UTF8.self)
        #expect(text == "{\n  \"Z\": null,\n  \"a\": null,\n  \"é\": null,\n  \"😀\": null\n}\n")
    }

    @Test func emptyAndScalarTopLevel() {
        #expect(JSONValue.object([:]).canonicalBytes() == Array("{}\n".utf8))
        #expect(JSONValue.array([]).canonicalBytes() == Array("[]\n".utf8))
        #expect(JSONValue.string("x").canonicalBytes() == Array("\"x\"\n".utf8))
    }

    @Test func roundTripOfRandomValues() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<500 {
            let value = randomValue(&rng, depth: 0)
            let bytes = value.canonicalBytes()
            let parsed = try JSONValue.parse(bytes)
            #expect(parsed == value, "seed \(seed)")
            #expect(parsed.canonicalBytes() == bytes, "seed \(seed)")
            #expect(!String(decoding: bytes, as: UTF8.self).contains(" \n"), "trailing space, seed \(seed)")
        }
    }

    func randomValue(_ rng: inout SplitMix64, depth: Int) -> JSONValue {
        let choice = Int.random(in: 0..<(depth > 4 ? 4 : 6), using: &rng)
        switch choice {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(["0", "-1", "3.25", "1e10", "-0.5E-3"].randomElement(using: &rng) ?? "0")
        case 3: return .string(randomString(&rng))
        case 4: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                members[randomString(&rng)] = randomValue(&rng, depth: depth + 1)
            }
            return .object(members)
        }
    }

    func randomString(_ rng: inout SplitMix64) -> String {
        let alphabet: [Unicode.Scalar] = [
            "a", "Z", "/", "\\", "\"", "\u{0}", "\n", "\u{1F}", "é", "😀", " ", "\u{2028}",
        ]
        var s = ""
        for _ in 0..<Int.random(in: 0...6, using: &rng) {
            s.unicodeScalars.append(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)])
        }
        return s
    }
}
