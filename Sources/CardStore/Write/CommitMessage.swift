/// A commit message a person reads in `git log`, with trailers that tools read.
package struct CommitMessage: Sendable, Hashable {
    /// The first line.
    package var subject: String
    /// Optional paragraphs between subject and trailers.
    package var body: String?
    /// `Key: value` lines at the end, in order.
    package var trailers: [(String, String)]

    /// Creates a message.
    package init(subject: String, body: String? = nil, trailers: [(String, String)] = []) {
        self.subject = subject
        self.body = body
        self.trailers = trailers
    }

    /// The full text. The subject is kept to its line (a field name given with `--set` may hold a line
    /// break, which would start the body, or fake trailers, with the rest of it).
    package var text: String {
        // Laid out as bytes: a merge of 2,000 cards has 2,000 trailers, and a string interpolated and
        // joined for each was most of writing its commit.
        var bytes: [UInt8] = []
        var count = subject.utf8.count + (body?.utf8.count ?? 0) + 4
        for (key, value) in trailers { count += key.utf8.count + value.utf8.count + 3 }
        bytes.reserveCapacity(count)
        func add(_ text: String, oneLine: Bool = false) {
            let start = bytes.count
            bytes.append(contentsOf: text.utf8)
            guard oneLine else { return }
            for index in start..<bytes.count where bytes[index] == 0x0A || bytes[index] == 0x0D { bytes[index] = 0x20 }
        }
        add(subject, oneLine: true)
        bytes.append(0x0A)
        if let body, !body.isEmpty {
            bytes.append(0x0A)
            add(body)
            bytes.append(0x0A)
        }
        if !trailers.isEmpty {
            bytes.append(0x0A)
            for (key, value) in trailers {
                add(key)
                add(": ")
                add(value, oneLine: true)
                bytes.append(0x0A)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A card's title shown in a subject: quoted, on one line, shortened when long.
    static func quoted(_ title: String) -> String {
        let line = oneLine(title)
        let short = line.count > 60 ? String(line.prefix(57)) + "..." : line
        return "\"\(short)\""
    }

    /// A user-given value as an error message shows it: on one line, without control characters,
    /// and cut to 60 characters so a hostile 5,000-character argument does not flood the terminal.
    package static func shown(_ text: String) -> String {
        let clean = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
        return clean.count > 60 ? String(clean.prefix(57)) + "..." : clean
    }

    /// `text` with each line feed and carriage return turned into a space (a "\r\n" pair into two:
    /// as one Character it escaped a per-Character test). A text without either is returned as it is
    /// (a merge's message has thousands of trailers).
    static func oneLine(_ text: String) -> String {
        let newline = UInt8(ascii: "\n")
        let carriageReturn = UInt8(ascii: "\r")
        guard text.utf8.contains(where: { $0 == newline || $0 == carriageReturn }) else { return text }
        return String(
            decoding: text.utf8.map { $0 == newline || $0 == carriageReturn ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    /// Equal when their texts are.
    package static func == (lhs: CommitMessage, rhs: CommitMessage) -> Bool { lhs.text == rhs.text }

    /// Hashes the text.
    package func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
