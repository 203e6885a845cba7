import CardModel

/// A conflict record as stored in a card's `conflicts` array.
///
/// Two shapes are written by the merge:
/// - a field record: `{"field": "title", "values": [{"commit": "…", "value": "Work"},
///   {"commit": "…", "value": "Job"}], "kept": "Work"}`; a side that removed the
///   field has `"removed": true` instead of `"value"`, and `"kept"` is left out
///   when the removal won;
/// - a delete-versus-edit record: `{"field": "*", "deleted": true, "commit": "<deleting commit>",
///   "editedIn": "<editing commit>"}`.
///
/// Records from elsewhere may carry more keys; `json` keeps them.
public struct ConflictRecord: Hashable, Sendable {
    /// The record exactly as stored.
    public var json: JSONValue
    /// The field in conflict, or `"*"` for the whole card.
    public var field: String
    /// The competing values, for a field record.
    public var values: [ConflictValue]
    /// The value the merge kept; `nil` if the kept outcome is a removed field (or for `"*"`).
    public var kept: JSONValue?
    /// For a `"*"` record: the commit that deleted the card.
    public var deletedIn: String?
    /// For a `"*"` record: the commit that edited it.
    public var editedIn: String?

    /// Whether this is a delete-versus-edit record.
    public var isDeletion: Bool { field == "*" }

    /// Reads a stored record; `nil` if it is not an object with a string `field`.
    public init?(json: JSONValue) {
        guard case .object(let members) = json, let field = members["field"]?.stringValue else { return nil }
        self.json = json
        self.field = field
        self.values = (members["values"]?.arrayValue ?? []).compactMap(ConflictValue.init(json:))
        self.kept = members["kept"]
        if field == "*" {
            self.deletedIn = members["commit"]?.stringValue
            self.editedIn = members["editedIn"]?.stringValue
        }
    }

    /// A field record; the values are stored sorted by commit, then by canonical value bytes.
    public static func fieldConflict(field: String, values: [ConflictValue], kept: JSONValue?) -> ConflictRecord {
        let sorted = values.sorted { a, b in
            if a.commit != b.commit { return a.commit.utf8.lexicographicallyPrecedes(b.commit.utf8) }
            return (a.value?.canonicalBytes() ?? []).lexicographicallyPrecedes(b.value?.canonicalBytes() ?? [])
        }
        var members: [String: JSONValue] = ["field": .string(field), "values": .array(sorted.map(\.json))]
        if let kept { members["kept"] = kept }
        // Built from members we just wrote, so reading them back cannot fail;
        // the fallback only keeps this total.
        return ConflictRecord(json: .object(members))
            ?? ConflictRecord(unchecked: .object(members), field: field)
    }

    /// A delete-versus-edit record.
    public static func deletion(deletedIn: String, editedIn: String) -> ConflictRecord {
        let json = JSONValue.object([
            "field": .string("*"), "deleted": .bool(true), "commit": .string(deletedIn),
            "editedIn": .string(editedIn),
        ])
        return ConflictRecord(json: json) ?? ConflictRecord(unchecked: json, field: "*")
    }

    private init(unchecked json: JSONValue, field: String) {
        self.json = json
        self.field = field
        self.values = []
    }

    /// The records a card carries that can be read (others are kept in the card but not listed).
    public static func records(in card: Card) -> [ConflictRecord] {
        rawRecords(card.fields["conflicts"]).compactMap(ConflictRecord.init(json:))
    }

    /// The elements of a `conflicts` value; anything not an array counts as one element, so nothing is dropped.
    static func rawRecords(_ value: JSONValue?) -> [JSONValue] {
        switch value {
        case nil: return []
        case .array(let items)?: return items
        case let other?: return [other]
        }
    }
}
