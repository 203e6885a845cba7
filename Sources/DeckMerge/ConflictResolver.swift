import CardModel

/// Settles conflict records: what `cards resolve` does before committing.
public enum ConflictResolver {
    /// The values to choose from for `field`, numbered from 1 in this order:
    /// the values of all of the field's records, each value once (records in
    /// stored order, values in record order).
    public static func choices(in card: Card, field: String) -> [ConflictValue] {
        var seen = Set<[UInt8]>()
        var result: [ConflictValue] = []
        for record in ConflictRecord.records(in: card) where !record.isDeletion && record.field == field {
            for value in record.values where seen.insert(value.value?.canonicalBytes() ?? []).inserted {
                result.append(value)
            }
        }
        return result
    }

    /// Settles the conflicts recorded for `field` (`"*"` for delete-versus-edit).
    ///
    /// `.pick(n)` sets the field to choice `n` (removing it if that side had
    /// removed it) and drops every record for the field; `.keep` drops the
    /// field's records and keeps its value as the card has it (for `"*"`, keeps
    /// the card); `.delete` returns `nil`: the card is to be deleted.
    /// Records of other fields are left as they are.
    ///
    /// - Throws: `ResolveError` if there is no such conflict, the resolution
    ///   does not fit its kind, `n` is out of range, or the result is not a valid card.
    public static func resolve(
        _ card: Card, field: String, _ resolution: ConflictResolution
    ) throws(ResolveError) -> Card? {
        let id = card.id
        let raw = ConflictRecord.rawRecords(card.fields["conflicts"])
        let matching = raw.filter { ConflictRecord(json: $0)?.field == field }
        guard !matching.isEmpty else {
            let open = Set(ConflictRecord.records(in: card).map(\.field)).sorted()
            let hint = open.isEmpty ? "the card has no conflicts" : "open conflicts: \(open.joined(separator: ", "))"
            // --keep or --delete without --field asks about a deleted-versus-edited conflict: said so, with
            // how a field's is settled.
            guard field != "*" || open.isEmpty else {
                throw ResolveError(
                    cardID: id, field: field,
                    message: "the card has no deleted-versus-edited conflict; \(hint) (settle one with "
                        + "--field F --pick N, or --field F --keep)")
            }
            throw ResolveError(cardID: id, field: field, message: "no conflict recorded for this field; \(hint)")
        }
        var result = card
        let remaining = raw.filter { ConflictRecord(json: $0)?.field != field }
        result.fields["conflicts"] = remaining.isEmpty ? nil : .array(remaining)

        switch resolution {
        case .pick(let number):
            guard field != "*" else {
                throw ResolveError(
                    cardID: id, field: field, message: "a deleted-versus-edited card is settled with --keep or --delete"
                )
            }
            let options = choices(in: card, field: field)
            // A record written by hand can hold no value to choose from: then the field stays as it is.
            guard !options.isEmpty else {
                throw ResolveError(
                    cardID: id, field: field,
                    message: "the record holds no values to choose from; keep the field as it is with --keep")
            }
            guard options.indices.contains(number - 1) else {
                throw ResolveError(
                    cardID: id, field: field, message: "no choice \(number); choose 1 to \(options.count)")
            }
            result.fields[field] = options[number - 1].value
        case .keep:
            // The field as the merge (or an edit since) left it: its records dropped, its value unchanged.
            break
        case .delete:
            guard field == "*" else {
                throw ResolveError(
                    cardID: id, field: field, message: "a field conflict is settled with --pick N or --keep")
            }
            return nil
        }
        do {
            try result.validate()
        } catch {
            throw ResolveError(
                cardID: id, field: field, message: "the result would not be a valid card (\(error)); pick another value"
            )
        }
        return result
    }
}
