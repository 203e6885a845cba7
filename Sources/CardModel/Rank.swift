/// Fractional indexing for the deck order.
///
/// A rank is a string of base-62 digits `0-9A-Za-z`, listed in ASCII order so
/// that comparing ranks byte by byte is comparing positions. New ranks follow
/// the "integer head + fraction" layout of fractional indexing: the first
/// letter says how many integer digits follow (`a` one, `b` two, …; `A`–`Z`
/// count down for positions before `a0`), and the fraction never ends in `0`.
/// So appending at the end keeps ranks short (`a0`, `a1`, … `az`, `b00`, …),
/// and there is always room between two ranks made this way. Ranks written by
/// hand that do not follow the layout are still ordered correctly; ranks
/// generated next to them simply grow a digit more often.
public enum Rank {
    /// The base-62 digits in ascending byte order.
    public static let digits: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// The rank of the first card of an empty deck.
    public static let initial = "a0"

    /// Whether `s` is a rank: one or more base-62 digits.
    public static func isValid(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { digitValue($0) != nil }
    }

    /// `isValid` of a rank's bytes where they lie (a card file read for a listing or a merge).
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { digitValue($0) != nil }
    }

    /// A rank strictly between `lower` and `upper`; `nil` is an open end.
    ///
    /// Deterministic. A bound that is not a valid rank is treated as open.
    /// If `lower >= upper` (corrupt input) the result is the rank that would
    /// follow `lower` at the end. The only pairs with no string strictly
    /// between them are `upper == lower + "0"` (with `lower` open, `upper ==
    /// "0"`: nothing sorts before it); then `upper` is returned and
    /// the deck order (`rank`, `id`) stays total. Ranks this type makes never
    /// end in `0`, so that case needs hand-written ranks.
    public static func between(_ lower: String?, _ upper: String?) -> String {
        let a = lower.flatMap { isValid($0) ? Array($0.utf8) : nil }
        let b = upper.flatMap { isValid($0) ? Array($0.utf8) : nil }
        if let a, let b, !a.lexicographicallyPrecedes(b) {
            return text(keyBetween(a, nil))
        }
        return text(keyBetween(a, b))
    }

    /// `count` increasing ranks after `after` (or from the start), for bulk
    /// import: each is the next short rank at the end.
    public static func sequence(count: Int, after: String?) -> [String] {
        var result: [String] = []
        result.reserveCapacity(max(0, count))
        var previous = after
        for _ in 0..<max(0, count) {
            let next = between(previous, nil)
            result.append(next)
            previous = next
        }
        return result
    }

    // MARK: Implementation

    static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(byte - UInt8(ascii: "A")) + 10
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(byte - UInt8(ascii: "a")) + 36
        default: return nil
        }
    }

    private static let zero = UInt8(ascii: "0")
    private static let top = UInt8(ascii: "z")

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static func isBetween(_ r: [UInt8], _ a: [UInt8]?, _ b: [UInt8]?) -> Bool {
        guard !r.isEmpty, r.allSatisfy({ digitValue($0) != nil }) else { return false }
        if let a, !a.lexicographicallyPrecedes(r) { return false }
        if let b, !r.lexicographicallyPrecedes(b) { return false }
        return true
    }

    /// `a < b` (or open ends), both valid digit strings.
    private static func keyBetween(_ a: [UInt8]?, _ b: [UInt8]?) -> [UInt8] {
        if a.map(isStructured) ?? true, b.map(isStructured) ?? true,
            let r = structuredBetween(a, b), isBetween(r, a, b)
        {
            return r
        }
        return genericBetween(a, b)
    }

    // MARK: Integer head + fraction

    private static func integerLength(_ head: UInt8) -> Int? {
        switch head {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(head - UInt8(ascii: "a")) + 2
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(UInt8(ascii: "Z") - head) + 2
        default: return nil
        }
    }

    /// `A` followed by 26 zeros: nothing can be placed before it by decrementing.
    private static let smallestInteger: [UInt8] = [UInt8(ascii: "A")] + Array(repeating: zero, count: 26)

    private static func isStructured(_ key: [UInt8]) -> Bool {
        guard let head = key.first, let length = integerLength(head), key.count >= length else { return false }
        if key.count > length, key.last == zero { return false }
        return key != smallestInteger
    }

    private static func split(_ key: [UInt8]) -> (integer: [UInt8], fraction: [UInt8]) {
        let length = key.first.flatMap(integerLength) ?? key.count
        let cut = min(length, key.count)
        return (Array(key[..<cut]), Array(key[cut...]))
    }

    private static func structuredBetween(_ a: [UInt8]?, _ b: [UInt8]?) -> [UInt8]? {
        switch (a, b) {
        case (nil, nil):
            return Array(initial.utf8)
        case (nil, let b?):
            let (ib, fb) = split(b)
            if ib == smallestInteger { return ib + midpoint([], fb) }
            if !fb.isEmpty { return ib }
            return decrementInteger(ib)
        case (let a?, nil):
            let (ia, fa) = split(a)
            return incrementInteger(ia) ?? ia + midpoint(fa, nil)
        case (let a?, let b?):
            let (ia, fa) = split(a)
            let (ib, fb) = split(b)
            if ia == ib { return ia + midpoint(fa, fb) }
            if let next = incrementInteger(ia), next.lexicographicallyPrecedes(b) { return next }
            return ia + midpoint(fa, nil)
        }
    }

    private static func incrementInteger(_ x: [UInt8]) -> [UInt8]? {
        guard let head = x.first else { return nil }
        var digits = Array(x.dropFirst())
        var carry = true
        var index = digits.count - 1
        while carry, index >= 0 {
            let d = (digitValue(digits[index]) ?? 0) + 1
            if d == Rank.digits.count {
                digits[index] = zero
            } else {
                digits[index] = Rank.digits[d]
                carry = false
            }
            index -= 1
        }
        guard carry else { return [head] + digits }
        if head == UInt8(ascii: "Z") { return [UInt8(ascii: "a"), zero] }
        if head == UInt8(ascii: "z") { return nil }
        let newHead = head + 1
        if newHead > UInt8(ascii: "a") {
            digits.append(zero)
        } else if !digits.isEmpty {
            digits.removeLast()
        }
        return [newHead] + digits
    }

    private static func decrementInteger(_ x: [UInt8]) -> [UInt8]? {
        guard let head = x.first else { return nil }
        var digits = Array(x.dropFirst())
        var borrow = true
        var index = digits.count - 1
        while borrow, index >= 0 {
            let d = (digitValue(digits[index]) ?? 0) - 1
            if d == -1 {
                digits[index] = top
            } else {
                digits[index] = Rank.digits[d]
                borrow = false
            }
            index -= 1
        }
        guard borrow else { return [head] + digits }
        if head == UInt8(ascii: "a") { return [UInt8(ascii: "Z"), top] }
        if head == UInt8(ascii: "A") { return nil }
        let newHead = head - 1
        if newHead < UInt8(ascii: "Z") {
            digits.append(top)
        } else if !digits.isEmpty {
            digits.removeLast()
        }
        return [newHead] + digits
    }

    /// A fraction strictly between fractions `a` and `b` (`nil` = 1), neither
    /// ending in `0`, `a < b`: the shortest digits near the middle.
    private static func midpoint(_ lower: [UInt8], _ upper: [UInt8]?) -> [UInt8] {
        var result: [UInt8] = []
        var a = lower[...]
        var b = upper?[...]
        while true {
            if let bb = b {
                var n = 0
                while n < bb.count, (n < a.count ? a[a.startIndex + n] : zero) == bb[bb.startIndex + n] {
                    n += 1
                }
                if n > 0 {
                    result += bb.prefix(n)
                    a = a.dropFirst(n)
                    let rest = bb.dropFirst(n)
                    b = rest.isEmpty ? nil : rest
                    continue
                }
            }
            let digitA = a.first.flatMap(digitValue) ?? 0
            let digitB = b?.first.flatMap(digitValue) ?? Rank.digits.count
            if digitB - digitA > 1 {
                result.append(Rank.digits[(digitA + digitB + 1) / 2])
                return result
            }
            if let bb = b, bb.count > 1, let first = bb.first {
                result.append(first)
                return result
            }
            result.append(Rank.digits[digitA])
            a = a.dropFirst()
            b = nil
        }
    }

    // MARK: Any digit strings

    /// Between two arbitrary digit strings `a < b`, for hand-written ranks
    /// outside the integer-head layout.
    private static func genericBetween(_ a: [UInt8]?, _ b: [UInt8]?) -> [UInt8] {
        let lower = a ?? []
        guard let b else {
            // Bump the last digit that can grow and drop the rest: short and > a.
            if let index = lower.lastIndex(where: { $0 != top }), let d = digitValue(lower[index]) {
                return Array(lower[..<index]) + [Rank.digits[d + 1]]
            }
            return lower + [Rank.digits[31]]
        }
        var trimmedA = lower
        while trimmedA.last == zero { trimmedA.removeLast() }
        var trimmedB = b
        while trimmedB.last == zero { trimmedB.removeLast() }
        if trimmedA.lexicographicallyPrecedes(trimmedB) {
            let r = midpoint(trimmedA, trimmedB)
            if isBetween(r, a, b) { return r }
        }
        // Same fraction: b is lower followed by zeros only.
        if b.count - lower.count >= 2 { return lower + [zero] }
        return b
    }
}
