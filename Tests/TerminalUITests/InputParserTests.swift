import Testing

@testable import TerminalUI

@Suite("Input parser")
struct InputParserTests {
    static let esc: UInt8 = 0x1B

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let table: [([UInt8], [InputEvent])] = [
        (bytes("q"), [.key(.character("q"))]),
        (bytes("u"), [.key(.character("u"))]),
        ([0x0D], [.key(.enter)]),
        ([0x0A], [.key(.enter)]),
        ([0x20], [.key(.space)]),
        ([0x03], [.key(.ctrlC)]),
        ([0x7F], [.key(.backspace)]),
        ([0x09], [.key(.tab)]),
        (bytes("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D"), [.key(.up), .key(.down), .key(.right), .key(.left)]),
        (bytes("\u{1B}OD\u{1B}OC"), [.key(.left), .key(.right)]),
        (bytes("\u{1B}[1;5D"), [.key(.left)]),
        (bytes("\u{1B}[3~\u{1B}[5~\u{1B}[6~"), [.key(.delete), .key(.pageUp), .key(.pageDown)]),
        (bytes("é中🙂"), [.key(.character("é")), .key(.character("中")), .key(.character("🙂"))]),
        (
            bytes("\u{1B}[<0;10;5M"),
            [.mouse(MouseEvent(kind: .press, button: .left, column: 9, row: 4))]
        ),
        (
            bytes("\u{1B}[<32;7;5M"),
            [.mouse(MouseEvent(kind: .drag, button: .left, column: 6, row: 4))]
        ),
        (
            bytes("\u{1B}[<0;3;5m"),
            [.mouse(MouseEvent(kind: .release, button: .left, column: 2, row: 4))]
        ),
        (
            bytes("\u{1B}[<64;1;1M\u{1B}[<65;1;1M"),
            [
                .mouse(MouseEvent(kind: .scrollUp, button: .none, column: 0, row: 0)),
                .mouse(MouseEvent(kind: .scrollDown, button: .none, column: 0, row: 0)),
            ]
        ),
        (
            bytes("\u{1B}[<18;2;3M"),
            [.mouse(MouseEvent(kind: .press, button: .right, column: 1, row: 2, modifiers: 16))]
        ),
        // Unknown sequences are skipped, and what follows still parses.
        (
            bytes("\u{1B}[99zq\u{1B}[?1;2cu\u{1B}OZ\u{1B}[15~x"),
            [
                .key(.character("q")), .key(.character("u")), .key(.character("x")),
            ]
        ),
        (bytes("\u{1B}[M !!q"), [.key(.character("q"))]),
        // Invalid UTF-8 is dropped byte by byte.
        ([0xFF, 0x80, 0x71], [.key(.character("q"))]),
        ([0xE4, 0x41], [.key(.character("A"))]),
        // Esc then another Esc sequence: the first Esc stands alone.
        (bytes("\u{1B}\u{1B}[A"), [.key(.escape), .key(.up)]),
    ]

    @Test(arguments: 0..<table.count)
    func wholeInput(_ index: Int) {
        var parser = InputParser()
        let (input, expected) = Self.table[index]
        #expect(parser.feed(input) == expected)
        #expect(!parser.hasPendingInput)
    }

    @Test(arguments: 0..<table.count)
    func byteByByteGivesTheSameEvents(_ index: Int) {
        var parser = InputParser()
        let (input, expected) = Self.table[index]
        var events: [InputEvent] = []
        for byte in input { events += parser.feed([byte]) }
        #expect(events == expected)
        #expect(!parser.hasPendingInput)
    }

    @Test func aPartialSequenceWaitsForMoreBytes() {
        var parser = InputParser()
        #expect(parser.feed(Self.bytes("\u{1B}[<0;10")).isEmpty)
        #expect(parser.hasPendingInput)
        #expect(parser.feed(Self.bytes(";5M")) == [.mouse(MouseEvent(kind: .press, button: .left, column: 9, row: 4))])
    }

    @Test func aLoneEscapeWaitsUntilFlushed() {
        var parser = InputParser()
        #expect(parser.feed([Self.esc]).isEmpty)
        #expect(parser.hasPendingInput)
        #expect(parser.flush() == [.key(.escape)])
        #expect(!parser.hasPendingInput)
        #expect(parser.flush().isEmpty)
    }

    @Test("a sequence cut off (its rest late or lost) is dropped when flushed: no Esc, so no quit")
    func flushingACutOffSequenceDropsIt() {
        var parser = InputParser()
        #expect(parser.feed(Self.bytes("\u{1B}[")).isEmpty)
        #expect(parser.flush().isEmpty)
        #expect(parser.feed(Self.bytes("\u{1B}[<0;10;5")).isEmpty)
        #expect(parser.flush().isEmpty)
        #expect(!parser.hasPendingInput)
        #expect(parser.feed(Self.bytes("D")) == [.key(.character("D"))])
    }

    @Test("Alt+key and string sequences (OSC, DCS) are skipped, never read as Esc")
    func altKeysAndStringSequencesAreSkipped() {
        var parser = InputParser()
        #expect(parser.feed(Self.bytes("\u{1B}q\u{1B}x")).isEmpty)
        #expect(parser.feed(Self.bytes("\u{1B}]52;c;aGVsbG8=\u{07}a")) == [.key(.character("a"))])
        #expect(parser.feed(Self.bytes("\u{1B}P1$r0m\u{1B}\\b")) == [.key(.character("b"))])
        // Split anywhere, the same.
        for byte in Self.bytes("\u{1B}]0;title\u{1B}\\c") { _ = parser.feed([byte]) }
        #expect(parser.feed(Self.bytes("d")) == [.key(.character("d"))])
        // One never ended (cut off) waits, then goes whole on the timeout: none of it is a key.
        #expect(parser.feed(Self.bytes("\u{1B}]52;c;" + String(repeating: "q", count: 5000))).count == 0)
        #expect(parser.flush().count == 0)
        #expect(parser.feed(Self.bytes("\u{1B}\u{1B}[A")) == [.key(.escape), .key(.up)])
        // Alt+] or Alt+P, then keys: no answer starts so, nothing is held.
        #expect(parser.feed(Self.bytes("\u{1B}]q")) == [.key(.character("q"))])
        #expect(parser.feed(Self.bytes("\u{1B}Pu")) == [.key(.character("u"))])
        #expect(parser.feed(Self.bytes("\u{1B}P!|00000000\u{1B}\\e")) == [.key(.character("e"))])
    }

    @Test func endlessGarbageIsDropped() {
        var parser = InputParser()
        let garbage = Self.bytes("\u{1B}[" + String(repeating: "1;", count: 100))
        _ = parser.feed(garbage)
        #expect(!parser.hasPendingInput)
        #expect(parser.feed(Self.bytes("q")) == [.key(.character("q"))])
    }
}
