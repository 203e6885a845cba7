import CardModel
import DeckMerge
import GitCore
import SystemCalls

/// The plan of one merge of `theirs` into `ours` (`Deck.planMerge`), made in phases called in this
/// order: `init` reads the two tips and their merge base, `findDisagreements` walks the three trees,
/// `readCardsAhead` reads the versions of the changed cards, `decide` settles each path the sides
/// disagree on, `mergeCards` merges the cards field by field, `takeMergedCards` and `takePickedFiles`
/// list the result's files, `makeChange` makes the commit's change of them, and `leftovers` hands what
/// was read over to be freed.
struct MergePlanner {
    /// A path the sides disagree on: its entries, and its card id when it is a card.
    typealias Disagreement = (path: String, entries: Deck.MergeEntries, card: String?)

    /// The deck merged into.
    let deck: Deck
    /// Our tip (`main`).
    let ours: ObjectID
    /// The tip merged in.
    let theirs: ObjectID
    /// How the merge names `theirs` (a branch, a remote-tracking ref, a commit id).
    let theirsName: String
    /// What to do with a card deleted on one side and edited on the other.
    let policy: MergePolicy
    /// Our tip's commit.
    let oursCommit: Commit
    /// Their tip's commit.
    let theirsCommit: Commit
    /// The merge base (`chooseMergeBase`), nil when the histories share none.
    let base: ObjectID?
    /// The merge base's tree (nil: an empty base).
    let baseTree: ObjectID?
    /// Our side, for the card merge.
    let oursSide: MergeSide
    /// Their side, for the card merge.
    let theirsSide: MergeSide
    /// The side whose tip is later (then the larger id) wins a file that is not a card: the same on both devices.
    let theirsWins: Bool
    /// The trees the walk read, as raw bytes: the new tree is spliced from them (`DeckChange.trees`).
    let trees: RawTreeCache

    /// The walk's changed paths.
    private(set) var changes: [TreeWalkChange] = []
    /// The paths the sides disagree on, in the walk's order (the paths' bytes, as git orders them, the
    /// same on every device). Kept as a list: keyed by `String` (Unicode canonical equivalence), two
    /// files whose names differ only in normalization were one, and one's change landed in the other.
    /// Each with its card id when it is a card (worked out once: both loops below ask).
    private(set) var disagreeing: [Disagreement] = []
    /// Each changed card's entries, by card id (card paths are ASCII, one path an id).
    private var cardEntries: [String: Deck.MergeEntries] = [:]
    /// Every card version `decide` reads, read and decoded ahead (`readCardsAhead`), but for those `listed`.
    private var ahead: [Deck.VersionKey: Deck.Version] = [:]
    /// The titles of the versions of cards one side changed that read as `CardListing` reads them
    /// (canonical, valid), read ahead and not decoded: such a card is decided from them (`decideFromTitles`).
    private var listed: [Deck.VersionKey: String] = [:]
    /// The decisions made from titles, for cards one side changed: `DeckMerger` never sees these cards.
    private var decidedFromTitles: [CardDecision] = []
    /// The bytes of the blobs read ahead, by blob id: a side's file taken as it is.
    private var aheadBytes: [ObjectID: [UInt8]] = [:]
    /// The three versions of each card to merge field by field, by card id.
    private var versions: [String: CardVersions] = [:]
    /// Each file with the blob already stored for it, if any (`DeckChange.storedBlobs`).
    private var files: [(path: String, content: [UInt8]?, stored: ObjectID?, mode: UInt32)] = []
    /// Files that are no cards, changed on both sides in ways that do not fit together: the merge stops.
    private var conflictedFiles: [String] = []
    /// Entries carried into the tree and the index only (`notCheckedOut`).
    private var outside: Set<String> = []
    /// What the merge did, as it is decided.
    private(set) var report = MergeReport(kind: .merged, decisions: [], invalid: [])
    /// Entries taken whole from one side (a file that is no card, an invalid card's file), with ours.
    private var rawPicks: [(path: String, entry: TreeEntry?, ours: TreeEntry?)] = []
    /// Cards merged from a side's last valid version: its file is not the merge's result.
    private var recoveredCards: Set<String> = []
    /// The cards the merge took from one side whole, by card id (`.tookOurs`, `.tookTheirs`).
    private var sideTaken: [String: CardDecision.Kind] = [:]

    /// Reads both tips and their merge base (`base` when given: a rebase replays one commit of theirs
    /// against its parent, as `git cherry-pick` does): the first phase.
    init(
        deck: Deck, ours: ObjectID, theirs: ObjectID, theirsName: String, policy: MergePolicy,
        base givenBase: ObjectID?? = nil, trees: RawTreeCache = RawTreeCache()
    ) throws(StoreError) {
        self.deck = deck
        self.trees = trees
        self.ours = ours
        self.theirs = theirs
        self.theirsName = theirsName
        self.policy = policy
        oursCommit = try withStoreError("reading \(ours.short)") { () throws(GitError) in
            try deck.repository.commit(ours)
        }
        theirsCommit = try withStoreError("reading \(theirs.short)") { () throws(GitError) in
            try deck.repository.commit(theirs)
        }
        let base: ObjectID?
        if let givenBase { base = givenBase } else { base = try deck.chooseMergeBase(ours, theirs) }
        self.base = base
        baseTree = try base.map { (id) throws(StoreError) in
            try withStoreError("reading \(id.short)") { () throws(GitError) in try deck.repository.commit(id).tree }
        }
        oursSide = MergeSide(commit: ours.hex, time: oursCommit.committer.time)
        theirsSide = MergeSide(commit: theirs.hex, time: theirsCommit.committer.time)
        theirsWins = (theirsSide.time, theirsSide.commit) > (oursSide.time, oursSide.commit)
    }

    /// Walks the three trees and keeps the paths the sides disagree on (`disagreeing`).
    mutating func findDisagreements() throws(StoreError) {
        // One walk of the three trees: a folder that ours and theirs share is skipped unread, and each
        // changed folder is read once, not once per side.
        changes = try withStoreError("comparing with the merge base") { () throws(GitError) in
            try deck.repository.changedLeaves(
                [baseTree, oursCommit.tree, theirsCommit.tree], comparing: (1, 2), cache: trees)
        }
        disagreeing = changes.compactMap { change -> Disagreement? in
            let entries = (base: change.entries[0], ours: change.entries[1], theirs: change.entries[2])
            // The same object in the same mode (an executable bit is a change too, as to git).
            if Deck.sameEntry(entries.ours, entries.theirs) { return nil }
            let card = CardID.id(fromPath: change.path).flatMap { Deck.isCardEntry(entries) ? $0 : nil }
            return (change.path, entries, card)
        }
    }

    /// Reads and decodes every version of the changed cards that `decide` asks for, ahead (the decoding
    /// on two threads: `Deck.readVersionsAhead`); a card one side changed is read as listings first, and
    /// of a card one side edited only the edited version, its base only when that is no listing.
    mutating func readCardsAhead() {
        var wanted: [(key: Deck.VersionKey, listing: Bool)] = []
        wanted.reserveCapacity(3 * disagreeing.count)
        cardEntries.reserveCapacity(disagreeing.count)
        // The cards one side edited: their base, read below only if the edit reads as no listing.
        var editedBases: [(base: Deck.VersionKey, edited: Deck.VersionKey)] = []
        for (_, entries, card) in disagreeing {
            guard let id = card else { continue }
            cardEntries[id] = entries
            if let edit = MergePlanner.oneSidedEdit(entries) {
                let edited = Deck.VersionKey(blob: edit.edited.id, id: id)
                wanted.append((edited, true))
                editedBases.append((Deck.VersionKey(blob: edit.base.id, id: id), edited))
                continue
            }
            // A card one side added or deleted is decided from its versions' titles when they read as listings.
            let listing = MergePlanner.isOneSided(entries)
            // Each version's blob (no array of the three entries made for each card).
            if let base = entries.base { wanted.append((Deck.VersionKey(blob: base.id, id: id), listing)) }
            if let ours = entries.ours { wanted.append((Deck.VersionKey(blob: ours.id, id: id), listing)) }
            if let theirs = entries.theirs { wanted.append((Deck.VersionKey(blob: theirs.id, id: id), listing)) }
        }
        let packs = trees.reader(for: deck.repository)
        let read = deck.readVersionsAhead(wanted, packs: packs)
        ahead = read.versions
        aheadBytes = read.bytes
        listed = read.titles
        // An edit that is no listing (a title beyond plain ASCII, a file not in the common form) is merged
        // field by field against its base: those bases read ahead too, on two threads when many.
        let bases = editedBases.compactMap { read.titles[$0.edited] == nil ? ($0.base, false) : nil }
        guard !bases.isEmpty else { return }
        let more = deck.readVersionsAhead(bases, packs: packs)
        ahead.merge(more.versions) { first, _ in first }
        aheadBytes.merge(more.bytes) { first, _ in first }
    }

    /// The base's and the edited version's entries of a card one side edited (both sides have a file, one
    /// the base's very blob, the other another blob); nil for any other card.
    static func oneSidedEdit(_ entries: Deck.MergeEntries) -> (base: TreeEntry, edited: TreeEntry)? {
        guard isOneSided(entries), let base = entries.base, let ours = entries.ours, let theirs = entries.theirs,
            (ours.id == base.id) != (theirs.id == base.id)
        else { return nil }
        return (base, ours.id == base.id ? theirs : ours)
    }

    /// Whether one side has the base's very entry and the other does not: only that side changed the card.
    static func isOneSided(_ entries: Deck.MergeEntries) -> Bool {
        // By id and mode: entries of one path have its name (comparing the names' strings cost more than
        // the rest of the question, asked twice for each changed card).
        Deck.sameEntry(entries.ours, entries.base) != Deck.sameEntry(entries.theirs, entries.base)
    }

    /// A card one side changed, decided from titles, in `DeckMerger.mergeCard`'s words, the changed side's
    /// file taken as it is: one added or deleted when its version reads as a listing (valid, canonical),
    /// one edited when the edited version does. False (nothing done) for any other card.
    ///
    /// An edit's base is not read: a listed version is a valid card, and a file whose bytes differ from
    /// the base's is an edit, as git sees it. (`DeckMerger` compares the decoded cards, and calls a
    /// base in another layout with the same fields "unchanged", or leaves an invalid base's card
    /// undecided; either way the changed side's file was what the merge took.)
    private mutating func decideFromTitles(_ path: String, _ entries: Deck.MergeEntries, id: String) -> Bool {
        guard MergePlanner.isOneSided(entries) else { return false }
        let oursChanged = Deck.sameEntry(entries.theirs, entries.base)
        let changed = oursChanged ? entries.ours : entries.theirs
        // A changed mode alone is the same card (`DeckMerger` says unchanged).
        guard changed?.id != entries.base?.id else { return false }
        func title(_ entry: TreeEntry) -> String? { listed[Deck.VersionKey(blob: entry.id, id: id)] }
        // Their version's file as it was read (a listed version's bytes are always kept).
        let theirsBytes = oursChanged ? nil : entries.theirs.flatMap { aheadBytes[$0.id] }
        if !oursChanged && entries.theirs != nil && theirsBytes == nil { return false }
        let change: DeckMerger.OneSidedChange
        var changedTitle = ""
        var baseTitle = ""
        switch (entries.base, changed) {
        case (nil, nil): return false
        case (nil, let added?):
            guard let title = title(added) else { return false }
            (change, changedTitle) = (.added, title)
        case (let base?, nil):
            guard let title = title(base) else { return false }
            (change, baseTitle) = (.deleted, title)
        case (_?, let edited?):
            // A listed title is never empty: the edit is named by it, the base's not needed.
            guard let title = title(edited) else { return false }
            (change, changedTitle) = (.edited, title)
        }
        decidedFromTitles.append(
            DeckMerger.oneSidedDecision(
                id: id, change, byOurs: oursChanged, changedTitle: changedTitle, baseTitle: baseTitle))
        // Ours is the merge's starting point: only their change is a file to write.
        if !oursChanged { files.append((path, theirsBytes, entries.theirs?.id, TreeUpdate.fileMode)) }
        return true
    }

    /// Settles one path the sides disagree on: refused, left out and named, a card's versions to merge,
    /// or a file to take from one side or merge line by line.
    mutating func decide(_ disagreement: Disagreement) throws(StoreError) {
        let (path, entries, card) = disagreement
        // A path into .git refuses the merge; a folder where this deck has a card file stays out.
        if entries.theirs != nil { try deck.refuseUnsafePath(path, theirsName: theirsName) }
        if let incoming = entries.theirs, incoming.id != entries.base?.id || incoming.kind != entries.base?.kind,
            let reason = deck.quarantineReason(path: path, oursTree: oursCommit.tree)
        {
            report.otherFiles.append("\(path): not taken from \(theirsName): \(reason)")
            return
        }
        if let id = card {
            try decideCard(path, entries, id: id)
        } else {
            try decideFile(path, entries)
        }
    }

    /// A card both sides' versions of which are read: its versions merged field by field, or, when a
    /// version is invalid, a side's last valid version merged instead or one side's file kept.
    private mutating func decideCard(_ path: String, _ entries: Deck.MergeEntries, id: String) throws(StoreError) {
        if decideFromTitles(path, entries, id: id) { return }
        // A side that did not change the card has the base's blob: read it once.
        let original = try readVersion(entries.base, path: path, id: id)
        let mine = entries.ours == entries.base ? original : try readVersion(entries.ours, path: path, id: id)
        let other =
            entries.theirs == entries.base
            ? original
            : entries.theirs == entries.ours ? mine : try readVersion(entries.theirs, path: path, id: id)
        let theirsChanged = entries.theirs?.id != entries.base?.id
        let oursChanged = entries.ours?.id != entries.base?.id
        // Both changed the card, one side's file is broken: that side's last valid version since the
        // base (a `cards edit` before a hand edit broke it) merges with the other side's change, so
        // neither edit is lost; the broken file is set aside and named.
        if oursChanged && theirsChanged, mine.isInvalid != other.isInvalid, mine.card ?? other.card != nil,
            let recovered = deck.lastValidVersion(
                path: path, id: id, from: mine.isInvalid ? ours : theirs, base: base,
                baseBlob: entries.base?.id)
        {
            guard case .invalid(let reason) = mine.isInvalid ? mine : other else { return }
            report.setAside.append(
                InvalidVersion(
                    path: path, reason: reason, isOurs: mine.isInvalid, commit: mine.isInvalid ? ours : theirs))
            versions[id] = CardVersions(
                base: original.card, ours: mine.card ?? recovered, theirs: other.card ?? recovered)
            recoveredCards.insert(id)
            return
        }
        if mine.isInvalid || other.isInvalid {
            // Keep an invalid file as it came, so status and fsck show it until someone fixes it; but
            // a valid change the other side made to the card wins over it (the invalid file stays
            // in history), so that no edit is lost to a broken file.
            var invalidVersions: [InvalidVersion] = []
            if case .invalid(let reason) = mine, oursChanged {
                invalidVersions.append(InvalidVersion(path: path, reason: reason, isOurs: true, commit: ours))
            }
            if case .invalid(let reason) = other, theirsChanged {
                invalidVersions.append(InvalidVersion(path: path, reason: reason, isOurs: false, commit: theirs))
            }
            let pick = Deck.pickInvalid(entries, mine: mine, other: other, theirsWins: theirsWins)
            for version in invalidVersions {
                let kept = pick?.id == (version.isOurs ? entries.ours : entries.theirs)?.id
                if kept { report.invalid.append(version) } else { report.setAside.append(version) }
            }
            rawPicks.append((path, pick, entries.ours))
            return
        }
        // A broken base (both sides since wrote valid cards): the sides merge as two additions.
        var cardVersions = CardVersions(base: original.card, ours: mine.card, theirs: other.card)
        // The same blob as the base's: the same bytes, no need to compare the decoded cards.
        cardVersions.oursIsBase = entries.base != nil && entries.ours == entries.base
        cardVersions.theirsIsBase = entries.base != nil && entries.theirs == entries.base
        versions[id] = cardVersions
    }

    /// A card version: decoded ahead, or read ahead as a listing and decoded now (its card not decided
    /// from titles after all), or read now.
    private func readVersion(_ entry: TreeEntry?, path: String, id: String) throws(StoreError) -> Deck.Version {
        if let entry, entry.kind == .blob, ahead[Deck.VersionKey(blob: entry.id, id: id)] == nil,
            let bytes = aheadBytes[entry.id]
        {
            return Deck.version(bytes, id: id)
        }
        return try deck.readVersion(entry, path: path, id: id, ahead: ahead)
    }

    /// A file that is no card: one side's version picked, or both merged line by line, or a conflict
    /// that stops the merge (`conflictedFiles`).
    private mutating func decideFile(_ path: String, _ entries: Deck.MergeEntries) throws(StoreError) {
        // Not a card: merged as git merges it. One side's change wins; a file both sides changed
        // is merged line by line, and changes that overlap stop the merge (`conflictedFiles`);
        // deleted on one side and changed on the other, the changed version stays (nothing is lost:
        // the deletion can be made again, an edit could not be got back from a merge that dropped it).
        let pick: TreeEntry?
        if Deck.sameEntry(entries.ours, entries.base) {
            pick = entries.theirs
        } else if Deck.sameEntry(entries.theirs, entries.base) {
            pick = entries.ours
        } else if let mine = entries.ours, let other = entries.theirs {
            if path == Deck.metadataPath, let merged = try mergeDescription(entries, ours: mine, theirs: other) {
                files.append((path, merged, nil, TreeUpdate.fileMode))
                return
            }
            if let merged = try deck.mergeFileLines(path, base: entries.base, ours: mine, theirs: other) {
                files.append((path, merged.bytes, nil, merged.mode))
                report.otherFiles.append("\(path): changed on both sides, merged line by line")
                return
            }
            guard path == Deck.metadataPath else {
                conflictedFiles.append(path)
                return
            }
            // The deck's own settings (its name): the later tip's, as a card field's conflict is
            // settled, named; the other version stays in its history.
            pick = theirsWins ? other : mine
            report.otherFiles.append(
                "\(path): changed on both sides, kept the version from \(theirsWins ? theirsName : "this deck")"
            )
        } else {
            pick = entries.ours ?? entries.theirs
            report.otherFiles.append(
                "\(path): deleted on \(entries.ours == nil ? "this deck" : theirsName) and changed on "
                    + "\(entries.ours == nil ? theirsName : "this deck"): kept the changed version")
        }
        // A file under cards/ that is no card file (a wrong name; a folder where a card file belongs,
        // when this deck has no card of that name) comes in as it is, and is named as an invalid card
        // is: status and fsck show it until fixed.
        if let pick, pick.id != entries.ours?.id || pick.kind != entries.ours?.kind,
            let judged = Deck.judgedEntries([path]).first, judged != Deck.cardsFolder,
            !report.invalid.contains(where: { $0.path == judged })
        {
            let problem = DeckSnapshot.problem(judged, kind: judged == path ? pick.kind : .tree)
            report.invalid.append(
                InvalidVersion(path: judged, reason: problem.reason, isOurs: false, commit: theirs))
        }
        rawPicks.append((path, pick, entries.ours))
    }

    /// `deck.json` changed on both sides merged field by field (`DescriptionMerge`: the name, each member
    /// of the owner), the members both set differently named in the report; nil when a side's file is
    /// not a deck description this version reads (then merged as any other file).
    private mutating func mergeDescription(_ entries: Deck.MergeEntries, ours: TreeEntry, theirs: TreeEntry)
        throws(StoreError) -> [UInt8]?
    {
        func parsed(_ entry: TreeEntry?) throws(StoreError) -> JSONValue? {
            guard let entry, entry.kind == .blob else { return nil }
            let bytes = try withStoreError("reading \(Deck.metadataPath)") { () throws(GitError) in
                try deck.repository.readBlob(entry.id, limit: Card.maximumFileSize)
            }
            return Deck.isDeckDescription(bytes) ? try? JSONValue.parse(bytes) : nil
        }
        guard let mine = try parsed(ours), let other = try parsed(theirs) else { return nil }
        let base = try parsed(entries.base)
        let (merged, conflicts) = DescriptionMerge.merge(base: base, ours: mine, theirs: other, theirsWins: theirsWins)
        let bytes = merged.canonicalBytes()
        guard Deck.isDeckDescription(bytes) else { return nil }
        let path = Deck.metadataPath
        if conflicts.isEmpty {
            report.otherFiles.append("\(path): changed on both sides, merged field by field")
        } else {
            let kept = theirsWins ? theirsName : "this deck"
            report.otherFiles.append(
                "\(path): changed on both sides, merged field by field; \(conflicts.joined(separator: ", ")) "
                    + "set on both: kept the value from \(kept)")
        }
        return bytes
    }

    /// Stops the merge on files both sides changed in ways that do not fit together; else merges the
    /// cards field by field (`DeckMerger`), the decisions into the report.
    mutating func mergeCards() throws(StoreError) -> DeckMergeResult {
        if !conflictedFiles.isEmpty { throw Deck.fileConflictError(conflictedFiles, theirsName: theirsName) }
        let result = DeckMerger.merge(versions, ours: oursSide, theirs: theirsSide, policy: policy)
        // In id order, as `DeckMerger` orders its own (ids are unique: a card is decided one way or the other).
        report.decisions =
            decidedFromTitles.isEmpty
            ? result.decisions
            : (result.decisions + decidedFromTitles).sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        for decision in result.decisions where decision.kind == .tookOurs || decision.kind == .tookTheirs {
            sideTaken[decision.id] = decision.kind
        }
        return result
    }

    /// Lists the merged cards that differ from ours among the result's files: a side's file as it is
    /// where that side's version was taken, else the merged card's bytes.
    mutating func takeMergedCards(_ result: DeckMergeResult) {
        for (id, card) in result.cards {
            let path = CardID.path(for: id)
            // Changed (or added) on one side only: that side's file as it is, as git takes it, not
            // encoded and hashed again (most of a merge's cards; ~5 ms of a 1000+1000 merge at 100k).
            if card != nil, !recoveredCards.contains(id), let taken = sideTaken[id] {
                if taken == .tookOurs { continue }
                if let theirs = cardEntries[id]?.theirs, let bytes = aheadBytes[theirs.id] {
                    files.append((path, bytes, theirs.id, TreeUpdate.fileMode))
                    continue
                }
            }
            let newBytes = card?.encoded()
            // Each side was valid, but what the merge adds (a conflict record wraps a value two levels deeper
            // and keeps both) can take a card past a limit: kept as merged, named, for a person to fix.
            if let newBytes, card?.conflicts.isEmpty == false, sideTaken[id] == nil || recoveredCards.contains(id) {
                do {
                    _ = try Card.decode(newBytes, expectedID: id)
                } catch {
                    report.invalid.append(
                        InvalidVersion(
                            path: path,
                            reason: "the merged card breaks a card rule (\(error)); fix it, then `cards commit`",
                            isOurs: true, commit: ours))
                }
            }
            let newID = newBytes.map(ObjectID.blobHash(of:))
            let entries = cardEntries[id]
            if entries?.ours?.id == newID && (entries?.ours == nil) == (newBytes == nil) { continue }
            // Their version (or the base's) taken as it is: already stored, not written again.
            let stored = newID.flatMap { $0 == entries?.theirs?.id || $0 == entries?.base?.id ? $0 : nil }
            files.append((path, newBytes, stored, TreeUpdate.fileMode))
        }
    }

    /// Lists the entries taken whole from one side that differ from ours among the result's files:
    /// left out when they may not come in, carried unread when the working tree does not hold them.
    mutating func takePickedFiles() throws(StoreError) {
        for (path, entry, ours) in rawPicks where !Deck.sameEntry(entry, ours) {
            guard let entry else {
                files.append((path, nil, nil, TreeUpdate.fileMode))
                continue
            }
            if let reason = deck.quarantineReason(path: path, oursTree: oursCommit.tree) {
                report.otherFiles.append("\(path): not taken from \(theirsName): \(reason)")
                continue
            }
            // A link or a submodule goes into the tree as it came, unread (a submodule's commit is not
            // even in this repository); a file is read for the working tree.
            if let reason = deck.notCheckedOut(entry) {
                report.otherFiles.append(Deck.carriedNote(path, reason))
                outside.insert(path)
                files.append((path, [], entry.id, entry.mode))
                continue
            }
            let bytes = try withStoreError("reading \(path)") { () throws(GitError) in
                try deck.repository.readBlob(entry.id)
            }
            files.append((path, bytes, entry.id, entry.mode))
        }
    }

    /// The merge commit's change: the result's files in git's order, and a message that counts the
    /// changed cards and conflicts, with the card merge's trailers and those of invalid files.
    mutating func makeChange(_ result: DeckMergeResult) -> DeckChange {
        files.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        // Split at the first colon by bytes (a merge of 2,000 cards has 2,000 of these lines; searching
        // them by `Character` was most of building the message).
        var trailers: [(String, String)] = report.decisions.flatMap(\.trailers).compactMap { line in
            guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let value = line.utf8[line.utf8.index(after: colon)...].drop { $0 == UInt8(ascii: " ") }
            return (String(line[..<colon]), String(decoding: value, as: UTF8.self))
        }
        for version in report.invalid { trailers.append(("Card-Invalid", "\(version.path) kept as it came")) }
        for version in report.setAside {
            trailers.append(("Card-Invalid", "\(version.path) of \(version.commit.hex) set aside for the valid change"))
        }
        trailers.append(("Op", "merge"))
        let changed = report.decisions.filter { $0.kind != .unchanged }.count + report.changedWithoutDecision
        let conflicts = result.newConflicts.count
        report.conflicts = conflicts
        var body = "\(changed) card\(changed == 1 ? "" : "s") changed on either side"
        body += conflicts > 0 ? ", \(conflicts) with conflicts recorded (see `cards conflicts`)." : ", no conflicts."
        let message = CommitMessage(subject: "Merge \(theirsName) into main", body: body, trailers: trailers)
        var change = DeckChange(files: files.map { ($0.path, $0.content) }, message: message)
        change.trees = trees
        for (position, file) in files.enumerated() {
            change.storedBlobs[position] = file.stored
            if file.mode != TreeUpdate.fileMode { change.modes[position] = file.mode }
            if outside.contains(file.path) { change.outsideWorkingTree.insert(position) }
        }
        return change
    }

    /// What the planning read and decoded, moved out of the planner (which keeps none of it) for
    /// `Background.release` to free: the last reference to each is then the one handed over.
    mutating func leftovers(_ result: DeckMergeResult) -> Leftovers {
        defer {
            changes = []
            disagreeing = []
            cardEntries = [:]
            ahead = [:]
            listed = [:]
            versions = [:]
            sideTaken = [:]
        }
        return Leftovers((changes, disagreeing, cardEntries, ahead, listed, versions, result.cards, sideTaken))
    }
}
