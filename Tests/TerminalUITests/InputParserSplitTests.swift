import Testing

@testable import TerminalUI

/// Found by cards-fuzz: an unterminated CSI longer than the limit used to be dropped whole when it arrived
/// in pieces, but decoded when it arrived at once, so the events depended on how reads split the input.
@Suite("Input parser: over-long sequences, however split")
struct InputParserSplitTests {
    static let inputs: [String] = [
        "\u{1B}[<0;" + String(repeating: "9", count: 80) + ";5M\u{1B}[<32;20;5Mq",
        "\u{1B}[" + String(repeating: "9", count: 90) + "A",
        "\u{1B}[<0;" + String(repeating: "0", count: 200) + "\u{1B}[Ax",
    ]

    @Test("the same events whole, byte by byte, and in chunks of 7", arguments: inputs)
    func sameEventsHoweverSplit(_ text: String) {
        let bytes = Array(text.utf8)
        var whole = InputParser()
        let expected = whole.feed(bytes) + whole.flush()
        for size in [1, 7, 63, 64, 65] {
            var parser = InputParser()
            var events: [InputEvent] = []
            var offset = 0
            while offset < bytes.count {
                events += parser.feed(bytes[offset..<min(bytes.count, offset + size)])
                offset += size
            }
            events += parser.flush()
            #expect(events == expected, "chunks of \(size)")
        }
        #expect(!expected.isEmpty)
    }
}
