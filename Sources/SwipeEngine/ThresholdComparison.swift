/// Whether reaching a threshold exactly counts as passing it.
public enum ThresholdComparison: String, Hashable, Sendable {
    /// `displacement > distance` (seed 002: `x < -75`).
    case strict
    /// `displacement >= distance` (seed 000: `x <= -150`).
    case inclusive

    /// Whether `value` passes `threshold` under this comparison.
    public func passes(_ value: Double, _ threshold: Double) -> Bool {
        switch self {
        case .strict: return value > threshold
        case .inclusive: return value >= threshold
        }
    }
}
