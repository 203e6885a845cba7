/// What a listing of the deck shows of one valid card (`cards list`): its id, title, platform name, URL
/// and rank, and whether it holds conflict records.
///
/// Read straight from a card file's bytes when they are in the common form (`init?(canonical:expectedID:)`),
/// without building the card's dictionary of fields; any other file goes through `Card.decode`, and the
/// listing is made from the card (`init(_:)`). Listing 100,000 cards spent most of its time parsing JSON
/// into dictionaries, hashing their keys and counting references to what it then threw away.
public struct CardListing: Sendable, Hashable {
    /// The card's id.
    public var id: String
    /// The card's title.
    public var title: String
    /// The platform's name; `""` when there is none.
    public var platformName: String
    /// The card's URL.
    public var indexURL: String
    /// The card's rank (its place in the deck).
    public var rank: String
    /// Whether the card holds conflict records.
    public var hasConflicts: Bool

    /// The listing of a decoded card.
    public init(_ card: Card) {
        id = card.id
        title = card.title
        platformName = card.platformName
        indexURL = card.indexURL
        rank = card.rank
        hasConflicts = !card.conflicts.isEmpty
    }

    /// The listing of a card file whose bytes are canonical (`JSONValue.canonicalBytes`), every key and
    /// value a string of printable ASCII without `"` or `\`, and that is certainly a valid card with the id
    /// `expectedID` (every rule `Card.validate` checks passes by its byte-level fast path). Nil for
    /// anything else, valid or not: then `Card.decode` decides, and words the refusal. So this can only
    /// accept what `Card.decode` accepts, and gives the same fields (`CardListingTests`).
    public init?(canonical bytes: [UInt8], expectedID: String) {
        guard let fields = bytes.withUnsafeBufferPointer({ CardListing.parse($0, expectedID: expectedID) }) else {
            return nil
        }
        self = fields
    }

    /// What a key is to a listing: a field it reads or checks, `conflicts` (which must be an array, so
    /// a string there is for `Card.decode` to refuse), or any other field (kept unchecked by a card).
    private enum Key {
        case id, title, platformName, platformIcon, indexURL, color, rank, conflicts, other
    }

    private static func key(_ bytes: UnsafeBufferPointer<UInt8>) -> Key {
        func equals(_ name: StaticString) -> Bool {
            bytes.count == name.utf8CodeUnitCount && CardListing.bytes(bytes, at: 0, are: name)
        }
        switch bytes.count {
        case 2: return equals("id") ? .id : .other
        case 4: return equals("rank") ? .rank : .other
        case 5: return equals("title") ? .title : equals("color") ? .color : .other
        case 8: return equals("indexURL") ? .indexURL : .other
        case 9: return equals("conflicts") ? .conflicts : .other
        case 12: return equals("platformName") ? .platformName : equals("platformIcon") ? .platformIcon : .other
        default: return .other
        }
    }

    /// The string at `start` (just past its opening quote) up to its closing quote, when every byte in
    /// between is printable ASCII other than `\` (so it needs no unescaping and holds no control); nil
    /// otherwise.
    private static func plainString(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Range<Int>? {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return start..<index }
            guard byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    /// The title of a card file that `init?(canonical:expectedID:)` reads (the same bytes accepted, the
    /// same title), without the listing's other strings: a merge names each card one side changed by its
    /// title alone, and makes sure each version is a valid card.
    package static func title(canonical bytes: [UInt8], expectedID: String) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            fields(buffer, expectedID: expectedID).map { text(buffer, $0.title) }
        }
    }

    /// Whether two buffers hold the same bytes, compared by index (`elementsEqual`'s iterators cost ~25
    /// instructions a byte).
    static func same(_ one: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard one.count == other.count else { return false }
        for index in 0..<one.count where one[index] != other[index] { return false }
        return true
    }

    /// Whether `buffer` holds the bytes of `literal` at `offset` (false when they would run past its end).
    package static func bytes(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int, are literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard offset >= 0, count <= buffer.count - offset else { return false }
        for index in 0..<count where buffer[offset + index] != literal.utf8Start[index] { return false }
        return true
    }

    /// Where a canonical, certainly valid card file's fields lie.
    private struct Fields {
        var title: Range<Int>
        var platformName: Range<Int>?
        var indexURL: Range<Int>
        var rank: Range<Int>
    }

    private static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>?) -> String {
        range.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) } ?? ""
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, expectedID: String) -> CardListing? {
        guard let fields = fields(bytes, expectedID: expectedID) else { return nil }
        // The id's bytes are `expectedID`'s (checked): the string at hand.
        return CardListing(
            id: expectedID, title: text(bytes, fields.title), platformName: text(bytes, fields.platformName),
            indexURL: text(bytes, fields.indexURL), rank: text(bytes, fields.rank), hasConflicts: false)
    }

    /// The fields of a card file in canonical form whose every rule passes by its byte-level check, each
    /// checked where it lies (no string made to check it); nil for anything else.
    private static func fields(_ bytes: UnsafeBufferPointer<UInt8>, expectedID: String) -> Fields? {
        guard bytes.count <= Card.maximumFileSize, bytes.count >= 4, bytes[0] == UInt8(ascii: "{"),
            bytes[1] == 0x0A
        else { return nil }
        var id: Range<Int>?
        var title: Range<Int>?
        var platformName: Range<Int>?
        var platformIcon: Range<Int>?
        var indexURL: Range<Int>?
        var color: Range<Int>?
        var rank: Range<Int>?
        var previousKey: Range<Int>? = nil
        // `Card.checkEncodedSize`'s bound over string members (the card as written is this file).
        var bound = 4
        var index = 2
        while true {
            // `  "key": "value"`, then `,\n` or `\n}\n` at the very end.
            guard index + 3 <= bytes.count, bytes[index] == 0x20, bytes[index + 1] == 0x20,
                bytes[index + 2] == UInt8(ascii: "\""), let key = plainString(bytes, from: index + 3)
            else { return nil }
            index = key.upperBound + 1
            guard index + 3 <= bytes.count, bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == 0x20,
                bytes[index + 2] == UInt8(ascii: "\""), let value = plainString(bytes, from: index + 3)
            else { return nil }
            index = value.upperBound + 1
            // Keys strictly ascending by their bytes: canonical, and no key twice.
            if let previousKey {
                let previous = UnsafeBufferPointer(rebasing: bytes[previousKey])
                guard previous.lexicographicallyPrecedes(UnsafeBufferPointer(rebasing: bytes[key])) else { return nil }
            }
            previousKey = key
            bound += 6 * (key.count + value.count) + 10
            switch CardListing.key(UnsafeBufferPointer(rebasing: bytes[key])) {
            case .id: id = value
            case .title: title = value
            case .platformName: platformName = value
            case .platformIcon: platformIcon = value
            case .indexURL: indexURL = value
            case .color: color = value
            case .rank: rank = value
            case .conflicts: return nil
            case .other: break
            }
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") {
                guard index + 1 < bytes.count, bytes[index + 1] == 0x0A else { return nil }
                index += 2
                continue
            }
            guard index + 3 == bytes.count, bytes[index] == 0x0A, bytes[index + 1] == UInt8(ascii: "}"),
                bytes[index + 2] == 0x0A
            else { return nil }
            break
        }
        // Within the limit without encoding it again (else `decode` weighs it).
        guard bound <= Card.maximumFileSize else { return nil }
        // The required fields, each passing its rule's byte-level check.
        guard let id, let title, let indexURL, let color, let rank else { return nil }
        func field(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }
        // Compared as two buffers (the generic compare with a string's UTF-8 view took ~45 instructions a byte).
        var expected = expectedID
        guard expected.withUTF8({ same($0, field(id)) }), CardID.isValid(expectedID) else { return nil }
        guard Card.isPlainTitle(field(title)) else { return nil }
        // ASCII: a byte is a character.
        guard (platformName?.count ?? 0) <= 64 else { return nil }
        if let platformIcon, !platformIcon.isEmpty {
            guard Card.isIconName(field(platformIcon)) else { return nil }
        }
        guard Card.isPlainValidURL(field(indexURL)) else { return nil }
        guard Card.isColor(field(color)) else { return nil }
        guard Rank.isValid(field(rank)) else { return nil }
        return Fields(title: title, platformName: platformName, indexURL: indexURL, rank: rank)
    }

    private init(
        id: String, title: String, platformName: String, indexURL: String, rank: String, hasConflicts: Bool
    ) {
        self.id = id
        self.title = title
        self.platformName = platformName
        self.indexURL = indexURL
        self.rank = rank
        self.hasConflicts = hasConflicts
    }
}
