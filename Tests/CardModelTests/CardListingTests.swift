import TestSupport
import Testing

@testable import CardModel

/// `cards list` reads a canonical card file straight into its listing (`CardListing(canonical:)`), and
/// any other file through `Card.decode`. The fast path may only accept what `Card.decode` accepts, with
/// the same fields: checked here over random and hostile card files.
@Suite struct CardListingTests {
    static let id = "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f"

    /// Field values near the edges of the rules: empty, spaces, quotes and backslashes (escaped when
    /// encoded), controls, non-ASCII, long runs, and plain values that pass.
    static func randomValue(_ generator: inout SplitMix64) -> String {
        let pieces = [
            "", " ", "a", "Z", "0", "9", "-", "_", ".", ":", "/", "//", "#", "@", "\"", "\\", "é", "日本", "\u{7F}",
            "\u{85}", "\t", "\n", "http://", "https://x.org/", "mailto:a@b", "red", "#a0B1c2", "#12345", "blue",
            String(repeating: "x", count: 63), String(repeating: "y", count: 64), String(repeating: "z", count: 199),
            "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f", "[::1]", "%20",
        ]
        var text = ""
        for _ in 0..<Int.random(in: 0...4, using: &generator) {
            text += pieces[Int.random(in: 0..<pieces.count, using: &generator)]
        }
        return text
    }

    /// A valid card, then some of its fields replaced by random values (or removed, or made non-strings),
    /// and unknown fields and conflict records added now and then.
    static func randomFields(_ generator: inout SplitMix64) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "id": .string(id), "title": .string("Mastodon"), "indexURL": .string("https://example.org/@me"),
            "color": .string("teal"), "rank": .string("a0"), "platformName": .string("Fediverse"),
            "platformIcon": .string("mastodon"),
        ]
        let names = Array(fields.keys).sorted() + ["conflicts", "note", "Title", "zz", "", "é"]
        for _ in 0..<Int.random(in: 0...3, using: &generator) {
            let name = names[Int.random(in: 0..<names.count, using: &generator)]
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: fields[name] = nil
            case 1: fields[name] = .number("1")
            case 2: fields[name] = .array([.object(["field": .string("title")])])
            case 3: fields[name] = .array([])
            case 4: fields[name] = .null
            default: fields[name] = .string(randomValue(&generator))
            }
        }
        return fields
    }

    /// The canonical bytes, sometimes changed by a byte or two: layout, quotes, order, duplicates.
    static func randomFile(_ generator: inout SplitMix64) -> [UInt8] {
        var bytes = JSONValue.object(randomFields(&generator)).canonicalBytes()
        guard Int.random(in: 0..<3, using: &generator) == 0, !bytes.isEmpty else { return bytes }
        let edits: [[UInt8]] = [
            [], [0x20], [0x0A], [0x0D], [0x09], Array("\"".utf8), Array("\\".utf8), Array(",".utf8), Array("}".utf8),
            Array("{".utf8), Array(":".utf8), Array("\n  \"id\": \"x\",".utf8), [0xC3], [0xEF, 0xBB, 0xBF], [0x00],
        ]
        for _ in 0..<Int.random(in: 1...2, using: &generator) {
            let at = Int.random(in: 0..<bytes.count, using: &generator)
            let edit = edits[Int.random(in: 0..<edits.count, using: &generator)]
            if Bool.random(using: &generator) {
                bytes.replaceSubrange(at..<at + 1, with: edit)
            } else {
                bytes.insert(contentsOf: edit, at: at)
            }
            if bytes.isEmpty { break }
        }
        return bytes
    }

    /// What the fast path gives is what `Card.decode` gives, or it declines.
    static func check(_ bytes: [UInt8], expectedID: String = id, _ note: @autoclosure () -> String) -> Bool {
        // The title alone (a merge's read) is taken from exactly the same files.
        let title = CardListing.title(canonical: bytes, expectedID: expectedID)
        guard let fast = CardListing(canonical: bytes, expectedID: expectedID) else {
            #expect(title == nil, "the title was read from a file the listing declines: \(note())")
            return false
        }
        #expect(title == fast.title, "\(note())")
        let card = try? Card.decode(bytes, expectedID: expectedID)
        #expect(card != nil, "the fast path accepted what Card.decode refuses: \(note())")
        if let card { #expect(CardListing(card) == fast, "\(note())") }
        return true
    }

    @Test("random card files: the fast path accepts only what Card.decode accepts, with the same fields")
    func randomFiles() {
        let seed = TestSeeds.one("CARD_LISTING_SEED")
        print("CardListingTests.randomFiles seed \(seed) (CARD_LISTING_SEED=\(seed) replays it)")
        var generator = SplitMix64(seed: seed)
        var accepted = 0
        var valid = 0
        for round in 0..<20_000 {
            let bytes = Self.randomFile(&generator)
            if (try? Card.decode(bytes, expectedID: Self.id)) != nil { valid += 1 }
            if Self.check(bytes, "seed \(seed), round \(round): \(String(decoding: bytes, as: UTF8.self))") {
                accepted += 1
            }
        }
        // The fast path is taken: most valid files here are plain canonical ones.
        #expect(accepted > valid / 3, "accepted \(accepted) of \(valid) valid files")
    }

    @Test("an ordinary canonical card is read by the fast path, with the fields Card.decode gives")
    func ordinaryCards() throws {
        let card = Card(
            id: Self.id, title: "  Mastodon ", indexURL: "HTTPS://[::1]:80/@me", platformName: "Fediverse",
            platformIcon: "mastodon", color: "#A0b1c2", rank: "Zz0")
        let listing = try #require(CardListing(canonical: card.encoded(), expectedID: Self.id))
        #expect(listing == CardListing(try Card.decode(card.encoded(), expectedID: Self.id)))
        var plain = Card(id: Self.id, title: "x", indexURL: "mailto:a@b", rank: "0")
        plain.fields["zzz unknown"] = .string("kept")
        #expect(CardListing(canonical: plain.encoded(), expectedID: Self.id)?.platformName == "")
    }

    @Test("hostile and broken card files: declined, or read as Card.decode reads them")
    func hostileFiles() {
        func file(_ members: [(String, String)], end: String = "\n}\n") -> [UInt8] {
            Array(("{\n" + members.map { "  \"\($0.0)\": \"\($0.1)\"" }.joined(separator: ",\n") + end).utf8)
        }
        let good: [(String, String)] = [
            ("color", "red"), ("id", Self.id), ("indexURL", "https://x.org"), ("rank", "a"), ("title", "T"),
        ]
        let cases: [[UInt8]] = [
            [], Array("{}\n".utf8), Array("{\n}\n".utf8), Array("[]\n".utf8), file(good), file(good, end: "\n}"),
            file(good, end: "\n} \n"), file(good, end: "\n}\n\n"), file(good, end: "\r\n}\r\n"),
            [0xEF, 0xBB, 0xBF] + file(good), file(good.reversed()), file(good + [("title", "U")]),
            file([("color", "red"), ("color", "red")] + good.dropFirst()),
            file(good.map { $0.0 == "id" ? ($0.0, Self.id.uppercased()) : $0 }),
            file(good.map { $0.0 == "id" ? ($0.0, "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6e") : $0 }),
            file(good.map { $0.0 == "title" ? ($0.0, "   ") : $0 }),
            file(good.map { $0.0 == "title" ? ($0.0, String(repeating: "t", count: 201)) : $0 }),
            file(good.map { $0.0 == "title" ? ($0.0, String(repeating: "t", count: 200)) : $0 }),
            file(good.map { $0.0 == "color" ? ($0.0, "Red") : $0 }),
            file(good.map { $0.0 == "rank" ? ($0.0, "a-b") : $0 }),
            file(good.map { $0.0 == "rank" ? ($0.0, "") : $0 }),
            file(good.map { $0.0 == "indexURL" ? ($0.0, "ftp://x") : $0 }),
            file(good.map { $0.0 == "indexURL" ? ($0.0, "https://x.org/a b") : $0 }),
            file(good.map { $0.0 == "indexURL" ? ($0.0, "https:///") : $0 }),
            file(Array(good.dropFirst())), file(good.filter { $0.0 != "rank" }),
            file([("a", "x")] + good), file(([("conflicts", "x")] + good).sorted { $0.0 < $1.0 }),
            file(good + [("platformIcon", "Bad Icon")]), file(good + [("platformIcon", "")]),
            file(good + [("platformName", String(repeating: "p", count: 65))]),
            file(good + [("platformName", String(repeating: "p", count: 64))]),
            file(good.map { $0.0 == "title" ? ($0.0, "a\\nb") : $0 }),
            file(good.map { $0.0 == "title" ? ($0.0, "a\u{7F}b") : $0 }),
            file(good.map { $0.0 == "title" ? ($0.0, "a\u{1}b") : $0 }),
            file(good.map { $0.0 == "title" ? ($0.0, "é") : $0 }),
            file(good + [("zz", String(repeating: "w", count: 17_000))]),
            file(good + [("zz", String(repeating: "w", count: 2_700))]),
            Array("{\n\t\"color\": \"red\",\n  \"id\": \"\(Self.id)\",\n  \"indexURL\": \"https://x.org\",\n".utf8)
                + Array("  \"rank\": \"a\",\n  \"title\": \"T\"\n}\n".utf8),
            Array("{\n  \"color\":\"red\",\n  \"id\": \"\(Self.id)\",\n  \"indexURL\": \"https://x.org\",\n".utf8)
                + Array("  \"rank\": \"a\",\n  \"title\": \"T\"\n}\n".utf8),
        ]
        var accepted = 0
        for (number, bytes) in cases.enumerated() {
            if Self.check(bytes, "hostile case \(number): \(String(decoding: bytes, as: UTF8.self).prefix(300))") {
                accepted += 1
            }
        }
        #expect(accepted >= 3)
        // A file whose id is not the one its path names is declined (Card.decode names the mismatch).
        #expect(CardListing(canonical: file(good), expectedID: "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6e") == nil)
    }
}
