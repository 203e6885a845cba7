import Foundation
@testable import CardStore
@testable import GitCore
import TestSupport
import Testing

/// Commit messages keep each value on its line, whatever line breaks it holds (reflog lines:
/// GitCoreTests' `ReflogLineTests`).
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

    @Test("the message laid out as bytes is the subject, body and trailers as written before (seed printed)")
    func textAsBefore() {
        // The layout the byte-level `text` replaced, word for word.
        func reference(_ message: CommitMessage) -> String {
            var text = CommitMessage.oneLine(message.subject) + "\n"
            if let body = message.body, !body.isEmpty { text += "\n" + body + "\n" }
            if !message.trailers.isEmpty {
                text +=
                    "\n"
                    + message.trailers.map { "\($0.0): \(CommitMessage.oneLine($0.1))" }
                    .joined(separator: "\n") + "\n"
            }
            return text
        }
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(seed: seed)
        let alphabet: [String] = ["a", "Z", " ", ":", "\n", "\r", "\r\n", "é", "e\u{301}", "😀", "\u{0}", "\""]
        func text(_ most: Int) -> String {
            (0..<Int.random(in: 0...most, using: &generator)).map { _ in
                alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
            }.joined()
        }
        for round in 0..<300 {
            let trailers = (0..<Int.random(in: 0...4, using: &generator)).map { _ in (text(8), text(20)) }
            let message = CommitMessage(
                subject: text(30), body: Bool.random(using: &generator) ? text(40) : nil, trailers: trailers)
            #expect(message.text == reference(message), "seed \(seed), round \(round)")
        }
    }
}

/// The path check works on bytes: "/" ends a part even when a combining mark follows it (as one
/// Character the pair escaped a split on Characters, so ".git/\u{301}config" passed). Checked against
/// a plain byte-level statement of the rule on random paths over an alphabet rich in what it looks for
/// (dots, slashes, "git" in any case, combining marks, a non-ASCII capital I with a dot). Seeded; the
/// seed and path are in every failure message.
@Suite("Safe working paths: parts split on the byte, checked as the rule says", .scratchFolder)
struct SafePathTests {
    /// The rule, stated plainly: not empty, not absolute; no part empty, ".", ".." or ".git" in any
    /// ASCII case, parts being what lies between "/" bytes.
    static func reference(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        if bytes.isEmpty || bytes[0] == UInt8(ascii: "/") { return false }
        for part in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            let text = String(decoding: part, as: UTF8.self)
            if part.isEmpty || text == "." || text == ".." { return false }
            if part.count == 4
                && String(decoding: part.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self) == ".git"
            {
                return false
            }
        }
        return true
    }

    @Test("random paths", arguments: [UInt64(1), 2, 3, 4])
    func randomPaths(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let alphabet = [
            ".", "/", "g", "G", "i", "I", "t", "T", "İ", "x", ".git", ".GIT", "..", "é", "\u{301}", "/\u{301}",
        ]
        for _ in 0..<5_000 {
            let path = (0..<Int.random(in: 0...9, using: &random)).map { _ in
                alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
            }.joined()
            #expect(Deck.isSafeWorkingPath(path) == Self.reference(path), "seed \(seed): \(path.debugDescription)")
        }
    }

    @Test("a combining mark after a slash does not hide the part before it")
    func combiningMarks() throws {
        for path in [".git/\u{301}config", "/\u{301}etc/passwd", "../\u{301}x", "cards/../\u{301}x"] {
            #expect(!Deck.isSafeWorkingPath(path), "\(path.debugDescription) passed")
        }
        for path in ["cards/ab/x.json", "notes/\u{301}a.txt"] {
            #expect(Deck.isSafeWorkingPath(path), "\(path.debugDescription) refused")
        }
        // The folder before such a slash is still checked for a link out of the deck.
        let scratch = try ScratchFolder.current
        let deck = try Deck.create(at: scratch.path("deck"), name: "L", bare: false)
        let outside = scratch.path("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("deck/x"), withDestinationPath: outside)
        #expect(throws: StoreError.self) { try deck.workingFile("x/\u{301}y") }
    }
}

/// The entries `cards status` and a sync judge for changed paths: each path under `cards/` up to its
/// third "/", split on the byte as git splits paths (a combining mark after "/" is no part of it).
/// Checked against a plain byte-level statement on random paths (seed printed).
@Suite("Judged entries: a changed path's card entry, on the bytes", .scratchFolder)
struct JudgedEntriesTests {
    @Test("a committed file whose name begins with a combining mark is found and named, as a full scan names it")
    func combiningMarkAfterSlash() throws {
        let scratch = try ScratchFolder.current
        let directory = scratch.path("deck")
        let deck = try Deck.create(at: directory, name: "Marks", bare: false)
        let path = "cards/ab/\u{301}cd.json"
        try FileManager.default.createDirectory(atPath: directory + "/cards/ab", withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: directory + "/" + path))
        try scratch.git(["add", "-A"], in: directory)
        try scratch.git(["commit", "-q", "-m", "odd name"], in: directory)
        let tree = try #require(try deck.snapshot().tree)
        // What a sync or a fast-forward judges among the paths it changed, and what `cards status` lists.
        #expect(deck.invalidCards(amongChanged: [path], in: tree).map(\.path) == [path])
        #expect(try deck.committedInvalidCards().map(\.path).contains(path))
    }

    @Test("the entry is the path's first three parts under cards/, nothing for other paths (seed printed)")
    func firstThreeParts() {
        func reference(_ path: String) -> String? {
            let parts = Array(path.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            guard parts.first.map({ Array($0) == Array("cards".utf8) }) == true else { return nil }
            return String(decoding: Array(parts.prefix(3).joined(separator: [UInt8(ascii: "/")])), as: UTF8.self)
        }
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let parts = ["cards", "card", "3f", "x.json", "", "\u{301}", "é", "cards/", "a"]
        for round in 0..<2_000 {
            let path = (0..<Int.random(in: 1...5, using: &random)).map { _ in
                parts[Int.random(in: 0..<parts.count, using: &random)]
            }.joined(separator: "/")
            let expected = reference(path).map { Set([$0]) } ?? []
            #expect(Deck.judgedEntries([path]) == expected, "seed \(seed), round \(round): \(path.debugDescription)")
        }
        #expect(
            Deck.judgedEntries(["cards", "cards/3f", "cards/3f/a.json", "cards/3f/a/b", "deck.json"])
                == ["cards", "cards/3f", "cards/3f/a.json", "cards/3f/a"])
    }
}
