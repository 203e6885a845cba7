import Testing

@testable import CardModel

@Suite struct CardIDTests {
    @Test func validAndNormalize() {
        #expect(CardID.isValid("3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f"))
        #expect(!CardID.isValid("3F2A9C1E-7B1D-4C55-9A0E-1D2B3C4D5E6F"))
        #expect(!CardID.isValid("3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6"))
        #expect(!CardID.isValid("3f2a9c1e-7b1d-4c55-9a0e_1d2b3c4d5e6f"))
        #expect(!CardID.isValid("3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6g"))
        #expect(!CardID.isValid(""))
        #expect(CardID.normalize("3F2A9C1E-7B1D-4C55-9A0E-1D2B3C4D5E6F") == "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f")
        #expect(CardID.normalize("not a uuid") == nil)
        #expect(CardID.normalize("3F2A9C1E-7B1D-4C55-9A0E-1D2B3C4D5E6É") == nil)
    }

    @Test func pathsRoundTrip() {
        let id = "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f"
        #expect(CardID.path(for: id) == "cards/3f/3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f.json")
        #expect(CardID.id(fromPath: CardID.path(for: id)) == id)
        for bad in [
            "cards/3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f.json", "cards/aa/3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f.json",
            "cards/3f/3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f.txt", "x/3f/3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f.json",
            "cards/3F/3F2A9C1E-7B1D-4C55-9A0E-1D2B3C4D5E6F.json", "cards/3f/", "", "deck.json",
        ] {
            #expect(CardID.id(fromPath: bad) == nil, "\(bad)")
        }
    }

    @Test func randomIDsAreValidVersion4() {
        var seen = Set<String>()
        for _ in 0..<200 {
            let id = CardID.random()
            #expect(CardID.isValid(id))
            #expect(Array(id)[14] == "4")
            seen.insert(id)
        }
        #expect(seen.count == 200)
    }
}
