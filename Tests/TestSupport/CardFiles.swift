import Foundation

/// One file of a deck's repository: its path from the root and its bytes.
public struct CardFile: Sendable, Hashable {
    /// The path from the repository's root (`cards/xx/<id>.json`, `deck.json`).
    public var path: String
    /// The file's bytes.
    public var bytes: [UInt8]

    /// A file of `text`.
    public init(path: String, text: String) {
        self.path = path
        bytes = Array(text.utf8)
    }
}

/// Card files laid out as a deck lays them out (`cards/<first two>/<id>.json`, `deck.json`), made from a
/// seed, for the tests of GitCore: a repository of cards without CardStore, written by the git
/// executable (`GitIndexFixture`) or by GitCore's own calls as a deck's writes make them.
public enum CardFiles {
    /// The path of the card `id`: `cards/<first two characters>/<id>.json`.
    public static func path(id: String) -> String {
        "cards/\(id.prefix(2))/\(id).json"
    }

    /// A random lower-case UUID-shaped card id, one hex digit from each of `generator`'s numbers.
    public static func randomID(using generator: inout SplitMix64) -> String {
        var hex = ""
        for index in 0..<32 {
            if [8, 12, 16, 20].contains(index) { hex += "-" }
            hex += String(generator.next() % 16, radix: 16)
        }
        return hex
    }

    /// `count` card files with predictable titles (`<prefix> <n>`), ids from `seed`.
    public static func make(_ count: Int, prefix: String = "Card", seed: UInt64 = 1) -> [CardFile] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let id = randomID(using: &generator)
            return card(id: id, title: "\(prefix) \(index)", url: "https://example.org/\(prefix)/\(index)")
        }
    }

    /// The card `id`'s file, with `title` and `url`.
    public static func card(id: String, title: String, url: String) -> CardFile {
        CardFile(
            path: path(id: id),
            text: "{\n  \"id\" : \"\(id)\",\n  \"indexURL\" : \"\(url)\",\n  \"title\" : \"\(title)\"\n}\n")
    }

    /// `deck.json` naming the deck and ordering `cards`.
    public static func deck(name: String, cards: [CardFile]) -> CardFile {
        let ids = cards.map { "\"" + ($0.path.split(separator: "/").last?.dropLast(".json".count) ?? "") + "\"" }
        let order = ids.joined(separator: ",")
        return CardFile(path: "deck.json", text: "{\n  \"name\" : \"\(name)\",\n  \"order\" : [\(order)]\n}\n")
    }
}
