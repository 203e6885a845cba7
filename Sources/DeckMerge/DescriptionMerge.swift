import CardModel

/// The three-way merge of `deck.json` (the deck's name, its owner), field by field as a card's fields
/// merge: a member changed on one side only takes that change; changed on both, objects (the owner) are
/// merged member by member, and where both sides set different values the later tip's wins, named.
public enum DescriptionMerge {
    /// `ours` and `theirs` merged against `base` (nil: both sides added the file); `theirsWins` says
    /// which side's value a conflict keeps. Returns the merged value and the dotted names of the
    /// members both sides set differently (`owner.note`), sorted.
    public static func merge(base: JSONValue?, ours: JSONValue, theirs: JSONValue, theirsWins: Bool)
        -> (merged: JSONValue, conflicts: [String])
    {
        var conflicts: [String] = []
        let merged = member(base: base, ours: ours, theirs: theirs, theirsWins: theirsWins, path: "", &conflicts)
        return (merged ?? .object([:]), conflicts.sorted())
    }

    private static func member(
        base: JSONValue?, ours: JSONValue?, theirs: JSONValue?, theirsWins: Bool, path: String,
        _ conflicts: inout [String]
    ) -> JSONValue? {
        if ours == theirs { return ours }
        if ours == base { return theirs }
        if theirs == base { return ours }
        if case .object(let mine)? = ours, case .object(let other)? = theirs {
            let original = base?.objectValue ?? [:]
            var result: [String: JSONValue] = [:]
            for key in Set(mine.keys).union(other.keys).union(original.keys) {
                let name = path.isEmpty ? key : "\(path).\(key)"
                result[key] = member(
                    base: original[key], ours: mine[key], theirs: other[key], theirsWins: theirsWins, path: name,
                    &conflicts)
            }
            return .object(result)
        }
        conflicts.append(path.isEmpty ? "(the whole file)" : path)
        // A member one side removed and the other changed stays, changed: nothing is lost.
        if ours == nil { return theirs }
        if theirs == nil { return ours }
        return theirsWins ? theirs : ours
    }
}
