import Testing

@testable import GitCore

/// Reflog lines keep the message on its line, whatever line breaks it holds (commit messages:
/// CardStoreTests' `MessageLineTests`).
@Suite("Reflog lines: a message's line breaks never start a new line")
struct ReflogLineTests {
    @Test("a reflog message with CR, LF and CRLF stays one reflog line")
    func reflogOnOneLine() throws {
        let id = ObjectID(bytes: [UInt8](repeating: 7, count: 20))
        let committer = Signature(name: "N", email: "n@example.invalid", time: 0, offsetMinutes: 0)
        let line = try Repository.reflogLine(old: nil, new: id, committer: committer, message: "cards: x\r\ny\rz\nw")
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1 && line.last == UInt8(ascii: "\n"))
        #expect(!line.contains(UInt8(ascii: "\r")))
        #expect(String(decoding: line, as: UTF8.self).hasSuffix("\tcards: x  y z w\n"))
        // Who and when as the commit's committer line has them (libgit2 trims a signature's ends).
        let padded = Signature(name: " Ada. ", email: " ada@example.invalid ", time: 5, offsetMinutes: -90)
        let padLine = try Repository.reflogLine(old: id, new: id, committer: padded, message: "m")
        let text = String(decoding: padLine, as: UTF8.self)
        #expect(text == "\(id.hex) \(id.hex) Ada <ada@example.invalid> 5 -0130\tm\n", "\(text)")
    }
}
