/// A card that breaks one of the card file's rules (the README's "The deck on disk").
///
/// The description reads `field: rule`, for example
/// `title: must not be empty (after trimming spaces)`.
public struct CardValidationError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The field that breaks the rule, or `nil` for the card as a whole.
    public var field: String?
    /// What is wrong, in words, without the field name.
    public var rule: String
    /// The other rules the same card breaks, in the order they are checked (`Card.validate`): a file is
    /// fixed in one go when every fault is named at once.
    public var others: [CardValidationError] = []

    /// Creates an error for `field` breaking `rule`.
    public init(field: String?, rule: String) {
        self.field = field
        self.rule = rule
    }

    /// `field: rule`, or just the rule when no field is named; then the other faults, after "; ".
    public var description: String {
        let first = field.map { "\($0): \(rule)" } ?? rule
        return ([first] + others.map(\.description)).joined(separator: "; ")
    }
}
