@testable import CardStore
@testable import GitCore
import TestSupport
import Testing

/// Commit messages and reflog lines keep each value on its line, whatever line breaks it holds.
@Suite("Message lines: a value's line breaks never start a new line")
struct MessageLineTests {
    @Test(
        "a trailer value with CR, LF and CRLF stays one trailer line", arguments: ["a\r\nb", "a\nb", "a\rb", "plain"])
    func trailerOnOneLine(value: String) {
        let text = CommitMessage(subject: "Subject", trailers: [("Card-Title", value), ("Op", "edit")]).text
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 5, "\(text.debugDescription)")
        #expect(!text.contains("\r"))
        #expect(lines[2].hasPrefix("Card-Title: a") || lines[2] == "Card-Title: plain")
        #expect(lines[3] == "Op: edit")
    }

    @Test("a reflog message with CR, LF and CRLF stays one reflog line")
    func reflogOnOneLine() {
        let id = ObjectID(bytes: [UInt8](repeating: 7, count: 20))
        let committer = Signature(name: "N", email: "n@example.invalid", time: 0, offsetMinutes: 0)
        let line = Repository.reflogLine(old: nil, new: id, committer: committer, message: "cards: x\r\ny\rz\nw")
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1 && line.last == UInt8(ascii: "\n"))
        #expect(!line.contains(UInt8(ascii: "\r")))
        #expect(String(decoding: line, as: UTF8.self).hasSuffix("\tcards: x  y z w\n"))
    }
}

/// The byte-level path check against the component-by-component one it replaced, on random paths
/// over an alphabet rich in what it looks for (dots, slashes, "git" in any case, a non-ASCII capital
/// I with a dot). Seeded; the seed and path are in every failure message.
@Suite("Safe working paths: the byte-level check agrees with the plain one")
struct SafePathTests {
    static func reference(_ path: String) -> Bool {
        if path.isEmpty || path.hasPrefix("/") { return false }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if component.isEmpty || component == "." || component == ".." || component.lowercased() == ".git" {
                return false
            }
        }
        return true
    }

    @Test("random paths", arguments: [UInt64(1), 2, 3, 4])
    func randomPaths(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let alphabet = [".", "/", "g", "G", "i", "I", "t", "T", "İ", "x", ".git", ".GIT", "..", "é"]
        for _ in 0..<5_000 {
            let path = (0..<Int.random(in: 0...9, using: &random)).map { _ in
                alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
            }.joined()
            #expect(
                Deck.isSafeWorkingPath(path) == Self.reference(path), "seed \(seed): \(path.debugDescription)")
        }
        for path in ["cards/ab/x.json", ".git/config", "a/.GiT/b", "a/..", "./a", "/a", "", "a//b", ".gitx", ".gi"] {
            #expect(Deck.isSafeWorkingPath(path) == Self.reference(path), "\(path.debugDescription)")
        }
    }
}
