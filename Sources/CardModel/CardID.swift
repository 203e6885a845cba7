/// Card ids: lowercase canonical UUIDs, and the file paths they map to.
public enum CardID {
    /// Whether `s` is a lowercase canonical UUID (8-4-4-4-12 hex digits).
    public static func isValid(_ s: String) -> Bool {
        // The string's own bytes in place, not an array copy: this runs for every card read.
        guard s.utf8.count == 36 else { return false }
        return s.utf8.withContiguousStorageIfAvailable(isValid) ?? isValid(Array(s.utf8))
    }

    /// Whether 36 bytes spell a lowercase UUID.
    private static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        var index = 0
        for byte in bytes {
            switch index {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            }
            index += 1
        }
        return true
    }

    /// The lowercase form of a UUID written in any case, or `nil` if `s` is not a UUID.
    public static func normalize(_ s: String) -> String? {
        let lowered = String(
            decoding: s.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 },
            as: UTF8.self)
        return isValid(lowered) ? lowered : nil
    }

    /// The card file's path in the deck: `cards/<first two characters>/<id>.json`.
    public static func path(for id: String) -> String {
        "cards/\(id.prefix(2))/\(id).json"
    }

    /// The id of the card stored at `path`, or `nil` if `path` is not a card path
    /// (wrong folder, fan-out, extension or id).
    public static func id(fromPath path: String) -> String? {
        // In place, byte by byte (a merge of 2,000 changed cards asks this of every changed path):
        // `cards/` + two characters + `/` + the file name.
        var path = path
        return path.withUTF8 { bytes -> String? in
            guard bytes.count == 50, bytes[8] == UInt8(ascii: "/"), CardListing.bytes(bytes, at: 0, are: "cards/")
            else {
                return nil
            }
            return id(
                folderBytes: UnsafeBufferPointer(rebasing: bytes[6..<8]),
                nameBytes: UnsafeBufferPointer(rebasing: bytes[9...]))
        }
    }

    /// The id of the card file `fileName` in the folder `folder` of `cards/`, or `nil`: the answer of
    /// `id(fromPath: "cards/<folder>/<fileName>")` without building and splitting the path, for
    /// reading every card of a deck.
    public static func id(folder: String, fileName: String) -> String? {
        var folder = folder
        var fileName = fileName
        return folder.withUTF8 { folderBytes in fileName.withUTF8 { id(folderBytes: folderBytes, nameBytes: $0) } }
    }

    /// The id a card file name (`<id>.json`) holds when it lies in the folder named by the id's first
    /// two characters; `nil` otherwise. Checked by index on the buffers (through generic collections it
    /// cost ~2,000 instructions a path, and a merge asks it of every changed path).
    private static func id(folderBytes: UnsafeBufferPointer<UInt8>, nameBytes: UnsafeBufferPointer<UInt8>)
        -> String?
    {
        guard nameBytes.count == 41, CardListing.bytes(nameBytes, at: 36, are: ".json") else { return nil }
        let name = UnsafeBufferPointer(rebasing: nameBytes[0..<36])
        guard isValid(name), folderBytes.count == 2, folderBytes[0] == name[0], folderBytes[1] == name[1] else {
            return nil
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// A new random (version 4) id.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A new version 4 id drawn from `generator` (seeded generators make tests repeatable).
    public static func random(using generator: inout some RandomNumberGenerator) -> String {
        // Two draws, not sixteen: the system generator makes a getrandom call per draw, which was 8 % of
        // a 100,000-card import.
        let high = generator.next()
        let low = generator.next()
        var bytes = (0..<16).map { UInt8(truncatingIfNeeded: ($0 < 8 ? high : low) >> (8 * UInt64($0 % 8))) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        let hex = Array("0123456789abcdef")
        var text = ""
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append("-") }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return text
    }
}
