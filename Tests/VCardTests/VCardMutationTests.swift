import CardModel
import TestSupport
import Testing

@testable import VCard

/// Seeded mutations of a valid vCard (bytes flipped, cut, repeated, folds and quotes inserted): each is
/// either read or refused with a line inside the file, never a trap. `VCARD_SEEDS=N` runs N seeds from 1.
@Suite struct VCardMutationTests {
    static let sample: [UInt8] = {
        let card = Card(
            id: "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f", title: "Ada \"the\" first; 艾达, on GitHub",
            indexURL: "https://github.com/ada", platformName: "GitHub", platformIcon: "github", rank: "a0")
        let mail = Card(
            id: "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e60", title: "Mail", indexURL: "mailto:a@b.example", rank: "a1")
        let owner = DeckOwner(name: "Ada, Countess", note: "line\nline", pronouns: "she/her")
        return VCardWriter.vcard(
            version: .v4, owner: owner, deckName: "d", fallbackUID: "x", cards: [card, mail, card, mail])
    }()

    @Test(arguments: TestSeeds.list("VCARD_SEEDS", count: 400, from: 1))
    func mutatedFilesAreReadOrRefused(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var bytes = Self.sample
        let pieces: [[UInt8]] = [[13, 10, 32], [34], [59], [58], [0xC3], [0xFF], [92], [94], [10], [0], [44], [61]]
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            let at = Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: bytes.insert(contentsOf: pieces.randomElement(using: &random) ?? [], at: at)
            case 1: if at < bytes.count { bytes.remove(at: at) }
            case 2: bytes = Array(bytes[..<at])
            default:
                let end = min(bytes.count, at + Int.random(in: 1...40, using: &random))
                bytes.insert(contentsOf: bytes[at..<end], at: at)
            }
        }
        let lines = bytes.filter { $0 == 10 }.count + 1
        do {
            let found = try VCardImport(bytes)
            for fields in found.cards {
                var check = fields
                check["rank"] = check["rank"] ?? .string("a0")
                check["id"] = check["id"] ?? .string("3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f")
                check["color"] = check["color"] ?? .string("blue")
                #expect((try? Card(fields: check).validate()) != nil, "seed \(seed): an invalid card came through")
            }
        } catch {
            #expect(error.line >= 1 && error.line <= lines, "seed \(seed): \(error) names no line of the file")
        }
    }
}
