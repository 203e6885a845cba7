import CardModel

/// Merges `conflicts` arrays as sets of records.
///
/// A record either side still has and the other added, or both still have,
/// stays; a record that was in the base and one side removed (settled with
/// `cards resolve`) stays removed, so a resolution is not undone by merging
/// with a device that has not seen it. Records compare by canonical bytes and
/// are stored sorted by field, then by canonical bytes, so both sides write the
/// same array.
enum RecordSet {
    static func merge(base: [JSONValue], ours: [JSONValue], theirs: [JSONValue], added: [JSONValue]) -> [JSONValue] {
        let baseKeys = Set(base.map { $0.canonicalBytes() })
        let oursByKey = keyed(ours)
        let theirsByKey = keyed(theirs)
        var result: [[UInt8]: JSONValue] = [:]
        for (key, record) in oursByKey where theirsByKey[key] != nil || !baseKeys.contains(key) {
            result[key] = record
        }
        for (key, record) in theirsByKey where oursByKey[key] != nil || !baseKeys.contains(key) {
            result[key] = record
        }
        for record in added {
            result[record.canonicalBytes()] = record
        }
        return sorted(result)
    }

    static func keyed(_ records: [JSONValue]) -> [[UInt8]: JSONValue] {
        var byKey: [[UInt8]: JSONValue] = [:]
        for record in records { byKey[record.canonicalBytes()] = record }
        return byKey
    }

    static func sorted(_ byKey: [[UInt8]: JSONValue]) -> [JSONValue] {
        byKey.map { key, record in (field: Array((record["field"]?.stringValue ?? "").utf8), key: key, record: record) }
            .sorted { a, b in
                if a.field != b.field { return a.field.lexicographicallyPrecedes(b.field) }
                return a.key.lexicographicallyPrecedes(b.key)
            }
            .map(\.record)
    }
}
