import SeededRandom
/// Helpers on the shared SplitMix64 (SeededRandom): a failing input is replayed from its seed.
extension SplitMix64 {
    /// A number in 0..<bound (bound > 0).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(max(bound, 1)))
    }

    /// True with probability 1/n.
    mutating func oneIn(_ n: Int) -> Bool {
        below(n) == 0
    }

    mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }
}

/// Byte-level mutations in the style of libFuzzer's: flips, inserts, deletes, copies, splices with
/// another seed input, dictionary tokens, interesting bytes, truncation, repetition.
struct Mutator {
    var random: SplitMix64
    let corpus: [[UInt8]]
    let dictionary: [[UInt8]]

    static let interesting: [UInt8] = [
        0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1b, 0x20, 0x22, 0x2c, 0x2d, 0x2e, 0x2f, 0x30,
        0x3a, 0x5b, 0x5c, 0x5d, 0x7b, 0x7d, 0x7f, 0x80, 0xbf, 0xc0, 0xc3, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf8, 0xfe,
        0xff,
    ]

    /// A new input: a seed from the corpus, mutated one to eight times (now and then pure noise).
    mutating func next() -> [UInt8] {
        if random.oneIn(50) {
            return (0..<random.below(64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
        var bytes = random.pick(corpus)
        for _ in 0..<(1 + random.below(8)) { mutate(&bytes) }
        if bytes.count > 1 << 16 { bytes.removeLast(bytes.count - (1 << 16)) }
        return bytes
    }

    mutating func mutate(_ bytes: inout [UInt8]) {
        let position = random.below(bytes.count + 1)
        switch random.below(12) {
        case 0 where !bytes.isEmpty:
            bytes[min(position, bytes.count - 1)] ^= UInt8(1 << random.below(8))
        case 1:
            bytes.insert(random.pick(Mutator.interesting), at: position)
        case 2 where !bytes.isEmpty:
            let end = min(bytes.count, position + 1 + random.below(8))
            if position < end { bytes.removeSubrange(position..<end) }
        case 3:
            bytes.insert(contentsOf: random.pick(dictionary), at: position)
        case 4 where !bytes.isEmpty:
            // Copy a chunk of the input elsewhere in it.
            let start = random.below(bytes.count)
            let end = min(bytes.count, start + 1 + random.below(32))
            bytes.insert(contentsOf: Array(bytes[start..<end]), at: random.below(bytes.count + 1))
        case 5:
            // Splice with another seed.
            let other = random.pick(corpus)
            let cut = random.below(other.count + 1)
            bytes = Array(bytes.prefix(position)) + Array(other.suffix(from: cut))
        case 6 where !bytes.isEmpty:
            bytes.removeLast(random.below(bytes.count) + 1)
        case 7 where !bytes.isEmpty:
            bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
        case 8:
            // Repeat a token many times (deep nesting, long strings).
            let token = random.pick(dictionary)
            let times = random.oneIn(4) ? 100 + random.below(4_000) : 1 + random.below(16)
            for _ in 0..<times { bytes.insert(contentsOf: token, at: min(position, bytes.count)) }
        case 9 where !bytes.isEmpty:
            // Swap two bytes.
            let other = random.below(bytes.count)
            bytes.swapAt(min(position, bytes.count - 1), other)
        case 10:
            // An ASCII digit run (numbers, lengths).
            let digits = (0..<(1 + random.below(24))).map { _ in UInt8(ascii: "0") + UInt8(random.below(10)) }
            bytes.insert(contentsOf: digits, at: position)
        default:
            bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
        }
    }
}

extension Array where Element == UInt8 {
    /// The bytes as a Swift string literal body, for failure reports that replay.
    var escaped: String {
        var text = ""
        for byte in self.prefix(2_000) {
            if byte >= 0x20 && byte < 0x7f && byte != 0x5c && byte != 0x22 {
                text.append(Character(UnicodeScalar(byte)))
            } else {
                text += "\\x" + String(byte, radix: 16).leftPadded(2)
            }
        }
        return self.count > 2_000 ? text + "…(\(self.count) bytes)" : text
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
