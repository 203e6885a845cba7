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
        // Whole thousandths, rounded half away from zero, then printed digit by digit: no float noise, and no
        // libm (`rounded()` needs it, and this module links nothing but the standard library).
        let scaled = value * 1000
        let thousandths = Int64(scaled < 0 ? scaled - 0.5 : scaled + 0.5)
        guard thousandths != 0 else { return "0" }
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = thousandths.magnitude
        let whole = magnitude / 1000
        var fraction = magnitude % 1000
        guard fraction != 0 else { return sign + String(whole) }
        var digits = 3
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let fractionText = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
    }

    /// `[x, y]`.
    public static func pair(_ vector: SwipeVector) -> String {
        "[\(number(vector.x)), \(number(vector.y))]"
    }
}
