import CardModel
import VCard

/// What a QR code shares: a card's link, or the deck's contact as a vCard small enough for one code.
public enum CardQR {
    /// The text of a card's code: its URL.
    public static func text(for card: Card) -> String { card.indexURL }

    /// The deck's contact for a QR code: vCard 3.0 (what phone cameras read), the name and each card's
    /// link only (no parameters), so that a deck of a few dozen links fits in one code.
    public static func contact(owner: DeckOwner?, deckName: String, cards: [Card]) -> String {
        var bytes: [UInt8] = []
        let name = owner?.name ?? deckName
        VCardText.appendFolded("BEGIN:VCARD", to: &bytes)
        VCardText.appendFolded("VERSION:3.0", to: &bytes)
        VCardText.appendFolded("N:;\(VCardText.escaped(name));;;", to: &bytes)
        VCardText.appendFolded("FN:\(VCardText.escaped(name))", to: &bytes)
        for card in cards {
            // A plain address as EMAIL, by the export's own rule; any other link (a mailto: with a query or
            // an escape) as URL.
            if let address = VCardWriter.plainAddress(card.indexURL) {
                VCardText.appendFolded("EMAIL;TYPE=INTERNET:\(VCardText.escaped(address))", to: &bytes)
            } else {
                VCardText.appendFolded("URL:\(card.indexURL)", to: &bytes)
            }
        }
        VCardText.appendFolded("END:VCARD", to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
