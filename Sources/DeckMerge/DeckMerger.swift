import CardModel

/// The three-way deck merge of the README's Merging section: card by card, then field by field.
///
/// A pure function of (base, ours, theirs, sides, policy). Swapping `ours`
/// and `theirs` (with their sides) gives byte-identical cards; only the
/// decisions' wording (“from ours”) changes. Total: any input, valid or not,
/// gives a result.
public enum DeckMerger {
    /// Merges every card in `versions`.
    ///
    /// - Parameters:
    ///   - versions: The three versions of each card that changed on either side, by id.
    ///   - ours: Our side (deck-level); per-card sides in `CardVersions` override it.
    ///   - theirs: Their side (deck-level).
    ///   - policy: What to do with delete-versus-edit.
    /// - Complexity: O(total size of the cards given).
    public static func merge(
        _ versions: [String: CardVersions], ours: MergeSide, theirs: MergeSide, policy: MergePolicy = .keep
    ) -> DeckMergeResult {
        var cards: [String: Card?] = [:]
        var decisions: [CardDecision] = []
        var newConflicts: [String: [ConflictRecord]] = [:]
        let ids = versions.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for id in ids {
            guard let cardVersions = versions[id] else { continue }
            let outcome = mergeCard(id: id, cardVersions, ours: ours, theirs: theirs, policy: policy)
            cards[id] = .some(outcome.card)
            decisions.append(outcome.decision)
            if !outcome.newConflicts.isEmpty {
                newConflicts[id] = outcome.newConflicts
            }
        }
        return DeckMergeResult(cards: cards, decisions: decisions, newConflicts: newConflicts)
    }

    /// Merges one card (also what the git merge driver needs).
    ///
    /// - Returns: The merged card (`nil` = absent), the decision, and the conflict records this merge added.
    public static func mergeCard(
        id: String, _ versions: CardVersions, ours: MergeSide, theirs: MergeSide, policy: MergePolicy = .keep
    ) -> (card: Card?, decision: CardDecision, newConflicts: [ConflictRecord]) {
        let oursSide = versions.oursSide ?? ours
        let theirsSide = versions.theirsSide ?? theirs
        let base = versions.base
        let label = DecisionText.label(id: id, versions)
        // A card both sides have is named by the title it ends with (the other side's, when that won);
        // `label` already is ours.
        func labelOf(_ result: Card) -> String {
            result.title.isEmpty ? label : DecisionText.show(.string(result.title))
        }

        switch (versions.ours, versions.theirs) {
        case (nil, nil):
            if base == nil {
                return (nil, DecisionText.unchanged(id: id, label: label, absent: true), [])
            }
            return (nil, DecisionText.deletedOnBoth(id: id, label: label), [])

        case (let o?, let t?):
            let oursIsBase = versions.oursIsBase && base != nil
            let theirsIsBase = versions.theirsIsBase && base != nil
            // One side known to be the base's very bytes: one comparison decides (most cards of a big
            // merge; the general case below would compare the changed side twice, with the other side
            // and then with the base, which are the same).
            if oursIsBase != theirsIsBase {
                let changed = oursIsBase ? t : o
                if same(changed, base) { return (o, DecisionText.unchanged(id: id, label: label, absent: false), []) }
                return (
                    changed, DecisionText.tookSide(id: id, label: labelOf(changed), ours: theirsIsBase, what: "edited"),
                    []
                )
            }
            // From here both sides are marked alike: both the base's bytes, or neither known to be.
            if oursIsBase || same(o, t) {
                if oursIsBase || same(o, base) {
                    return (o, DecisionText.unchanged(id: id, label: label, absent: false), [])
                }
                return (o, DecisionText.sameOnBoth(id: id, label: label, added: base == nil), [])
            }
            if same(o, base) {
                return (t, DecisionText.tookSide(id: id, label: labelOf(t), ours: false, what: "edited"), [])
            }
            if same(t, base) {
                return (o, DecisionText.tookSide(id: id, label: label, ours: true, what: "edited"), [])
            }
            let merged = FieldMerge(
                base: base?.fields ?? [:], ours: o.fields, theirs: t.fields,
                oursSide: oursSide, theirsSide: theirsSide)
            let card = Card(fields: merged.fields)
            let decision = DecisionText.fieldMerge(id: id, label: labelOf(card), merged, addedOnBoth: base == nil)
            return (card, decision, merged.newRecords)

        case (let o?, nil):
            return oneSideMissing(
                id: id, label: label, base: base, present: o, presentIsOurs: true,
                presentIsBase: versions.oursIsBase, presentSide: oursSide, deletingSide: theirsSide, policy: policy)

        case (nil, let t?):
            return oneSideMissing(
                id: id, label: label, base: base, present: t, presentIsOurs: false,
                presentIsBase: versions.theirsIsBase, presentSide: theirsSide, deletingSide: oursSide, policy: policy)
        }
    }

    /// Whether two versions are the same bytes. `Card`'s own `==` compares
    /// field names by Unicode canonical equivalence; the merge must not, or two
    /// differently encoded cards could be taken for the same change.
    static func same(_ a: Card?, _ b: Card?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return JSONValue.object(a.fields) == JSONValue.object(b.fields)
    }

    /// Whether `card` is `base` with deletion records (`"field": "*"`, `"deleted": true`) added to its
    /// `conflicts` and nothing else changed: every other field the same bytes, every record of the base
    /// still there.
    static func differsOnlyByDeletionRecords(_ card: Card, from base: Card) -> Bool {
        var fields = card.fields
        var baseFields = base.fields
        let records = ConflictRecord.rawRecords(fields.removeValue(forKey: "conflicts"))
        let baseRecords = ConflictRecord.rawRecords(baseFields.removeValue(forKey: "conflicts"))
        guard JSONValue.object(fields) == JSONValue.object(baseFields), baseRecords.allSatisfy(records.contains)
        else { return false }
        let added = records.filter { !baseRecords.contains($0) }
        return !added.isEmpty
            && added.allSatisfy { record in
                guard case .object(let members) = record else { return false }
                return members["field"] == .string("*") && members["deleted"] == .bool(true)
            }
    }

    /// One side has the card, the other has not: added, deleted, or delete versus edit.
    private static func oneSideMissing(
        id: String, label: String, base: Card?, present: Card, presentIsOurs: Bool, presentIsBase: Bool,
        presentSide: MergeSide, deletingSide: MergeSide, policy: MergePolicy
    ) -> (card: Card?, decision: CardDecision, newConflicts: [ConflictRecord]) {
        guard let base else {
            return (present, DecisionText.tookSide(id: id, label: label, ours: presentIsOurs, what: "added"), [])
        }
        // Deleted on the missing side, untouched on the other: a plain delete. Untouched too: a card that
        // differs from the base only by the records of deletes a merge on that side kept it against (the
        // deleting side saw every value it holds; else two devices that each deleted the card would keep it
        // for good, one more record a round).
        if presentIsBase || same(present, base) || differsOnlyByDeletionRecords(present, from: base) {
            return (nil, DecisionText.tookSide(id: id, label: label, ours: !presentIsOurs, what: "deleted"), [])
        }
        switch policy {
        case .keep:
            let record = ConflictRecord.deletion(deletedIn: deletingSide.commit, editedIn: presentSide.commit)
            var card = present
            let records = RecordSet.merge(
                base: [], ours: ConflictRecord.rawRecords(present.fields["conflicts"]), theirs: [],
                added: [record.json])
            card.fields["conflicts"] = records.isEmpty ? nil : .array(records)
            let decision = DecisionText.keptEdited(
                id: id, label: label, editedIsOurs: presentIsOurs, deletedIn: deletingSide.commit,
                editedIn: presentSide.commit)
            return (card, decision, [record])
        case .delete:
            let decision = DecisionText.deletedEdited(
                id: id, label: label, editedIsOurs: presentIsOurs, deletedIn: deletingSide.commit,
                editedIn: presentSide.commit)
            return (nil, decision, [])
        }
    }
}
