/// Hand-written JSON pieces (the module has no Foundation): escaped strings and sane numbers.
public enum JSONText {
    /// A JSON string literal, escaping quotes, backslashes and control characters.
    public static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON number rounded to at most 3 decimals, without float noise (`-190`, not `-190.0000001`); `0` for a
    /// value that is not finite (the engine never produces one), `0` rather than `-0`.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        // Beyond 1e15, thousandths are below Double's precision: print the value itself (e.g. `1e+20`, valid JSON).
        guard abs(value) < 1e15 else { return "\(value)" }
        let rounded = (value * 1000).rounded() / 1000
        if rounded == 0 { return "0" }
        if rounded == rounded.rounded(.towardZero) { return String(Int64(rounded)) }
        return "\(rounded)"
    }

    /// `[x, y]`.
    public static func pair(_ vector: SwipeVector) -> String {
        "[\(number(vector.x)), \(number(vector.y))]"
    }
}
