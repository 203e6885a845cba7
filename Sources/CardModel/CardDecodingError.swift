/// Why some bytes are not a valid card file.
public struct CardDecodingError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The reason, with what the caller needs to report it.
    public enum Kind: Equatable, Sendable {
        /// The file is larger than `Card.maximumFileSize`; the size in bytes.
        case tooLarge(Int)
        /// The file is not strict JSON.
        case notJSON(JSONParseError)
        /// The file is JSON but not an object; names what it is ("an array").
        case notAnObject(String)
        /// The object breaks a card rule.
        case invalid(CardValidationError)
        /// The card's id is not the one its file name says.
        case idMismatch(expected: String, found: String)
    }

    /// The reason.
    public var kind: Kind

    /// Creates an error of the given kind.
    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// One line saying what is wrong and what to do.
    public var description: String {
        switch kind {
        case .tooLarge(let size):
            return "card file is \(size) bytes, more than the \(Card.maximumFileSize)-byte limit; shorten its fields"
        case .notJSON(let error):
            return "card file is not valid JSON: \(error.message)"
        case .notAnObject(let found):
            return "card file must hold a JSON object, found \(found)"
        case .invalid(let error):
            return "invalid card: \(error.description)"
        case .idMismatch(let expected, let found):
            return "card id \"\(found)\" does not match its file name, which says \"\(expected)\"; "
                + "move the file to \(CardID.path(for: found)) or fix the id"
        }
    }
}
