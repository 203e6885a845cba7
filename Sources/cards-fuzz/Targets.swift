import SeededRandom
import CardModel
import CardsCLI
import DeckMerge
import Glibc
import SwipeEngine
import TerminalUI

/// One fuzz target: feeds `count` generated inputs to a parser and checks what must hold for each.
struct Target: Sendable {
    var name: String
    var summary: String
    var run: @Sendable (_ count: Int, _ seed: UInt64, _ report: inout Report) -> Void
}

/// What a target's run found.
struct Report {
    var inputs = 0
    var accepted = 0
    var failures: [String] = []

    mutating func fail(_ what: String, _ input: [UInt8], seed: UInt64, index: Int) {
        if failures.count < 5 { failures.append("\(what) (seed \(seed), input \(index)): \"\(input.escaped)\"") }
    }
}

enum Corpus {
    static let card = Array(
        """
        {
          "color": "blue",
          "id": "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f",
          "indexURL": "https://github.com/octocat",
          "platformIcon": "github",
          "platformName": "GitHub",
          "rank": "a0",
          "title": "Octocat on GitHub",
          "x-future": {"list": [1, 2.5e3, -0, true, null, "é\\u00e9\\ud83d\\ude00"]}
        }

        """.utf8)
    static let json: [[UInt8]] = [
        card, Array("[]".utf8), Array("{}".utf8), Array("[1, -2.5e-3, 1E400, \"\\u0000\", null, true]".utf8),
        Array("{\"a\": {\"b\": [{\"c\": \"\\ud800\"}]}}".utf8), Array("\"\\uD834\\uDD1E\"".utf8),
        Array("{\"conflicts\": [{\"field\": \"title\", \"values\": [\"a\", \"b\"]}]}".utf8),
        Array("{\"title\": \"a\", \"title\": \"b\"}".utf8), Array("  \n\t 0.0000001e-999 ".utf8),
    ]
    static let jsonDictionary: [[UInt8]] = [
        "{", "}", "[", "]", "\"", ":", ",", "\\", "\\u", "\\ud800", "\\udc00", "\\u0000", "null", "true", "false",
        "-", "0", "1e999", ".5", "\"id\"", "\"title\"", "\"rank\"", "\"color\"", "\"indexURL\"", "\"conflicts\"",
        "https://", "mailto:", "javascript:", "#12345g", "\u{FEFF}", "\u{202E}", "é", "😀", "\u{0301}",
    ].map { Array($0.utf8) }

    static let drag: [[UInt8]] = [
        "0:0,0 0.1:-60,2 0.2:-130,4", "0:0,0 0.05:200,0 0.1:400,10", "0:0,0 0.1:-10,0 cancel",
        "0:0,0 0.1:-30,300 0.2:-60,600 0.3:cancel", "0:0,0", "0:nan,inf 1:-inf,0", "0:1e308,1e308 0.1:-1e308,0",
        "0:0,0 -1:5,5 0:5,5",
    ].map { Array($0.utf8) }
    static let dragDictionary: [[UInt8]] = [
        ":", ",", " ", "cancel", "nan", "inf", "-inf", "1e308", "-0", "0x1p3", ".", "e", "+", "\t", "\n", "0:0,0",
    ].map { Array($0.utf8) }

    static let terminal: [[UInt8]] = [
        "\u{1b}[<0;10;5M\u{1b}[<32;20;5M\u{1b}[<0;40;6m", "\u{1b}[A\u{1b}[B\u{1b}[C\u{1b}[D", "\u{1b}OP\u{1b}[15~",
        "q", "u\r", "\u{1b}[M !!\u{1b}[M#!!", "é😀\u{7f}", "\u{1b}[200~pasted\u{1b}[201~", "\u{1b}", "\u{1b}[1;5C",
        "\u{1b}[<64;1;1M\u{1b}[<65;1;1M",
    ].map { Array($0.utf8) }
    static let terminalDictionary: [[UInt8]] = [
        "\u{1b}", "[", "<", ";", "M", "m", "~", "O", "\u{1b}[", "\u{1b}[<", "999999999999", "0", "\u{9b}", "\u{7f}",
        "\r", "\n", "\u{3}", "\u{4}",
    ].map { Array($0.utf8) }
}

enum Targets {
    static let all: [Target] = [json, card, arguments, drag, terminalInput, merge, mergeDriver]

    /// `JSONValue.parse`: never crashes; what parses re-encodes canonically and reads back the same.
    static let json = Target(name: "json", summary: "JSONValue.parse + canonical round trip") { count, seed, report in
        var mutator = Mutator(random: SplitMix64(seed: seed), corpus: Corpus.json, dictionary: Corpus.jsonDictionary)
        for index in 0..<count {
            let input = mutator.next()
            report.inputs += 1
            guard let value = try? JSONValue.parse(input) else { continue }
            report.accepted += 1
            let canonical = value.canonicalBytes()
            guard let again = try? JSONValue.parse(canonical, maxDepth: 1_000) else {
                report.fail("canonical form does not parse", input, seed: seed, index: index)
                continue
            }
            if again != value { report.fail("canonical form reads back different", input, seed: seed, index: index) }
            if again.canonicalBytes() != canonical {
                report.fail("canonical form is not stable", input, seed: seed, index: index)
            }
        }
    }

    /// `Card.decode`: never crashes; a decoded card is valid, and its encoding decodes to the same card.
    static let card = Target(name: "card", summary: "Card.decode + validate + encode round trip") {
        count, seed, report in
        var mutator = Mutator(random: SplitMix64(seed: seed), corpus: [Corpus.card], dictionary: Corpus.jsonDictionary)
        for index in 0..<count {
            let input = mutator.next()
            report.inputs += 1
            let expected = index % 2 == 0 ? "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f" : nil
            guard let card = try? Card.decode(input, expectedID: expected) else { continue }
            report.accepted += 1
            if (try? card.validate()) == nil { report.fail("decoded card is invalid", input, seed: seed, index: index) }
            let bytes = card.encoded()
            guard let again = try? Card.decode(bytes, expectedID: card.id), again == card else {
                report.fail("encoded card does not decode to itself", input, seed: seed, index: index)
                continue
            }
            if again.encoded() != bytes { report.fail("encoding is not stable", input, seed: seed, index: index) }
        }
    }

    /// `swipe --drag` samples: `DragScript.parse`, then the gesture engine on every preset and odd card
    /// sizes; never crashes, and the same script decides the same way twice.
    static let drag = Target(name: "drag", summary: "DragScript.parse + gesture engine on every preset") {
        count, seed, report in
        var mutator = Mutator(random: SplitMix64(seed: seed), corpus: Corpus.drag, dictionary: Corpus.dragDictionary)
        let sizes: [SwipeSize?] = [
            nil, SwipeSize(width: 300, height: 400), SwipeSize(width: 0, height: 0),
            SwipeSize(width: .nan, height: .infinity), SwipeSize(width: -5, height: 1e308),
        ]
        for index in 0..<count {
            let input = mutator.next()
            report.inputs += 1
            let text = String(decoding: input, as: UTF8.self)
            guard let script = try? DragScript.parse(text) else { continue }
            report.accepted += 1
            let configuration = SwipeConfiguration.presets[index % SwipeConfiguration.presets.count]
            let size = sizes[index % sizes.count]
            let first = SwipeOutcome.run(script, configuration: configuration, cardSize: size, cardID: "card")
            let second = SwipeOutcome.run(script, configuration: configuration, cardSize: size, cardID: "card")
            if first != second { report.fail("the same drag decided differently", input, seed: seed, index: index) }
        }
    }

    /// The terminal input parser: never crashes; the events do not depend on how the bytes were split
    /// into reads.
    static let terminalInput = Target(name: "input", summary: "InputParser: bytes in any chunking, same events") {
        count, seed, report in
        var mutator = Mutator(
            random: SplitMix64(seed: seed), corpus: Corpus.terminal, dictionary: Corpus.terminalDictionary)
        var random = SplitMix64(seed: seed ^ 0x5555)
        for index in 0..<count {
            let input = mutator.next()
            report.inputs += 1
            var whole = InputParser()
            let expected = whole.feed(input) + whole.flush()
            var pieces = InputParser()
            var events: [InputEvent] = []
            var offset = 0
            while offset < input.count {
                let length = 1 + random.below(8)
                events += pieces.feed(input[offset..<min(input.count, offset + length)])
                offset += length
            }
            events += pieces.flush()
            if !expected.isEmpty { report.accepted += 1 }
            if events != expected {
                report.fail("events depend on how the input was split", input, seed: seed, index: index)
            }
        }
    }

    /// The three-way card merge on random cards: total, symmetric (swapping the sides gives the same
    /// bytes), and a card merged with itself is itself.
    static let merge = Target(name: "merge", summary: "DeckMerger.mergeCard: total, symmetric, idempotent") {
        count, seed, report in
        var random = SplitMix64(seed: seed)
        var mutator = Mutator(
            random: SplitMix64(seed: seed ^ 0xAAAA), corpus: Corpus.json, dictionary: Corpus.jsonDictionary)
        let id = "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f"
        let base = (try? Card.decode(Corpus.card)) ?? Card(fields: [:])
        func variant() -> Card? {
            if random.oneIn(6) { return nil }
            var fields = base.fields
            for _ in 0..<random.below(4) {
                let key = random.pick([
                    "title", "color", "rank", "indexURL", "platformName", "conflicts", "x-new", "id",
                ])
                if random.oneIn(5) {
                    fields[key] = nil
                } else if let value = try? JSONValue.parse(mutator.next()) {
                    fields[key] = value
                } else {
                    fields[key] = .string(
                        random.pick(["A", "B", "red", "#00ff00", "a1", "zz", "", "https://x.example"]))
                }
            }
            return Card(fields: fields)
        }
        let ours = MergeSide(commit: "1111111111111111111111111111111111111111", time: 100)
        let theirs = MergeSide(commit: "2222222222222222222222222222222222222222", time: 200)
        for index in 0..<count {
            let versions = CardVersions(base: variant(), ours: variant(), theirs: variant())
            report.inputs += 1
            let forward = DeckMerger.mergeCard(id: id, versions, ours: ours, theirs: theirs)
            let backward = DeckMerger.mergeCard(id: id, versions.swapped, ours: theirs, theirs: ours)
            let input = (versions.ours?.encoded() ?? []) + [0x0a] + (versions.theirs?.encoded() ?? [])
            if forward.card?.encoded() != backward.card?.encoded() {
                report.fail("merge is not symmetric", input, seed: seed, index: index)
            }
            if let card = versions.ours {
                let same = DeckMerger.mergeCard(
                    id: id, CardVersions(base: card, ours: card, theirs: card), ours: ours, theirs: theirs)
                if same.card != card {
                    report.fail("a card merged with itself changed", input, seed: seed, index: index)
                }
            }
            if forward.card != nil { report.accepted += 1 }
        }
    }

    /// `cards merge-driver BASE OURS THEIRS PATH` in-process on files of mutated bytes: exit 0 with a
    /// valid canonical card in OURS, or exit 1 with OURS untouched.
    static let mergeDriver = Target(name: "driver", summary: "cards merge-driver on mutated files") {
        count, seed, report in
        var mutator = Mutator(random: SplitMix64(seed: seed), corpus: [Corpus.card], dictionary: Corpus.jsonDictionary)
        var random = SplitMix64(seed: seed ^ 0x7777)
        guard let folder = Workspace.make() else {
            report.failures.append("cannot create a temporary folder")
            return
        }
        defer { Workspace.remove(folder) }
        let paths = ["base", "ours", "theirs"].map { "\(folder)/\($0).json" }
        for index in 0..<count {
            var files: [[UInt8]] = []
            for _ in 0..<3 { files.append(random.oneIn(3) ? Corpus.card : mutator.next()) }
            if random.oneIn(8) { files[0] = [] }
            for (path, bytes) in zip(paths, files) { Workspace.write(bytes, to: path) }
            report.inputs += 1
            let result = CardsCLI.runCapturing(
                ["merge-driver"] + paths + ["cards/3f/3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f.json"])
            let after = Workspace.read(paths[1])
            let input = files[1]
            switch result.status {
            case 0:
                report.accepted += 1
                guard let card = try? Card.decode(after), card.encoded() == after else {
                    report.fail("driver exited 0 but OURS is not a canonical card", input, seed: seed, index: index)
                    continue
                }
            case 1:
                if after != files[1] { report.fail("driver failed and changed OURS", input, seed: seed, index: index) }
                if !result.stderr.hasPrefix("Error: ") {
                    report.fail("driver failed without an error line", input, seed: seed, index: index)
                }
            default:
                report.fail("driver exited \(result.status)", input, seed: seed, index: index)
            }
        }
    }
}
