/// Text attributes of a cell.
public struct CellAttributes: OptionSet, Hashable, Sendable {
    /// The raw bits.
    public var rawValue: UInt8

    /// Creates attributes from raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bold (SGR 1).
    public static let bold = CellAttributes(rawValue: 1 << 0)
    /// Dim (SGR 2).
    public static let dim = CellAttributes(rawValue: 1 << 1)
    /// Italic (SGR 3).
    public static let italic = CellAttributes(rawValue: 1 << 2)
    /// Underlined (SGR 4).
    public static let underline = CellAttributes(rawValue: 1 << 3)
    /// Reverse video (SGR 7).
    public static let reverse = CellAttributes(rawValue: 1 << 4)
}
