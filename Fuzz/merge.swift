/// libFuzzer entry: compiled into one module with Sources/CardModel and Sources/DeckMerge (see build.sh).
/// The input is three card files separated by 0xFF bytes (base, ours, theirs; empty = absent).
/// Properties: the merge is total and symmetric, and a card merged with itself is itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMerge(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let parts = UnsafeBufferPointer(start: data, count: size).split(separator: 0xFF, omittingEmptySubsequences: false)
    func card(_ index: Int) -> Card? {
        guard index < parts.count, !parts[index].isEmpty, let value = try? JSONValue.parse(Array(parts[index])),
            case .object(let fields) = value
        else { return nil }
        return Card(fields: fields)
    }
    let versions = CardVersions(base: card(0), ours: card(1), theirs: card(2))
    let id = versions.ours?.id ?? versions.theirs?.id ?? "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f"
    let a = MergeSide(commit: "1111111111111111111111111111111111111111", time: 100)
    let b = MergeSide(commit: "2222222222222222222222222222222222222222", time: 200)
    let forward = DeckMerger.mergeCard(id: id, versions, ours: a, theirs: b)
    let backward = DeckMerger.mergeCard(id: id, versions.swapped, ours: b, theirs: a)
    if forward.card?.encoded() != backward.card?.encoded() { fatalError("merge is not symmetric") }
    if let ours = versions.ours {
        let same = DeckMerger.mergeCard(id: id, CardVersions(base: ours, ours: ours, theirs: ours), ours: a, theirs: b)
        if same.card != ours { fatalError("a card merged with itself changed") }
    }
    return 0
}
