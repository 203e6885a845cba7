import Testing

@testable import CardModel

@Suite struct CardValidationTests {
    static let good = Card(
        id: "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f", title: "Octocat on GitHub",
        indexURL: "https://github.com/octocat", platformName: "GitHub", platformIcon: "github",
        color: "blue", rank: "a0")

    func error(setting field: String, to value: JSONValue?) -> CardValidationError? {
        var card = Self.good
        card.fields[field] = value
        do {
            try card.validate()
            return nil
        } catch {
            return error
        }
    }

    /// One accepted and one refused value per rule, with the text the error must contain.
    struct Case: CustomTestStringConvertible, Sendable {
        var field: String
        var good: JSONValue?
        var bad: JSONValue?
        var message: String
        var testDescription: String { "\(field): \(message)" }
    }

    static let cases: [Case] = [
        Case(
            field: "id", good: .string("00000000-0000-4000-8000-00000000abcd"),
            bad: .string("3F2A9C1E-7B1D-4C55-9A0E-1D2B3C4D5E6F"), message: "is not a lowercase UUID"),
        Case(
            field: "id", good: nil, bad: .string("3f2a9c1e7b1d4c559a0e1d2b3c4d5e6f"), message: "is not a lowercase UUID"
        ),
        Case(field: "id", good: nil, bad: nil, message: "is missing"),
        Case(
            field: "title", good: .string("  x  "), bad: .string(" \t "),
            message: "contains the control character U+0009"),
        Case(
            field: "title", good: .string(" x "), bad: .string("   "),
            message: "must not be empty (after trimming spaces)"),
        Case(
            field: "title", good: .string(String(repeating: "é", count: 200)),
            bad: .string(String(repeating: "é", count: 201)), message: "is 201 characters long, at most 200 allowed"),
        Case(field: "title", good: nil, bad: .string("a\u{7F}b"), message: "control character U+007F"),
        Case(field: "title", good: nil, bad: .number("1"), message: "must be a string, found a number"),
        Case(field: "title", good: nil, bad: nil, message: "is missing"),
        Case(
            field: "platformName", good: .string(String(repeating: "x", count: 64)),
            bad: .string(String(repeating: "x", count: 65)), message: "at most 64 allowed"),
        Case(field: "platformName", good: nil, bad: .string("a\nb"), message: "control character U+000A"),
        Case(field: "platformName", good: .string(""), bad: .bool(true), message: "must be a string"),
        Case(field: "platformIcon", good: .string("x.y_z-9"), bad: .string("GitHub"), message: "is not an icon name"),
        Case(field: "platformIcon", good: .string(""), bad: .string("-x"), message: "is not an icon name"),
        Case(
            field: "platformIcon", good: .string("a" + String(repeating: "b", count: 63)),
            bad: .string("a" + String(repeating: "b", count: 64)), message: "is not an icon name"),
        Case(
            field: "indexURL", good: .string("mailto:me@example.com"), bad: .string("ftp://x"),
            message: #""ftp://x" is not an absolute http, https or mailto URL"#),
        Case(
            field: "indexURL", good: .string("HTTP://example.com:8080/a?b#c"), bad: .string("/relative/path"),
            message: "is not an absolute http, https or mailto URL"),
        Case(
            field: "indexURL", good: .string("https://[::1]/x"), bad: .string("https:///path"), message: "has no host"),
        Case(
            field: "indexURL", good: .string("https://u@h"), bad: .string("https://a b.com"),
            message: "contains a space"),
        // Not a URL at all: said so, not told to write its spaces as %20 (which would not make it one).
        Case(
            field: "indexURL", good: .string("https://e.com/a%20b"), bad: .string("not a url"),
            message: #""not a url" is not an absolute http, https or mailto URL"#),
        Case(
            field: "indexURL", good: .string("https://e.com/" + String(repeating: "a", count: 2034)),
            bad: .string("https://e.com/" + String(repeating: "a", count: 2035)), message: "at most 2048 allowed"),
        Case(field: "indexURL", good: nil, bad: .string("mailto:"), message: "no address"),
        Case(field: "indexURL", good: nil, bad: .string("https:x.com"), message: "not an absolute"),
        Case(field: "color", good: .string("#A0b1C2"), bad: .string("#12345"), message: "is not a colour name"),
        Case(field: "color", good: .string("teal"), bad: .string("Teal"), message: "is not a colour name"),
        Case(field: "color", good: .string("#ffffff"), bad: .string("#gggggg"), message: "or #rrggbb"),
        Case(field: "color", good: nil, bad: nil, message: "is missing"),
        Case(field: "rank", good: .string("zZ09"), bad: .string("a-1"), message: "is not a rank"),
        Case(field: "rank", good: .string("0"), bad: .string(""), message: "is not a rank"),
        Case(
            field: "conflicts", good: .array([.object(["field": .string("title")])]), bad: .object([:]),
            message: "must be an array of conflict records"),
        Case(field: "conflicts", good: .array([]), bad: .array([.string("x")]), message: "record 1 must be an object"),
    ]

    @Test(arguments: cases)
    func rule(_ c: Case) throws {
        if let good = c.good {
            #expect(error(setting: c.field, to: good) == nil, "good value refused")
        }
        let failure = try #require(error(setting: c.field, to: c.bad))
        #expect(failure.field == c.field)
        #expect(failure.description.hasPrefix("\(c.field): "))
        #expect(failure.description.contains(c.message), "\(failure.description)")
    }

    @Test func goodCardAndOptionalFields() throws {
        try Self.good.validate()
        var card = Self.good
        card.platformName = ""
        card.platformIcon = ""
        #expect(card.fields["platformName"] == nil && card.fields["platformIcon"] == nil)
        try card.validate()
        // Unknown fields of any type are kept and not checked.
        card.fields["future"] = .array([.string("\u{1}"), .object(["n": .number("1e400")])])
        try card.validate()
    }

    @Test func exactMessages() {
        #expect(
            error(setting: "title", to: .string(""))?.description == "title: must not be empty (after trimming spaces)")
        #expect(
            error(setting: "indexURL", to: .string("ftp://x"))?.description
                == #"indexURL: "ftp://x" is not an absolute http, https or mailto URL"#)
    }

    @Test func everyNamedColour() throws {
        for name in Card.colorNames {
            #expect(error(setting: "color", to: .string(name)) == nil)
        }
    }
}
