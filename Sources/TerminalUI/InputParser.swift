/// Decodes terminal input bytes into events, incrementally: bytes may arrive split anywhere (a sequence fed byte
/// by byte gives the same events as fed whole). An incomplete sequence waits for more bytes ("need more" is not
/// an error); unknown sequences are skipped.
///
/// A lone Esc cannot be told from the start of a sequence until time passes: when `hasPendingInput` stays true
/// for a short while (the session waits 100 ms) with no new bytes, call `flush()`: a lone Esc is then the key,
/// a sequence cut off is dropped.
public struct InputParser: Sendable {
    private var buffer: [UInt8] = []
    /// A CSI sequence longer than this without a final byte is garbage; it is dropped.
    private static let maximumSequenceLength = 64

    /// Creates a parser with nothing pending.
    public init() {}

    /// Whether bytes are waiting for the rest of a sequence.
    public var hasPendingInput: Bool { !buffer.isEmpty }

    /// Adds bytes and returns the events they complete.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [InputEvent] where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        return drain(final: false)
    }

    /// Takes whatever is pending as complete: a lone Esc becomes `.escape`, a cut-off sequence is dropped.
    public mutating func flush() -> [InputEvent] { drain(final: true) }

    private enum Step {
        case event(InputEvent?, consumed: Int)
        case needMore
    }

    private mutating func drain(final: Bool) -> [InputEvent] {
        var events: [InputEvent] = []
        var start = 0
        while start < buffer.count {
            let rest = buffer[start...]
            switch Self.parse(rest) {
            case .event(let event, let consumed):
                if let event { events.append(event) }
                start += consumed
            case .needMore:
                guard final else {
                    buffer.removeFirst(start)
                    return events
                }
                // Timed out. A lone Esc is the key; an escape sequence cut off (its rest late on a slow
                // link, or lost) is no key press, and must not quit the session: dropped whole. Anything
                // else is a broken UTF-8 lead (dropped).
                if rest.first == 0x1B {
                    if rest.count == 1 { events.append(.key(.escape)) }
                    start = buffer.count
                } else {
                    start += 1
                }
            }
        }
        buffer.removeAll(keepingCapacity: true)
        return events
    }

    private static func parse(_ bytes: ArraySlice<UInt8>) -> Step {
        let i = bytes.startIndex
        let byte = bytes[i]
        switch byte {
        case 0x1B: return parseEscape(bytes)
        case 0x0D, 0x0A: return .event(.key(.enter), consumed: 1)
        case 0x20: return .event(.key(.space), consumed: 1)
        case 0x7F, 0x08: return .event(.key(.backspace), consumed: 1)
        case 0x09: return .event(.key(.tab), consumed: 1)
        case 0x01...0x1A: return .event(.key(.ctrl(Character(Unicode.Scalar(byte + 0x60)))), consumed: 1)
        case 0x00, 0x1C...0x1F: return .event(nil, consumed: 1)
        case 0x21...0x7E: return .event(.key(.character(Character(Unicode.Scalar(byte)))), consumed: 1)
        default: return parseUTF8(bytes)
        }
    }

    private static func parseUTF8(_ bytes: ArraySlice<UInt8>) -> Step {
        let i = bytes.startIndex
        let length: Int
        switch bytes[i] {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return .event(nil, consumed: 1)  // a stray continuation or invalid lead byte
        }
        for k in 1..<length {
            guard i + k < bytes.endIndex else { return .needMore }
            guard (0x80...0xBF).contains(bytes[i + k]) else { return .event(nil, consumed: 1) }
        }
        let scalars = String(decoding: bytes[i..<(i + length)], as: UTF8.self)
        guard let character = scalars.first, scalars.unicodeScalars.first?.value != 0xFFFD else {
            return .event(nil, consumed: 1)  // overlong or surrogate encodings decode to U+FFFD
        }
        return .event(.key(.character(character)), consumed: length)
    }

    private static func parseEscape(_ bytes: ArraySlice<UInt8>) -> Step {
        let i = bytes.startIndex
        guard bytes.count >= 2 else { return .needMore }
        switch bytes[i + 1] {
        case UInt8(ascii: "["):
            return parseCSI(bytes)
        case UInt8(ascii: "O"):
            guard bytes.count >= 3 else { return .needMore }
            let key: Key?
            switch bytes[i + 2] {
            case UInt8(ascii: "A"): key = .up
            case UInt8(ascii: "B"): key = .down
            case UInt8(ascii: "C"): key = .right
            case UInt8(ascii: "D"): key = .left
            case UInt8(ascii: "H"): key = .home
            case UInt8(ascii: "F"): key = .end
            default: key = nil
            }
            return .event(key.map(InputEvent.key), consumed: 3)
        case 0x1B:
            // Esc typed twice: the first stands alone.
            return .event(.key(.escape), consumed: 1)
        case UInt8(ascii: "]"), UInt8(ascii: "P"), UInt8(ascii: "_"), UInt8(ascii: "^"):
            // OSC, DCS, APC, PM (a terminal's answer, a paste of escape codes): skipped to their end. A
            // terminal's OSC and DCS answers start with a number (DCS also "!"); anything else after
            // Esc ] or Esc P is Alt+] or Alt+P and a key, which must not wait for an end that never comes.
            guard bytes.count >= 3 else { return .needMore }
            let first = bytes[i + 2]
            let isNumber = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
            switch bytes[i + 1] {
            case UInt8(ascii: "]") where !isNumber, UInt8(ascii: "P") where !isNumber && first != UInt8(ascii: "!"):
                return .event(nil, consumed: 2)
            default:
                return skipStringSequence(bytes)
            }
        default:
            // Alt+key: no key of the session (Esc alone quits; Alt+q is not Esc then q).
            return .event(nil, consumed: 2)
        }
    }

    /// A string sequence longer than this without its end (BEL, or ESC \) is dropped as far as read
    /// (a terminal's answer carrying a clipboard can be long; one cut off is dropped on the timeout).
    private static let maximumStringSequenceLength = 1 << 16

    /// Skips a string sequence (OSC, DCS, APC, PM) up to and with its terminator, BEL or ST (ESC \).
    private static func skipStringSequence(_ bytes: ArraySlice<UInt8>) -> Step {
        let i = bytes.startIndex
        var k = i + 2
        while k < bytes.endIndex {
            if k - i >= maximumStringSequenceLength { return .event(nil, consumed: k - i) }
            if bytes[k] == 0x07 { return .event(nil, consumed: k - i + 1) }
            if bytes[k] == 0x1B {
                guard k + 1 < bytes.endIndex else { return .needMore }
                // ST ends it; any other escape starts something new after a broken one.
                return .event(nil, consumed: bytes[k + 1] == UInt8(ascii: "\\") ? k - i + 2 : k - i)
            }
            k += 1
        }
        return .needMore
    }

    private static func parseCSI(_ bytes: ArraySlice<UInt8>) -> Step {
        let i = bytes.startIndex
        // Legacy X10 mouse: ESC [ M b x y (three raw bytes). Skipped; SGR reports are what mode 1006 sends.
        if bytes.count >= 3, bytes[i + 2] == UInt8(ascii: "M") {
            return bytes.count >= 6 ? .event(nil, consumed: 6) : .needMore
        }
        var k = i + 2
        while k < bytes.endIndex {
            // Too long to be a real sequence: dropped at the same byte however the input was split into reads.
            if k - i >= maximumSequenceLength { return .event(nil, consumed: k - i) }
            let b = bytes[k]
            if (0x40...0x7E).contains(b) { break }
            guard (0x20...0x3F).contains(b) else {
                return .event(nil, consumed: k - i)  // malformed: drop what came before the odd byte
            }
            k += 1
        }
        guard k < bytes.endIndex else { return .needMore }
        let parameters = String(decoding: bytes[(i + 2)..<k], as: UTF8.self)
        let final = bytes[k]
        return .event(decodeCSI(parameters: parameters, final: final), consumed: k - i + 1)
    }

    private static func decodeCSI(parameters: String, final: UInt8) -> InputEvent? {
        if parameters.hasPrefix("<"), final == UInt8(ascii: "M") || final == UInt8(ascii: "m") {
            return decodeSGRMouse(parameters.dropFirst(), released: final == UInt8(ascii: "m"))
        }
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        switch final {
        case UInt8(ascii: "A"): return .key(.up)
        case UInt8(ascii: "B"): return .key(.down)
        case UInt8(ascii: "C"): return .key(.right)
        case UInt8(ascii: "D"): return .key(.left)
        case UInt8(ascii: "H"): return .key(.home)
        case UInt8(ascii: "F"): return .key(.end)
        case UInt8(ascii: "~"):
            switch numbers.first ?? nil {
            case 1, 7: return .key(.home)
            case 2: return .key(.insert)
            case 3: return .key(.delete)
            case 4, 8: return .key(.end)
            case 5: return .key(.pageUp)
            case 6: return .key(.pageDown)
            default: return nil
            }
        default:
            return nil
        }
    }

    private static func decodeSGRMouse(_ text: Substring, released: Bool) -> InputEvent? {
        let parts = text.split(separator: ";", omittingEmptySubsequences: false).compactMap { Int($0) }
        guard parts.count == 3, parts[0] >= 0, parts[1] >= 1, parts[2] >= 1 else { return nil }
        let code = parts[0]
        let modifiers = UInt8(truncatingIfNeeded: code & 0b11100)
        let buttonBits = code & 0b11
        let button: MouseEvent.Button
        switch buttonBits {
        case 0: button = .left
        case 1: button = .middle
        case 2: button = .right
        default: button = .none
        }
        let kind: MouseEvent.Kind
        if code & 64 != 0 {
            kind = buttonBits == 0 ? .scrollUp : .scrollDown
            return .mouse(
                MouseEvent(kind: kind, button: .none, column: parts[1] - 1, row: parts[2] - 1, modifiers: modifiers))
        } else if released {
            kind = .release
        } else if code & 32 != 0 {
            kind = button == .none ? .move : .drag
        } else {
            kind = .press
        }
        return .mouse(
            MouseEvent(kind: kind, button: button, column: parts[1] - 1, row: parts[2] - 1, modifiers: modifiers))
    }
}
