extension Card {
    /// Reads and validates a card file.
    ///
    /// Checks the size before parsing (so a huge file costs nothing), then
    /// strict JSON, then that it is an object, then every card rule, then that
    /// the id is `expectedID` when one is given (the id its path says).
    ///
    /// - Throws: `CardDecodingError`.
    public static func decode(_ bytes: some Collection<UInt8>, expectedID: String? = nil) throws -> Card {
        let size = bytes.count
        guard size <= maximumFileSize else {
            throw CardDecodingError(.tooLarge(size))
        }
        return try decode(Array(bytes), expectedID: expectedID)
    }

    /// Reads and validates a card file held in an array: `decode(_:expectedID:)` without generic
    /// code. Callers in other modules reach a generic function unspecialized, and copying a card's
    /// bytes one element at a time through the protocol showed when reading 100,000 cards.
    ///
    /// - Throws: `CardDecodingError`.
    public static func decode(_ bytes: [UInt8], expectedID: String? = nil) throws -> Card {
        let size = bytes.count
        guard size <= maximumFileSize else {
            throw CardDecodingError(.tooLarge(size))
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw CardDecodingError(.notJSON(error))
        }
        guard case .object(let fields) = value else {
            throw CardDecodingError(.notAnObject(value.kindDescription))
        }
        let card = Card(fields: fields)
        do {
            try card.validate()
        } catch {
            throw CardDecodingError(.invalid(error))
        }
        if let expectedID, card.id != expectedID {
            throw CardDecodingError(.idMismatch(expected: expectedID, found: card.id))
        }
        return card
    }
}
