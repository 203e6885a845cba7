import Foundation
import Testing

@testable import CardModel

@Suite struct CardDecodingTests {
    static let id = "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f"

    func decodeError(_ bytes: [UInt8], expectedID: String? = nil) -> CardDecodingError? {
        do {
            _ = try Card.decode(bytes, expectedID: expectedID)
            return nil
        } catch let error as CardDecodingError {
            return error
        } catch {
            Issue.record("unexpected error type \(error)")
            return nil
        }
    }

    @Test func tenMegabytesIsRefusedBySizeBeforeParsing() throws {
        // Not even JSON: if the parser ran, the error would be notJSON.
        let huge = [UInt8](repeating: UInt8(ascii: "["), count: 10 * 1024 * 1024)
        let error = try #require(decodeError(huge))
        #expect(error.kind == .tooLarge(10 * 1024 * 1024))
        #expect(error.description.contains("16384-byte limit"))
    }

    @Test func notJSONNotObjectInvalidAndMismatch() throws {
        #expect(try #require(decodeError(Array("{".utf8))).description.hasPrefix("card file is not valid JSON: line 1"))
        #expect(try #require(decodeError(Array("[]".utf8))).kind == .notAnObject("an array"))
        let invalid = try #require(decodeError(Array(#"{"id": "\#(Self.id)"}"#.utf8)))
        // Every fault named at once, the first one's field to mark.
        var expected = CardValidationError(field: "title", rule: "is missing; every card needs one")
        expected.others = ["indexURL", "color", "rank"].map {
            CardValidationError(field: $0, rule: "is missing; every card needs one")
        }
        #expect(invalid.kind == .invalid(expected))
        #expect(
            invalid.description.contains(
                "title: is missing; every card needs one; indexURL: is missing; every card needs one; color:"))
        let card = CardValidationTests.good
        let other = "00000000-0000-4000-8000-000000000000"
        let mismatch = try #require(decodeError(card.encoded(), expectedID: other))
        #expect(mismatch.kind == .idMismatch(expected: other, found: Self.id))
        #expect(mismatch.description.contains(other) && mismatch.description.contains(Self.id))
        #expect(!mismatch.description.contains("\n"))
        #expect(try Card.decode(card.encoded(), expectedID: Self.id) == card)
    }

    @Test func unknownFieldsSurviveAnEdit() throws {
        let text = """
            {"id": "\(Self.id)", "title": "Old", "indexURL": "https://x.org", "color": "red", "rank": "a0",
             "futureField": {"nested": [1.50, "keep\\u0001me", null]}, "zzz": 12345678901234567890}
            """
        var card = try Card.decode(Array(text.utf8))
        card.title = "New"
        let again = try Card.decode(card.encoded())
        #expect(again.title == "New")
        #expect(
            again.fields["futureField"]
                == .object(["nested": .array([.number("1.50"), .string("keep\u{1}me"), .null])]))
        #expect(again.fields["zzz"] == .number("12345678901234567890"))
        #expect(String(decoding: card.encoded(), as: UTF8.self).contains(#""keep\u0001me""#))
    }

    @Test func exactlyAtTheSizeLimit() throws {
        var card = CardValidationTests.good
        card.fields["pad"] = .string("")
        let padding = Card.maximumFileSize - card.encoded().count
        card.fields["pad"] = .string(String(repeating: "x", count: padding))
        #expect(card.encoded().count == Card.maximumFileSize)
        #expect(try Card.decode(card.encoded()) == card)
        card.fields["pad"] = .string(String(repeating: "x", count: padding + 1))
        #expect(decodeError(card.encoded())?.kind == .tooLarge(Card.maximumFileSize + 1))
    }

    /// Found by the fuzzer: a compact file under the limit whose nested unknown field, once indented,
    /// passes it. Accepting it would let a command write a file that no command can read back.
    @Test("a card that reads writes back within the limit, for fields of escaped control characters")
    func acceptedCardsFitWhenWritten() {
        let start = Array(CardValidationTests.good.encoded().dropLast(2))  // drop "}\n"
        for fields in stride(from: 500, through: 960, by: 2) {
            for characters in 0...2 {
                var compact = start
                let value = String(repeating: "\\u0001", count: characters)
                for index in 0..<fields {
                    // Keys of control characters too (distinct pairs of them): every byte written escaped.
                    let key = [index / 31 + 1, index % 31 + 1].map { String(format: "\\u%04x", $0) }.joined()
                    compact += Array(",\"\(key)\":\"\(value)\"".utf8)
                }
                compact += Array("}".utf8)
                guard compact.count <= Card.maximumFileSize, let card = try? Card.decode(compact) else { continue }
                #expect(
                    card.encoded().count <= Card.maximumFileSize,
                    "\(fields) fields of \(characters) control characters: accepted, \(card.encoded().count) bytes written"
                )
            }
        }
    }

    @Test func aCardMustFitOnceWrittenCanonically() throws {
        var compact = Array(CardValidationTests.good.encoded().dropLast(2))  // drop "}\n"
        compact += Array(",\"x-nested\":[".utf8)
        compact += Array(repeating: Array("[[[[1]]]],".utf8), count: 1_200).flatMap { $0 }
        compact += Array("1]}".utf8)
        #expect(compact.count <= Card.maximumFileSize)
        let failure = decodeError(compact)  // not inside #require, which would print every byte
        let error = try #require(failure, "a card over the limit once indented was accepted")
        guard case .invalid(let rule) = error.kind else {
            Issue.record("expected an invalid card, got \(error)")
            return
        }
        #expect(rule.field == nil)
        #expect(rule.rule.contains("written out canonically"), "\(rule)")
        #expect(rule.rule.contains("16384-byte limit"), "\(rule)")
    }
}
