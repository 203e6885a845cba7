import Testing

@testable import CardModel

@Suite struct JSONParsingTests {
    func parse(_ text: String, maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        try JSONValue.parse(Array(text.utf8), maxDepth: maxDepth)
    }

    func parseError(_ bytes: [UInt8], maxDepth: Int = 64) -> JSONParseError? {
        do {
            _ = try JSONValue.parse(bytes, maxDepth: maxDepth)
            return nil
        } catch {
            return error
        }
    }

    func parseError(_ text: String) -> JSONParseError? {
        parseError(Array(text.utf8))
    }

    @Test func scalarsAndContainers() throws {
        #expect(try parse("null") == .null)
        #expect(try parse(" true ") == .bool(true))
        #expect(try parse("false") == .bool(false))
        #expect(try parse("-12.5e+3") == .number("-12.5e+3"))
        #expect(try parse("0") == .number("0"))
        #expect(try parse(#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\u{E9}\u{1F600}"))
        #expect(try parse("[1, [], {}]") == .array([.number("1"), .array([]), .object([:])]))
        #expect(try parse(#"{"a": {"b": [null]}}"#) == .object(["a": .object(["b": .array([.null])])]))
    }

    @Test(arguments: [
        "", " ", "01", "-", "1.", ".5", "1e", "+1", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{a: 1}",
        "'a'", "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "NaN", "[", "{", "1 2", "\"a\"\"b\"",
        "\"tab\there\"",
    ])
    func rejectsMalformed(_ text: String) {
        #expect(parseError(text) != nil, "accepted \(text.debugDescription)")
    }

    @Test func rejectsDuplicateKeysNamingTheKeyAndPlace() throws {
        let error = try #require(parseError("{\n  \"title\": \"a\",\n  \"title\": \"b\"\n}"))
        #expect(error.message.contains("duplicate key \"title\""))
        #expect(error.message.hasPrefix("line 3, column 3"))
        #expect(error.offset == 20)
        // Nested objects too.
        #expect(parseError(#"{"a": {"x": 1, "x": 1}}"#) != nil)
        // The same key in different objects is fine.
        #expect(throws: Never.self) { try parse(#"[{"x": 1}, {"x": 1}]"#) }
    }

    @Test func deepNestingIsRefusedWithoutRecursing() throws {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 10_000)
        let error = try #require(parseError(deep))
        #expect(error.message.contains("deeper than the limit of 64"))
        let closedDeep = deep + [UInt8](repeating: UInt8(ascii: "]"), count: 10_000)
        #expect(parseError(closedDeep) != nil)
        // Exactly at the limit is fine, one more is not.
        let atLimit = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try parse(atLimit) }
        let overLimit = "[" + atLimit + "]"
        #expect(parseError(overLimit) != nil)
        // The parser itself does not recurse: a huge limit still cannot overflow the stack.
        let objects = String(repeating: "{\"a\":", count: 20_000) + "1" + String(repeating: "}", count: 20_000)
        let value = try parse(objects, maxDepth: 1_000_000)
        #expect(value.objectValue?.count == 1)
    }

    @Test func rejectsInvalidUTF8() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22],  // never valid
            [0x22, 0xC0, 0xAF, 0x22],  // overlong "/"
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-8 encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xC3, 0x22],  // truncated
            [0x22, 0x80, 0x22],  // stray continuation
            [0xC3, 0xA9],  // non-ASCII outside a string
            [0xEF, 0xBB, 0xBF, 0x31],  // BOM
        ]
        for bytes in cases {
            #expect(parseError(bytes) != nil, "accepted \(bytes)")
        }
        #expect(parseError([0x22, 0xFF, 0x22])?.message.contains("UTF-8") == true)
        #expect(throws: Never.self) { try JSONValue.parse([0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22]) }
    }

    @Test(arguments: [#""\ud800""#, #""\udc00""#, #""\ud800x""#, #""\ud800\u0041""#, #""\udfff\ud800""#])
    func rejectsLoneSurrogates(_ text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.message.contains("lone surrogate"))
    }

    @Test func numbersKeepTheirText() throws {
        for text in ["1.0", "1E2", "-0", "123456789012345678901234567890", "1e-7"] {
            #expect(try parse(text) == .number(text))
        }
    }

    @Test func errorNamesLineAndColumn() throws {
        let error = try #require(parseError("{\n  \"a\": tru\n}"))
        #expect(error.message.hasPrefix("line 2, column 8:"), "\(error.message)")
        #expect(error.line == 2 && error.column == 8 && error.message.hasSuffix(": \(error.problem)"))
        #expect(error.description == error.message)
    }

    @Test func equalityIsByBytes() {
        // Precomposed and decomposed é are canonically equivalent for Swift but
        // differ in bytes, so they are different values for the merge.
        #expect(JSONValue.string("\u{E9}") != .string("e\u{301}"))
        #expect(JSONValue.number("1.0") != .number("1"))
        #expect(
            JSONValue.object(["a": .array([.null, .bool(true)])]) == .object(["a": .array([.null, .bool(true)])]))
        #expect(Set<JSONValue>([.string("\u{E9}"), .string("e\u{301}")]).count == 2)
    }
}
