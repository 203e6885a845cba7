import CardModel
import Testing

@testable import DeckMerge

/// Every combination of what each side did to one field of one card, checked
/// against an oracle written from the merge table (the README's Merging) in terms of what happened,
/// not by comparing values the way the merge does.
@Suite struct MergeTableTests {
    static let id = "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f"
    static let oursCommit = "aaaa000000000000000000000000000000000000"
    static let theirsCommit = "bbbb000000000000000000000000000000000000"

    enum Base: CaseIterable, Sendable {
        case withField, withoutField, noCard
    }

    enum Act: CaseIterable, Sendable {
        case unchanged, toX, toY, deleteCard, removeField
    }

    enum Clock: CaseIterable, Sendable {
        case oursLater, theirsLater, tie  // tie: the larger commit id wins, that is theirs
    }

    struct Row: CustomTestStringConvertible, Sendable {
        var field: String
        var base: Base
        var ours: Act
        var theirs: Act
        var clock: Clock
        var policy: MergePolicy
        var testDescription: String { "\(field) \(base) \(ours)/\(theirs) \(clock) \(policy)" }
    }

    static let rows: [Row] = ["note", "platformName", "rank"].flatMap { field in
        Base.allCases.flatMap { base in
            Act.allCases.flatMap { ours in
                Act.allCases.flatMap { theirs in
                    Clock.allCases.flatMap { clock in
                        MergePolicy.allCases.map {
                            Row(field: field, base: base, ours: ours, theirs: theirs, clock: clock, policy: $0)
                        }
                    }
                }
            }
        }
    }

    static func card(_ field: String, _ value: String?) -> Card {
        var card = Card(
            id: id, title: "Octocat", indexURL: "https://github.com/octocat", platformName: "GitHub",
            color: "blue", rank: "a0")
        card.fields[field] = value.map { .string($0) }
        return card
    }

    /// What the field looks like on a side: `nil` = no card; `.some(nil)` = card without the field.
    static func state(_ base: Base, _ act: Act) -> String?? {
        let baseState: String?? =
            switch base {
            case .withField: .some("B")
            case .withoutField: .some(nil)
            case .noCard: .none
            }
        switch act {
        case .unchanged: return baseState
        case .toX: return .some("X")
        case .toY: return .some("Y")
        case .deleteCard: return .none
        case .removeField: return .some(nil)
        }
    }

    struct Expected {
        var card: String??  // nil = no card; .some(v) = card with field value v
        var kind: CardDecision.Kind
        var fieldRecord: (ours: String?, theirs: String?, kept: String?)? = nil
        var deletionRecord = false
        var restoreCommit: String? = nil
    }

    /// The oracle: the merge table, case by case.
    static func expected(_ row: Row) -> Expected {
        let b = state(row.base, .unchanged)
        let o = state(row.base, row.ours)
        let t = state(row.base, row.theirs)
        let oursWinsTies = row.clock == .oursLater
        switch (o, t) {
        case (.none, .none):
            return Expected(card: .none, kind: b == nil ? .unchanged : .deletedOnBoth)
        case (.none, .some(let tv)):
            if b == nil { return Expected(card: .some(tv), kind: .tookTheirs) }  // added on theirs
            if t == b { return Expected(card: .none, kind: .tookOurs) }  // deleted on ours, untouched on theirs
            return row.policy == .keep
                ? Expected(card: .some(tv), kind: .keptEditedOverDelete, deletionRecord: true)
                : Expected(card: .none, kind: .deletedOverEdit, restoreCommit: theirsCommit)
        case (.some(let ov), .none):
            if b == nil { return Expected(card: .some(ov), kind: .tookOurs) }
            if o == b { return Expected(card: .none, kind: .tookTheirs) }
            return row.policy == .keep
                ? Expected(card: .some(ov), kind: .keptEditedOverDelete, deletionRecord: true)
                : Expected(card: .none, kind: .deletedOverEdit, restoreCommit: oursCommit)
        case (.some(let ov), .some(let tv)):
            // A card added on both sides merges field by field against an empty base.
            let fieldBase: String? = b ?? nil
            if ov == tv {
                return Expected(card: .some(ov), kind: b != nil && o == b ? .unchanged : .sameOnBoth)
            }
            if ov == fieldBase { return Expected(card: .some(tv), kind: b == nil ? .merged : .tookTheirs) }
            if tv == fieldBase { return Expected(card: .some(ov), kind: b == nil ? .merged : .tookOurs) }
            let kept = oursWinsTies ? ov : tv
            return Expected(card: .some(kept), kind: .conflict, fieldRecord: (ov, tv, kept))
        }
    }

    /// Our side and theirs, their commit times as `clock` says.
    static func sides(_ clock: Clock) -> (ours: MergeSide, theirs: MergeSide) {
        let times: (Int64, Int64) =
            switch clock {
            case .oursLater: (200, 100)
            case .theirsLater: (100, 200)
            case .tie: (100, 100)
            }
        return (MergeSide(commit: oursCommit, time: times.0), MergeSide(commit: theirsCommit, time: times.1))
    }

    @Test(
        "a side known to hold the base's very bytes is decided as comparing the cards decides",
        arguments: rows.filter { $0.base != .noCard })
    func sameBytesAsBase(_ row: Row) throws {
        let versions = CardVersions(
            base: Self.state(row.base, .unchanged).map { Self.card(row.field, $0) },
            ours: Self.state(row.base, row.ours).map { Self.card(row.field, $0) },
            theirs: Self.state(row.base, row.theirs).map { Self.card(row.field, $0) })
        let (ours, theirs) = Self.sides(row.clock)
        let compared = DeckMerger.mergeCard(id: Self.id, versions, ours: ours, theirs: theirs, policy: row.policy)
        // Only a side that left the card as it was may be marked; each mark alone, then both.
        for (oursMarked, theirsMarked) in [(true, false), (false, true), (true, true)]
        where (!oursMarked || row.ours == .unchanged) && (!theirsMarked || row.theirs == .unchanged) {
            var marked = versions
            marked.oursIsBase = oursMarked
            marked.theirsIsBase = theirsMarked
            let known = DeckMerger.mergeCard(id: Self.id, marked, ours: ours, theirs: theirs, policy: row.policy)
            #expect(known.card?.encoded() == compared.card?.encoded(), "marked \(oursMarked)/\(theirsMarked)")
            #expect(known.decision == compared.decision, "marked \(oursMarked)/\(theirsMarked)")
        }
    }

    @Test(arguments: rows)
    func row(_ row: Row) throws {
        let b = Self.state(row.base, .unchanged)
        let o = Self.state(row.base, row.ours)
        let t = Self.state(row.base, row.theirs)
        let versions = CardVersions(
            base: b.map { Self.card(row.field, $0) }, ours: o.map { Self.card(row.field, $0) },
            theirs: t.map { Self.card(row.field, $0) })
        let (ours, theirs) = Self.sides(row.clock)
        let result = DeckMerger.merge([Self.id: versions], ours: ours, theirs: theirs, policy: row.policy)
        let swapped = DeckMerger.merge(
            [Self.id: versions.swapped], ours: theirs, theirs: ours, policy: row.policy)
        let want = Self.expected(row)

        let merged = result.cards[Self.id] ?? nil
        #expect(merged?.encoded() == (swapped.cards[Self.id] ?? nil)?.encoded(), "not symmetric")
        let decision = try #require(result.decisions.first)
        #expect(decision.kind == want.kind)
        #expect(decision.restoreCommit == want.restoreCommit)
        #expect((decision.kind == .unchanged) == decision.trailers.isEmpty)

        guard case .some(let value) = want.card else {
            #expect(merged == nil, "expected the card deleted")
            return
        }
        let card = try #require(merged, "expected a card")
        #expect(card.fields[row.field] == value.map { JSONValue.string($0) })

        var records: [JSONValue] = []
        if let (ov, tv, kept) = want.fieldRecord {
            func entry(_ v: String?, _ commit: String) -> JSONValue {
                v.map { .object(["commit": .string(commit), "value": .string($0)]) }
                    ?? .object(["commit": .string(commit), "removed": .bool(true)])
            }
            var record: [String: JSONValue] = [
                "field": .string(row.field),
                "values": .array([entry(ov, Self.oursCommit), entry(tv, Self.theirsCommit)]),
            ]
            record["kept"] = kept.map { .string($0) }
            records.append(.object(record))
        }
        if want.deletionRecord {
            let deletedIn = o == nil ? Self.oursCommit : Self.theirsCommit
            let editedIn = o == nil ? Self.theirsCommit : Self.oursCommit
            records.append(
                .object([
                    "field": .string("*"), "deleted": .bool(true), "commit": .string(deletedIn),
                    "editedIn": .string(editedIn),
                ]))
        }
        #expect(card.fields["conflicts"] == (records.isEmpty ? nil : .array(records)))
        // Every other field is as it was.
        for name in ["id", "title", "indexURL", "color", "platformName", "rank"] where name != row.field {
            #expect(card.fields[name] == Self.card(row.field, nil).fields[name])
        }
    }

    @Test(
        "deleted on one side; the other changed only the records of deletes a merge kept it against: deleted (as on both), either way round; a field changed as well, or another kind of record: kept with a record"
    )
    func deletionRecordsAreNoEdit() throws {
        let deletion = ConflictRecord.deletion(deletedIn: "cccc000000000000000000000000000000000000", editedIn: "dddd")
        let field: JSONValue = .object([
            "field": .string("title"), "kept": .string("A"),
            "values": .array([
                .object(["commit": .string("e1"), "value": .string("A")]),
                .object(["commit": .string("e2"), "value": .string("B")]),
            ]),
        ])
        let base = Self.card("note", "B")
        func with(_ records: [JSONValue], note: String = "B") -> Card {
            var card = Self.card("note", note)
            card.fields["conflicts"] = .array(records)
            return card
        }
        let (ours, theirs) = Self.sides(.tie)
        // (present, its base, deleted)
        let cases: [(Card, Card, Bool)] = [
            (with([deletion.json]), base, true),
            (with([field, deletion.json]), with([field]), true),
            (with([deletion.json], note: "X"), base, false),
            (with([field]), base, false),
            (with([deletion.json]), with([field]), false),  // a record of the base's dropped
        ]
        for (index, (present, cardBase, deleted)) in cases.enumerated() {
            for presentIsOurs in [true, false] {
                let versions = CardVersions(
                    base: cardBase, ours: presentIsOurs ? present : nil, theirs: presentIsOurs ? nil : present)
                let result = DeckMerger.merge([Self.id: versions], ours: ours, theirs: theirs, policy: .keep)
                let merged = result.cards[Self.id] ?? nil
                #expect((merged == nil) == deleted, "case \(index), present on \(presentIsOurs ? "ours" : "theirs")")
                // Deleted: the deleting side's change taken, as for a card the other side left alone.
                #expect(
                    result.decisions.first?.kind
                        == (deleted ? (presentIsOurs ? .tookTheirs : .tookOurs) : .keptEditedOverDelete),
                    "case \(index)")
            }
        }
    }

    @Test func tableIsComplete() {
        #expect(Self.rows.count == 3 * 3 * 5 * 5 * 3 * 2)
    }
}
