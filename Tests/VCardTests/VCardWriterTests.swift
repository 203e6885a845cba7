import CardModel
import Testing

@testable import VCard

@Suite struct VCardWriterTests {
    static let card = Card(
        id: "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f", title: "Ada \"the\" first; on GitHub, truly",
        indexURL: "https://github.com/ada?tab=repos,stars", platformName: "GitHub", platformIcon: "github",
        color: "#112233", rank: "a0")

    /// The 4.0 vCard, byte for byte: folded at 75 octets, text escaped, parameters quoted.
    @Test func goldenVCard4() {
        let owner = DeckOwner(fields: [
            "name": .string("Ada, Countess; of Lovelace"), "note": .string("Line\\one\nline two"),
            "pronouns": .string("she/her"), "uid": .string("11111111-2222-4333-8444-555555555555"),
        ])
        let bytes = VCardWriter.vcard(version: .v4, owner: owner, deckName: "d", fallbackUID: "x", cards: [Self.card])
        let expected = """
            BEGIN:VCARD
            VERSION:4.0
            PRODID:-//CardDeck//cards//EN
            UID:urn:uuid:11111111-2222-4333-8444-555555555555
            FN:Ada\\, Countess\\; of Lovelace
            PRONOUNS:she/her
            NOTE:Line\\\\one\\nline two
            SOCIALPROFILE;SERVICE-TYPE=GitHub;PROP-ID=3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5
             e6f;X-CARDS-TITLE="Ada ^'the^' first; on GitHub, truly";X-CARDS-ICON=githu
             b;X-CARDS-COLOR=#112233;X-CARDS-RANK=a0:https://github.com/ada?tab=repos,s
             tars
            END:VCARD

            """.replacingNewlines()
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }

    /// Written and read back, every card field the deck needs comes back, in both versions, for every
    /// kind of card (a platform, none, a plain e-mail, a mailto: with a query).
    @Test(arguments: [VCardVersion.v4, .v3]) func roundTrip(version: VCardVersion) throws {
        let cards = [
            Self.card,
            Card(
                id: "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e60", title: "Site", indexURL: "https://github.com/x", rank: "a1"),
            Card(
                id: "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e61", title: "Mail", indexURL: "mailto:a@b.example",
                platformName: "Email", platformIcon: "envelope", color: "gray", rank: "a2"),
            Card(
                id: "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e62", title: "艾达 ^ caret",
                indexURL: "mailto:a@b.example?subject=hi%20there",
                rank: "a3"),
        ]
        let bytes = VCardWriter.vcard(version: version, owner: nil, deckName: "Deck", fallbackUID: "x", cards: cards)
        let found = try VCardImport(bytes)
        #expect(found.skipped.isEmpty)
        #expect(found.cards.map { Card(fields: $0) } == cards)
    }

    @Test func stableUIDIsAUUID() {
        let uid = VCardWriter.stableUID(for: "Ada's cards")
        #expect(uid == VCardWriter.stableUID(for: "Ada's cards"))
        #expect(uid != VCardWriter.stableUID(for: "Ada's cards!"))
        #expect(CardID.normalize(uid) == uid)
    }
}
