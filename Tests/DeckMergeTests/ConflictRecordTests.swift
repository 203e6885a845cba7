import CardModel
import TestSupport
import Testing

@testable import DeckMerge

@Suite struct ConflictRecordTests {
    static let id = "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f"
    static let laptop = MergeSide(commit: "1111111111111111111111111111111111111111", time: 1_700_000_100)
    static let phone = MergeSide(commit: "2222222222222222222222222222222222222222", time: 1_700_000_000)

    static func card(title: String, color: String = "blue") -> Card {
        Card(id: id, title: title, indexURL: "https://example.com", color: color, rank: "a0")
    }

    @Test func workVersusJobGoldenFileAndTrailers() throws {
        let versions = CardVersions(
            base: Self.card(title: "Old"), ours: Self.card(title: "Work"), theirs: Self.card(title: "Job", color: "red")
        )
        let result = DeckMerger.merge([Self.id: versions], ours: Self.laptop, theirs: Self.phone)
        let card = try #require(result.cards[Self.id] ?? nil)
        let expected = """
            {
              "color": "red",
              "conflicts": [
                {
                  "field": "title",
                  "kept": "Work",
                  "values": [
                    {
                      "commit": "1111111111111111111111111111111111111111",
                      "value": "Work"
                    },
                    {
                      "commit": "2222222222222222222222222222222222222222",
                      "value": "Job"
                    }
                  ]
                }
              ],
              "id": "3f2a9c1e-7b1d-4c55-9a0e-1d2b3c4d5e6f",
              "indexURL": "https://example.com",
              "rank": "a0",
              "title": "Work"
            }

            """
        #expect(String(decoding: card.encoded(), as: UTF8.self) == expected)
        let decision = try #require(result.decisions.first)
        #expect(decision.kind == .conflict)
        #expect(
            decision.trailers == [
                "Card-Merged: \(Self.id) color from theirs",
                "Card-Conflict: \(Self.id) title kept \"Work\" over \"Job\"",
            ])
        #expect(decision.summary == "\"Work\": color from theirs; conflict: title kept \"Work\" over \"Job\"")
        #expect(result.newConflicts[Self.id]?.first?.field == "title")
        #expect(result.hasConflicts)
        #expect(try Card.decode(card.encoded()) == card)
    }

    @Test func perCardSidesOverrideDeckSides() throws {
        // The deck-level sides say ours is later, but theirs touched this card later.
        var versions = CardVersions(
            base: Self.card(title: "Old"), ours: Self.card(title: "Work"), theirs: Self.card(title: "Job"))
        versions.theirsSide = MergeSide(commit: "3333333333333333333333333333333333333333", time: 1_800_000_000)
        let result = DeckMerger.merge([Self.id: versions], ours: Self.laptop, theirs: Self.phone)
        #expect((result.cards[Self.id] ?? nil)?.title == "Job")
    }

    @Test func resolvedRecordsStayResolvedAndNewOnesAreAdded() throws {
        let conflicted = try #require(
            DeckMerger.merge(
                [
                    Self.id: CardVersions(
                        base: Self.card(title: "Old"), ours: Self.card(title: "Work"), theirs: Self.card(title: "Job"))
                ],
                ours: Self.laptop, theirs: Self.phone
            ).cards[Self.id] ?? nil)
        // One device settles the conflict by picking "Job"; the other edits the colour.
        #expect(
            ConflictResolver.choices(in: conflicted, field: "title").map(\.value) == [.string("Work"), .string("Job")])
        let resolved = try #require(try ConflictResolver.resolve(conflicted, field: "title", .pick(2)))
        #expect(resolved.title == "Job")
        #expect(resolved.fields["conflicts"] == nil)
        var recoloured = conflicted
        recoloured.color = "teal"
        let merged = DeckMerger.merge(
            [Self.id: CardVersions(base: conflicted, ours: resolved, theirs: recoloured)], ours: Self.phone,
            theirs: Self.laptop)
        let card = try #require(merged.cards[Self.id] ?? nil)
        #expect(card.title == "Job" && card.color == "teal")
        #expect(card.fields["conflicts"] == nil, "a settled conflict must not come back")
    }

    @Test func deletionRecordAndResolveKeepOrDelete() throws {
        let edited = Self.card(title: "Edited")
        let result = DeckMerger.merge(
            [Self.id: CardVersions(base: Self.card(title: "Old"), ours: nil, theirs: edited)],
            ours: Self.laptop, theirs: Self.phone, policy: .keep)
        let card = try #require(result.cards[Self.id] ?? nil)
        let record = try #require(ConflictRecord.records(in: card).first)
        #expect(record.isDeletion && record.deletedIn == Self.laptop.commit && record.editedIn == Self.phone.commit)
        #expect(
            result.decisions.first?.trailers == [
                "Card-Conflict: \(Self.id) kept edited card from \(Self.phone.commit) over delete in \(Self.laptop.commit)"
            ])
        let kept = try #require(try ConflictResolver.resolve(card, field: "*", .keep))
        #expect(kept.fields["conflicts"] == nil && kept.title == "Edited")
        #expect(try ConflictResolver.resolve(card, field: "*", .delete) == nil)

        let dropped = DeckMerger.merge(
            [Self.id: CardVersions(base: Self.card(title: "Old"), ours: nil, theirs: edited)],
            ours: Self.laptop, theirs: Self.phone, policy: .delete)
        #expect(dropped.cards[Self.id] == .some(nil))
        #expect(dropped.decisions.first?.restoreCommit == Self.phone.commit)
        #expect(dropped.decisions.first?.trailers.first?.contains(Self.phone.commit) == true)
    }

    @Test func resolveErrorsSayWhatToDo() throws {
        let card = try #require(
            DeckMerger.merge(
                [
                    Self.id: CardVersions(
                        base: Self.card(title: "Old"), ours: Self.card(title: "Work"), theirs: Self.card(title: "Job"))
                ],
                ours: Self.laptop, theirs: Self.phone
            ).cards[Self.id] ?? nil)
        func failure(_ field: String, _ resolution: ConflictResolution) -> String? {
            do {
                _ = try ConflictResolver.resolve(card, field: field, resolution)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(
            failure("color", .pick(1))
                == "card \(Self.id), field color: no conflict recorded for this field; open conflicts: title")
        #expect(failure("title", .pick(3)) == "card \(Self.id), field title: no choice 3; choose 1 to 2")
        #expect(failure("title", .pick(0)) != nil)
        #expect(failure("*", .keep)?.contains("no deleted-versus-edited conflict; open conflicts: title") == true)
        #expect(failure("*", .delete)?.contains("--field F --pick N, or --field F --keep") == true)
        // --field F --keep: the value the merge kept stays, the record goes.
        let kept = try #require(try ConflictResolver.resolve(card, field: "title", .keep))
        #expect(kept.title == card.title && ConflictRecord.records(in: kept).isEmpty)
    }

    @Test("a record written by hand with no values: nothing to pick, kept as it is with --keep")
    func recordWithoutValues() throws {
        var card = Self.card(title: "Still here")
        card.fields["conflicts"] = .array([.object(["field": .string("title")])])
        #expect(ConflictResolver.choices(in: card, field: "title").isEmpty)
        do {
            _ = try ConflictResolver.resolve(card, field: "title", .pick(1))
            Issue.record("a pick among no values was taken")
        } catch {
            #expect(error.description.contains("no values to choose from") && error.description.contains("--keep"))
        }
        let kept = try #require(try ConflictResolver.resolve(card, field: "title", .keep))
        #expect(kept.title == "Still here" && kept.fields["conflicts"] == nil)
    }

    @Test func removedValueRecordAndResolveToRemoval() throws {
        var base = Self.card(title: "T")
        base.platformName = "GitHub"
        var ours = base
        ours.platformName = ""
        var theirs = base
        theirs.platformName = "GitLab"
        let result = DeckMerger.merge(
            [Self.id: CardVersions(base: base, ours: ours, theirs: theirs)], ours: Self.laptop, theirs: Self.phone)
        let card = try #require(result.cards[Self.id] ?? nil)
        #expect(card.fields["platformName"] == nil)  // the removal was later
        let record = try #require(ConflictRecord.records(in: card).first)
        #expect(record.kept == nil)
        #expect(
            record.values == [
                ConflictValue(value: nil, commit: Self.laptop.commit),
                ConflictValue(value: .string("GitLab"), commit: Self.phone.commit),
            ])
        #expect(
            record.json["values"]?.arrayValue?.first
                == .object(["commit": .string(Self.laptop.commit), "removed": .bool(true)]))
        #expect(
            result.decisions.first?.trailers.last
                == "Card-Conflict: \(Self.id) platformName kept (removed) over \"GitLab\"")
        let picked = try ConflictResolver.resolve(card, field: "platformName", .pick(2))
        #expect(picked?.platformName == "GitLab")
    }

    @Test("a deleted-versus-edited line names commits by 7 hex digits; its trailer keeps them whole")
    func deletedVersusEditedIds() {
        let deletedIn = String(repeating: "a", count: 40)
        let editedIn = String(repeating: "b", count: 40)
        let kept = DecisionText.keptEdited(
            id: Self.id, label: "\"Card\"", editedIsOurs: true, deletedIn: deletedIn, editedIn: editedIn)
        #expect(kept.summary.contains("(aaaaaaa)") && kept.summary.contains("(bbbbbbb)"), "\(kept.summary)")
        #expect(!kept.summary.contains(deletedIn) && !kept.summary.contains(editedIn))
        #expect(kept.trailers.allSatisfy { $0.contains(deletedIn) && $0.contains(editedIn) })
        let deleted = DecisionText.deletedEdited(
            id: Self.id, label: "\"Card\"", editedIsOurs: false, deletedIn: deletedIn, editedIn: editedIn)
        #expect(deleted.summary.contains("(aaaaaaa)") && !deleted.summary.contains(deletedIn), "\(deleted.summary)")
        // The edited version's commit stays whole: it is what `cards restore` takes.
        #expect(deleted.summary.contains(editedIn) && deleted.restoreCommit == editedIn)
    }

    @Test("a value shown in a decision: its canonical JSON text, cut to 60 characters, for short plain titles too")
    func shownValues() {
        var random = SplitMix64(seed: 5)
        let alphabet = Array("abcXYZ 019\"\\/\u{7F}\u{1}é😀…")
        for round in 0..<2_000 {
            let length = Int.random(in: 0...70, using: &random)
            let plain = round % 2 == 0
            let text = String(
                (0..<length).map { _ in
                    plain
                        ? Character(UnicodeScalar(UInt8.random(in: 0x20...0x7E, using: &random)))
                        : alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                })
            let canonical = JSONValue.string(text).canonicalText()
            let scalars = canonical.unicodeScalars
            var expected = canonical
            if scalars.count > 60 {
                var short = String.UnicodeScalarView()
                short.append(contentsOf: scalars.prefix(59))
                expected = String(short) + "…"
            }
            #expect(DecisionText.show(.string(text)) == expected, "round \(round): \(text.debugDescription)")
        }
    }
}
