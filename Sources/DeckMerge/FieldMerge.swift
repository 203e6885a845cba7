import CardModel

/// The field-by-field three-way merge of one card both sides changed.
///
/// Every field is merged alike (known, unknown, `rank`), except `conflicts`,
/// which is a set merged by `RecordSet`. Values compare by their bytes.
struct FieldMerge {
    /// Which side a field's merged value came from, for the decision text.
    enum Source {
        case ours, theirs, both
    }

    /// A field both sides changed differently.
    struct Conflict {
        var field: String
        var kept: JSONValue?
        var lost: JSONValue?
    }

    private(set) var fields: [String: JSONValue] = [:]
    private(set) var sources: [(field: String, source: Source)] = []
    private(set) var conflicts: [Conflict] = []
    private(set) var newRecords: [ConflictRecord] = []

    init(
        base: [String: JSONValue], ours: [String: JSONValue], theirs: [String: JSONValue],
        oursSide: MergeSide, theirsSide: MergeSide
    ) {
        for key in FieldMerge.keys(base, ours, theirs) where key != "conflicts" {
            let b = base[key]
            let o = ours[key]
            let t = theirs[key]
            let merged: JSONValue?
            if o == t {
                merged = o
                if o != b { sources.append((key, .both)) }
            } else if o == b {
                merged = t
                sources.append((key, .theirs))
            } else if t == b {
                merged = o
                sources.append((key, .ours))
            } else {
                let oursWin = FieldMerge.oursWins(ours: o, theirs: t, oursSide: oursSide, theirsSide: theirsSide)
                merged = oursWin ? o : t
                conflicts.append(Conflict(field: key, kept: merged, lost: oursWin ? t : o))
                newRecords.append(
                    .fieldConflict(
                        field: key,
                        values: [
                            ConflictValue(value: o, commit: oursSide.commit),
                            ConflictValue(value: t, commit: theirsSide.commit),
                        ],
                        kept: merged))
            }
            if let merged { fields[key] = merged }
        }
        let records = RecordSet.merge(
            base: ConflictRecord.rawRecords(base["conflicts"]),
            ours: ConflictRecord.rawRecords(ours["conflicts"]),
            theirs: ConflictRecord.rawRecords(theirs["conflicts"]),
            added: newRecords.map(\.json))
        if !records.isEmpty { fields["conflicts"] = .array(records) }
    }

    /// The winner rule of the README's Merging table, independent of which side runs the merge:
    /// later time, then the larger commit id, then the larger value bytes.
    static func oursWins(ours: JSONValue?, theirs: JSONValue?, oursSide: MergeSide, theirsSide: MergeSide) -> Bool {
        if oursSide.time != theirsSide.time { return oursSide.time > theirsSide.time }
        if !oursSide.commit.utf8.elementsEqual(theirsSide.commit.utf8) {
            return theirsSide.commit.utf8.lexicographicallyPrecedes(oursSide.commit.utf8)
        }
        // A removed field (no bytes) loses to any value.
        return (theirs?.canonicalBytes() ?? []).lexicographicallyPrecedes(ours?.canonicalBytes() ?? [])
    }

    /// All field names of the three versions, sorted by bytes. Swift treats
    /// canonically equivalent strings as the same key, so of such a group the
    /// byte-smallest spelling is used: the same on both sides of the merge.
    static func keys(_ dicts: [String: JSONValue]...) -> [String] {
        let all = dicts.flatMap(\.keys).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var seen = Set<String>()
        return all.filter { seen.insert($0).inserted }
    }
}
