import CardModel

/// One side's value in a field conflict record.
public struct ConflictValue: Hashable, Sendable {
    /// The value that side had; `nil` when that side removed the field.
    public var value: JSONValue?
    /// The commit the value comes from.
    public var commit: String

    /// Creates a value entry.
    public init(value: JSONValue?, commit: String) {
        self.value = value
        self.commit = commit
    }

    /// The stored form: `{"commit": …, "value": …}`, or `{"commit": …, "removed": true}` for a removed field.
    public var json: JSONValue {
        if let value {
            return .object(["commit": .string(commit), "value": value])
        }
        return .object(["commit": .string(commit), "removed": .bool(true)])
    }

    /// Reads a value entry; `nil` if it is not an object with a string `commit`.
    public init?(json: JSONValue) {
        guard case .object(let members) = json, let commit = members["commit"]?.stringValue else { return nil }
        self.commit = commit
        self.value = members["value"]
    }
}
