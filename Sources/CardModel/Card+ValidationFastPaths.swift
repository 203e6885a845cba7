// Byte-level checks that accept the common case (printable ASCII) without the Unicode machinery.
//
// Each one only ever says "certainly valid"; anything else — non-ASCII text, or a broken rule — goes
// to the character-level check in Card+Validation.swift, which decides and words the error. So the
// fast paths cannot change what is accepted or what a refusal says, only how long acceptance takes:
// listing 100,000 cards spent a third of its time in grapheme and scalar-property lookups here.
extension Card {
    /// Whether `text` may hold a control character: a byte below 0x20, DEL, or 0xC2, the lead byte
    /// of U+0080–U+00BF (which holds the C1 controls). `false` proves there is none.
    static func mayHoldControl(_ text: String) -> Bool {
        // Over the string's own bytes when they lie in one piece (a native string's do): the UTF-8 view's
        // iterator cost ~10 instructions a byte, and every text field of every card read passes here.
        let inPlace = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }
        }
        return inPlace ?? text.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }
    }

    /// Whether `title` is printable ASCII and passes the title rules. In printable ASCII every byte
    /// is one character and the space is the only whitespace, so bytes can be counted.
    static func isPlainTitle(_ title: String) -> Bool {
        var title = title
        return title.withUTF8(isPlainTitle)
    }

    /// `isPlainTitle` of a title's bytes where they lie (a card file read for a listing or a merge).
    static func isPlainTitle(_ title: UnsafeBufferPointer<UInt8>) -> Bool {
        var count = 0
        var leading = 0
        var trailing = 0
        for byte in title {
            guard byte >= 0x20 && byte < 0x7F else { return false }
            if byte == 0x20 {
                if leading == count { leading += 1 }
                trailing += 1
            } else {
                trailing = 0
            }
            count += 1
        }
        guard leading < count else { return false }  // empty once trimmed
        return count - leading - trailing <= 200
    }

    /// Whether `url` is printable ASCII without spaces and passes `checkURL`: the same steps over
    /// bytes, which are characters here.
    static func isPlainValidURL(_ url: String) -> Bool {
        var url = url
        return url.withUTF8(isPlainValidURL)
    }

    /// `isPlainValidURL` of a URL's bytes where they lie.
    static func isPlainValidURL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count <= 2048 else { return false }
        var colon = -1
        for (index, byte) in bytes.enumerated() {
            guard byte > 0x20 && byte < 0x7F else { return false }
            if colon < 0 && byte == UInt8(ascii: ":") { colon = index }
        }
        guard colon >= 0 else { return false }
        let rest = colon + 1
        if hasScheme(bytes, colon, "mailto") {
            return rest < bytes.count
        }
        guard hasScheme(bytes, colon, "http") || hasScheme(bytes, colon, "https") else { return false }
        guard rest + 1 < bytes.count, bytes[rest] == UInt8(ascii: "/"), bytes[rest + 1] == UInt8(ascii: "/")
        else { return false }
        let authorityStart = rest + 2
        var authorityEnd = authorityStart
        var hostStart = authorityStart
        while authorityEnd < bytes.count {
            let byte = bytes[authorityEnd]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { hostStart = authorityEnd + 1 }
            authorityEnd += 1
        }
        guard hostStart < authorityEnd else { return false }
        if bytes[hostStart] == UInt8(ascii: "[") {
            // An IPv6 literal: the host is what lies between "[" and the first "]".
            let next = hostStart + 1
            return next < authorityEnd && bytes[next] != UInt8(ascii: "]")
        }
        return bytes[hostStart] != UInt8(ascii: ":")
    }

    /// Whether the `colon` bytes before the colon are `scheme` (lowercase ASCII) in any case.
    private static func hasScheme(_ bytes: UnsafeBufferPointer<UInt8>, _ colon: Int, _ scheme: StaticString) -> Bool {
        guard colon == scheme.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: scheme.utf8Start, count: scheme.utf8CodeUnitCount)
        for index in 0..<colon {
            var byte = bytes[index]
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 0x20 }
            guard byte == expected[index] else { return false }
        }
        return true
    }
}
