import CardModel
import DeckMerge
import GitCore

/// What a merge of another commit into `main` did (or, on a dry run, would do).
public struct MergeReport: Sendable {
    /// How the histories related.
    public enum Kind: Sendable {
        /// Nothing to do: their commit is already in ours.
        case upToDate
        /// Ours was behind: `main` moved to theirs, no merge commit.
        case fastForward
        /// Both had changes: a two-parent merge commit.
        case merged
    }
    /// How the histories related.
    public var kind: Kind
    /// `main` after the merge (nil on a dry run, or when up to date).
    public var commit: ObjectID?
    /// One decision per card that changed on either side (empty for a fast-forward).
    public var decisions: [CardDecision]
    /// Card files that failed validation and are in the result as they came (fix them, then
    /// `cards commit`): a side changed the card and the other did not, or both broke it.
    public var invalid: [InvalidVersion]
    /// Invalid versions the result does not keep, because the other side changed the card validly: that
    /// change is kept, the invalid file stays in history (`git show COMMIT:PATH`).
    public var setAside: [InvalidVersion] = []
    /// Other files (not cards) changed on both sides, and which version was kept.
    public var otherFiles: [String] = []
    /// How many cards got a conflict record (the count the merge commit's message gives).
    public var conflicts = 0

    /// Cards whose broken file was set aside for the other side's change without a merge of fields (no
    /// decision names them): changed cards all the same.
    public var changedWithoutDecision: Int {
        let decided = Set(decisions.filter { $0.kind != .unchanged }.map(\.id))
        return Set(setAside.compactMap { CardID.id(fromPath: $0.path) }).subtracting(decided).count
    }
}

/// A version of a card file that a merge found invalid.
public struct InvalidVersion: Sendable, Hashable, CustomStringConvertible {
    /// The path inside the deck (`cards/3f/….json`).
    public var path: String
    /// Why it is not a valid card.
    public var reason: String
    /// Whether it is this deck's version (else the merged commit's).
    public var isOurs: Bool
    /// The tip of the side that has it.
    public var commit: ObjectID

    /// Creates the record.
    public init(path: String, reason: String, isOurs: Bool, commit: ObjectID) {
        self.path = path
        self.reason = reason
        self.isOurs = isOurs
        self.commit = commit
    }

    /// "path: reason".
    public var description: String { "\(path): \(reason)" }
}

extension Deck {
    /// Merges the commit a branch, tag, remote-tracking ref (`origin/main`, after `fetch`) or commit id
    /// names, as `merge(theirs:)` does; `.invalidInput` naming `reference` when it names no commit.
    public func merge(reference: String, policy: MergePolicy = .keep, dryRun: Bool = false) throws(StoreError)
        -> MergeReport
    {
        guard let theirs = try resolveCommit(reference) else {
            throw StoreError(
                .invalidInput,
                "'\(reference)' names no commit in this deck (a remote's main is there once fetched: `fetch(remote:)`)")
        }
        return try merge(theirs: theirs, theirsName: reference, policy: policy, dryRun: dryRun)
    }

    /// The commit `reference` names (a branch, tag, remote-tracking ref or commit id), or nil.
    public func resolveCommit(_ reference: String) throws(StoreError) -> ObjectID? {
        try withStoreError("reading '\(reference)'") { () throws(GitError) in try repository.resolveCommit(reference) }
    }

    /// Merges the commit `theirs` into `main`: up to date, fast-forward, or a two-parent merge commit
    /// (ours first) built card by card and field by field (the README's Merging), the working tree and index
    /// brought along, then published by compare-and-swap. Only cards that changed on either side are read.
    /// `dryRun` decides everything and writes nothing.
    /// Histories that share no commit are refused, as `git merge` refuses them, unless
    /// `allowUnrelatedHistories` (two decks made apart and joined on purpose).
    public func merge(
        theirs: ObjectID, theirsName: String, policy: MergePolicy, dryRun: Bool, allowUnrelatedHistories: Bool = false
    ) throws(StoreError) -> MergeReport {
        try refuseNewerFormat(
            at: theirs, holder: "\(theirsName) holds a deck", outcome: "nothing was merged: update cards, then merge")
        try checkHistoryIsWhole(doing: "merging \(theirsName)")
        let ours = try headCommit()
        if let ours {
            if ours == theirs { return MergeReport(kind: .upToDate, decisions: [], invalid: []) }
            let contained = try withStoreError("comparing histories") { () throws(GitError) in
                try repository.isDescendant(ours, of: theirs)
            }
            if contained { return MergeReport(kind: .upToDate, decisions: [], invalid: []) }
        }
        let behind: Bool
        if let ours {
            behind = try withStoreError("comparing histories") { () throws(GitError) in
                try repository.isDescendant(theirs, of: ours)
            }
        } else {
            behind = true
        }
        // A fast-forward takes their tree whole: only when nothing in it must be kept out (else a merge
        // commit takes the rest and leaves those entries out).
        var hostile: [String] = []
        if behind {
            let theirsTree = try withStoreError("reading \(theirs.short)") { () throws(GitError) in
                try repository.commit(theirs).tree
            }
            let oursTree = try ours.map { (id) throws(StoreError) in
                try withStoreError("reading \(id.short)") { () throws(GitError) in try repository.commit(id).tree }
            }
            hostile = try quarantinedEntries(from: oursTree, to: theirsTree, theirsName: theirsName)
            if !hostile.isEmpty && ours == nil {
                throw StoreError(
                    .invalidInput,
                    "\(theirsName) holds entries a deck does not take in:\n  " + hostile.joined(separator: "\n  "))
            }
        }
        if behind && hostile.isEmpty {
            if dryRun { return MergeReport(kind: .fastForward, decisions: [], invalid: []) }
            let (commit, invalid, carried) = try fastForward(to: theirs, from: ours, theirsName: theirsName)
            let versions = invalid.map {
                InvalidVersion(path: $0.path, reason: $0.reason, isOurs: false, commit: theirs)
            }
            var report = MergeReport(kind: .fastForward, commit: commit, decisions: [], invalid: versions)
            report.otherFiles = carried
            return report
        }
        if let ours, !allowUnrelatedHistories, try chooseMergeBase(ours, theirs) == nil {
            throw StoreError(
                .sync,
                "\(theirsName) shares no history with this deck: it was rewritten (a force push) or is another "
                    + "deck; nothing was changed. If you mean to join the two decks, run the command again with "
                    + "--allow-unrelated-histories; if \(theirsName) was rewritten on purpose, make a fresh clone")
        }
        var report = MergeReport(kind: .merged, decisions: [], invalid: [])
        let build = { (snapshot: DeckSnapshot) throws(StoreError) -> DeckChange? in
            guard let oursCommit = snapshot.commit else { return nil }
            let plan = try self.planMerge(ours: oursCommit, theirs: theirs, theirsName: theirsName, policy: policy)
            report = plan.report
            return plan.change
        }
        if dryRun {
            _ = try build(try snapshot())
            return report
        }
        let outcome = try commitChange(parents: [theirs], build)
        report.commit = outcome?.commit
        return report
    }

    /// Moves `main` forward to `target` (a descendant of `current`, named `theirsName` in the reflog, as
    /// git names it), then the changed files.
    /// Returns the files it brought in that are not valid cards, and the notes on entries it took into
    /// the tree and index without checking them out.
    func fastForward(to target: ObjectID, from current: ObjectID?, theirsName: String) throws(StoreError) -> (
        ObjectID, invalid: [CardProblem], carried: [String]
    ) {
        let lock = try DeckLock(path: "\(gitDirectory)/cards.lock", timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        try checkNoUnfinishedGitOperation()
        try recoverInterruptedWrite()
        let oldTree = try current.map { (id) throws(StoreError) in
            try withStoreError("reading \(id.short)") { () throws(GitError) in try repository.commit(id).tree }
        }
        let newTree = try withStoreError("reading \(target.short)") { () throws(GitError) in
            try repository.commit(target).tree
        }
        let changes = try withStoreError("comparing trees") { () throws(GitError) in
            try TreeDiff.changes(in: repository, from: oldTree, to: newTree)
        }
        // What comes into the working tree (a path a deck may write), filtered once for every step below.
        let incoming = changes.filter { Deck.isSafeWorkingPath($0.path) }
        let paths = incoming.map(\.path)
        if !isBare {
            let snapshot = try snapshot()
            try checkNoHandEdits(incoming.map { change in (change.path, { change.new?.id }) }, snapshot: snapshot)
        }
        // Only what is written out takes room in the working tree.
        var carried: [String] = []
        var sizes: [Int?] = []
        for change in incoming {
            guard let entry = change.new else { continue }
            if let reason = notCheckedOut(entry) {
                carried.append(Deck.carriedNote(change.path, reason))
            } else {
                sizes.append((try? repository.objectSize(entry.id)) ?? Deck.maximumIncomingFileSize)
            }
        }
        try checkSpace(forFileSizes: sizes)
        let deadline = DeckLock.now() + lockTimeout
        if !isBare { try waitForIndex(deadline: deadline, expected: current != nil) }
        try markPending(incoming.map { ($0.path, $0.new?.id) })
        // The working tree and index first, then main, under git's index lock, as a commit does (`IndexLock`).
        let indexLock = isBare ? nil : try lockIndex(deadline: deadline, expected: current != nil)
        defer { indexLock?.release() }
        if !isBare {
            do {
                try updateWorkingTree(paths, snapshotTree: newTree, indexLock: indexLock)
            } catch {
                throw putBack(paths, to: oldTree, indexLock: indexLock, after: error)
            }
        }
        while true {
            do {
                try repository.updateReference(
                    branch, to: target, expected: current, logMessage: "merge \(theirsName): Fast-forward")
                break
            } catch  where error.code == .locked && DeckLock.now() < deadline {
                if !clearStaleGitLock("refs/heads/main.lock") { Deck.pause(milliseconds: 10) }
            } catch {
                let why =
                    error.code == .locked
                    ? gitLockError("refs/heads/main.lock")
                    : StoreError.git(
                        error, while: "moving main forward (another command changed the deck meanwhile; try again)")
                if isBare { clearPending() }
                throw isBare ? why : putBack(paths, to: oldTree, indexLock: indexLock, after: why)
            }
        }
        if !isBare { recordIndexFollows(target) }
        indexLock?.release()
        clearPending()
        return (target, invalidCards(amongChanged: changes.map(\.path), in: newTree), carried)
    }

    /// Whether a path from a tree may be written into the working tree: no absolute paths, no `..`,
    /// nothing inside `.git`. (libgit2 refuses such trees too; this is the second lock on the door.)
    static func isSafeWorkingPath(_ path: String) -> Bool {
        var path = path
        // Byte by byte in place, no component copied (a merge asks for every changed path, some more
        // than once): only ASCII letters lowercase to "g", "i" or "t" with 0x20 set, so ".git" in any
        // case is these four bytes.
        return path.withUTF8 { bytes in
            let slash = UInt8(ascii: "/")
            let dot = UInt8(ascii: ".")
            guard let first = bytes.first, first != slash else { return false }
            var start = 0
            for end in 0...bytes.count where end == bytes.count || bytes[end] == slash {
                let length = end - start
                if length == 0 { return false }
                if bytes[start] == dot {
                    if length == 1 || (length == 2 && bytes[start + 1] == dot) { return false }
                    if length == 4 && bytes[start + 1] | 0x20 == UInt8(ascii: "g")
                        && bytes[start + 2] | 0x20 == UInt8(ascii: "i") && bytes[start + 3] | 0x20 == UInt8(ascii: "t")
                    {
                        return false
                    }
                }
                start = end + 1
            }
            return true
        }
    }

    /// A path's entries in the merge base, ours and theirs (nil: absent).
    typealias MergeEntries = (base: TreeEntry?, ours: TreeEntry?, theirs: TreeEntry?)

    struct MergePlan {
        var change: DeckChange
        var report: MergeReport
    }

    /// Decides the merge of `theirs` into `ours` from the changed paths of the two sides against their
    /// merge base (none: an empty base), reading only the cards that changed.
    func planMerge(ours: ObjectID, theirs: ObjectID, theirsName: String, policy: MergePolicy) throws(StoreError)
        -> MergePlan
    {
        let oursCommit = try withStoreError("reading \(ours.short)") { () throws(GitError) in
            try repository.commit(ours)
        }
        let theirsCommit = try withStoreError("reading \(theirs.short)") { () throws(GitError) in
            try repository.commit(theirs)
        }
        let base = try chooseMergeBase(ours, theirs)
        let baseTree = try base.map { (id) throws(StoreError) in
            try withStoreError("reading \(id.short)") { () throws(GitError) in try repository.commit(id).tree }
        }
        // One walk of the three trees: a folder that ours and theirs share is skipped unread, and each
        // changed folder is read once, not once per side.
        let trees = RawTreeCache()
        let changes = try withStoreError("comparing with the merge base") { () throws(GitError) in
            try repository.changedLeaves(
                [baseTree, oursCommit.tree, theirsCommit.tree], comparing: (1, 2), cache: trees)
        }
        // The paths the sides disagree on, in the walk's order (the paths' bytes, as git orders them, the
        // same on every device). Kept as a list: keyed by `String` (Unicode canonical equivalence), two
        // files whose names differ only in normalization were one, and one's change landed in the other.
        // Each with its card id when it is a card (worked out once: both loops below ask).
        let disagreeing = changes.compactMap { change -> (path: String, entries: MergeEntries, card: String?)? in
            let entries = (base: change.entries[0], ours: change.entries[1], theirs: change.entries[2])
            // The same object in the same mode (an executable bit is a change too, as to git).
            if Deck.sameEntry(entries.ours, entries.theirs) { return nil }
            let card = CardID.id(fromPath: change.path).flatMap { Deck.isCardEntry(entries) ? $0 : nil }
            return (change.path, entries, card)
        }
        let oursSide = MergeSide(commit: ours.hex, time: oursCommit.committer.time)
        let theirsSide = MergeSide(commit: theirs.hex, time: theirsCommit.committer.time)
        // The side whose tip is later (then the larger id) wins a file that is not a card: the same on both devices.
        let theirsWins = (theirsSide.time, theirsSide.commit) > (oursSide.time, oursSide.commit)

        // Every card version the loop below reads, read and decoded ahead (the decoding on two threads).
        var wanted: [VersionKey] = []
        // Each changed card's entries, by card id (card paths are ASCII, one path an id).
        var cardEntries: [String: MergeEntries] = [:]
        for (_, entries, card) in disagreeing {
            guard let id = card else { continue }
            cardEntries[id] = entries
            for entry in [entries.base, entries.ours, entries.theirs] {
                if let entry { wanted.append(VersionKey(blob: entry.id, id: id)) }
            }
        }
        let (ahead, aheadBytes) = readVersionsAhead(wanted, packs: trees.reader(for: repository))
        var versions: [String: CardVersions] = [:]
        // Each file with the blob already stored for it, if any (`DeckChange.storedBlobs`).
        var files: [(path: String, content: [UInt8]?, stored: ObjectID?, mode: UInt32)] = []
        // Files that are no cards, changed on both sides in ways that do not fit together: the merge stops.
        var conflictedFiles: [String] = []
        // Entries carried into the tree and the index only (`notCheckedOut`).
        var outside: Set<String> = []
        var report = MergeReport(kind: .merged, decisions: [], invalid: [])
        var rawPicks: [(path: String, entry: TreeEntry?, ours: TreeEntry?)] = []
        // Cards merged from a side's last valid version: its file is not the merge's result.
        var recoveredCards: Set<String> = []
        for (path, entries, card) in disagreeing {
            // A path into .git refuses the merge; a folder where this deck has a card file stays out.
            if entries.theirs != nil { try refuseUnsafePath(path, theirsName: theirsName) }
            if let incoming = entries.theirs, incoming.id != entries.base?.id || incoming.kind != entries.base?.kind,
                let reason = quarantineReason(path: path, oursTree: oursCommit.tree)
            {
                report.otherFiles.append("\(path): not taken from \(theirsName): \(reason)")
                continue
            }
            if let id = card {
                // A side that did not change the card has the base's blob: read it once.
                let original = try readVersion(entries.base, path: path, id: id, ahead: ahead)
                let mine =
                    entries.ours == entries.base
                    ? original : try readVersion(entries.ours, path: path, id: id, ahead: ahead)
                let other =
                    entries.theirs == entries.base
                    ? original
                    : entries.theirs == entries.ours
                        ? mine : try readVersion(entries.theirs, path: path, id: id, ahead: ahead)
                let theirsChanged = entries.theirs?.id != entries.base?.id
                let oursChanged = entries.ours?.id != entries.base?.id
                // Both changed the card, one side's file is broken: that side's last valid version since the
                // base (a `cards edit` before a hand edit broke it) merges with the other side's change, so
                // neither edit is lost; the broken file is set aside and named.
                if oursChanged && theirsChanged, mine.isInvalid != other.isInvalid, mine.card ?? other.card != nil,
                    let recovered = lastValidVersion(
                        path: path, id: id, from: mine.isInvalid ? ours : theirs, base: base,
                        baseBlob: entries.base?.id)
                {
                    guard case .invalid(let reason) = mine.isInvalid ? mine : other else { continue }
                    report.setAside.append(
                        InvalidVersion(
                            path: path, reason: reason, isOurs: mine.isInvalid, commit: mine.isInvalid ? ours : theirs))
                    versions[id] = CardVersions(
                        base: original.card, ours: mine.card ?? recovered, theirs: other.card ?? recovered)
                    recoveredCards.insert(id)
                    continue
                }
                if mine.isInvalid || other.isInvalid {
                    // Keep an invalid file as it came, so status and fsck show it until someone fixes it; but
                    // a valid change the other side made to the card wins over it (the invalid file stays
                    // in history), so that no edit is lost to a broken file.
                    var versions: [InvalidVersion] = []
                    if case .invalid(let reason) = mine, oursChanged {
                        versions.append(InvalidVersion(path: path, reason: reason, isOurs: true, commit: ours))
                    }
                    if case .invalid(let reason) = other, theirsChanged {
                        versions.append(InvalidVersion(path: path, reason: reason, isOurs: false, commit: theirs))
                    }
                    let pick = Deck.pickInvalid(entries, mine: mine, other: other, theirsWins: theirsWins)
                    for version in versions {
                        let kept = pick?.id == (version.isOurs ? entries.ours : entries.theirs)?.id
                        if kept { report.invalid.append(version) } else { report.setAside.append(version) }
                    }
                    rawPicks.append((path, pick, entries.ours))
                    continue
                }
                // A broken base (both sides since wrote valid cards): the sides merge as two additions.
                var cardVersions = CardVersions(base: original.card, ours: mine.card, theirs: other.card)
                // The same blob as the base's: the same bytes, no need to compare the decoded cards.
                cardVersions.oursIsBase = entries.base != nil && entries.ours == entries.base
                cardVersions.theirsIsBase = entries.base != nil && entries.theirs == entries.base
                versions[id] = cardVersions
            } else {
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
                    if let merged = try mergeFileLines(path, base: entries.base, ours: mine, theirs: other) {
                        files.append((path, merged.bytes, nil, merged.mode))
                        report.otherFiles.append("\(path): changed on both sides, merged line by line")
                        continue
                    }
                    guard path == Deck.metadataPath else {
                        conflictedFiles.append(path)
                        continue
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
        }
        if !conflictedFiles.isEmpty { throw Deck.fileConflictError(conflictedFiles, theirsName: theirsName) }
        let result = DeckMerger.merge(versions, ours: oursSide, theirs: theirsSide, policy: policy)
        report.decisions = result.decisions
        var sideTaken: [String: CardDecision.Kind] = [:]
        for decision in result.decisions where decision.kind == .tookOurs || decision.kind == .tookTheirs {
            sideTaken[decision.id] = decision.kind
        }
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
        for (path, entry, ours) in rawPicks where !Deck.sameEntry(entry, ours) {
            guard let entry else {
                files.append((path, nil, nil, TreeUpdate.fileMode))
                continue
            }
            if let reason = quarantineReason(path: path, oursTree: oursCommit.tree) {
                report.otherFiles.append("\(path): not taken from \(theirsName): \(reason)")
                continue
            }
            // A link or a submodule goes into the tree as it came, unread (a submodule's commit is not
            // even in this repository); a file is read for the working tree.
            if let reason = notCheckedOut(entry) {
                report.otherFiles.append(Deck.carriedNote(path, reason))
                outside.insert(path)
                files.append((path, [], entry.id, entry.mode))
                continue
            }
            let bytes = try withStoreError("reading \(path)") { () throws(GitError) in
                try repository.readBlob(entry.id)
            }
            files.append((path, bytes, entry.id, entry.mode))
        }
        files.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        // Split at the first colon by bytes (a merge of 2,000 cards has 2,000 of these lines; searching
        // them by `Character` was most of building the message).
        var trailers: [(String, String)] = result.trailers.compactMap { line in
            guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let value = line.utf8[line.utf8.index(after: colon)...].drop { $0 == UInt8(ascii: " ") }
            return (String(line[..<colon]), String(decoding: value, as: UTF8.self))
        }
        for version in report.invalid { trailers.append(("Card-Invalid", "\(version.path) kept as it came")) }
        for version in report.setAside {
            trailers.append(("Card-Invalid", "\(version.path) of \(version.commit.hex) set aside for the valid change"))
        }
        trailers.append(("Op", "merge"))
        let changed = result.decisions.filter { $0.kind != .unchanged }.count + report.changedWithoutDecision
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
        // Thousands of small allocations (every version decoded, the walk's entries): freed on a thread of
        // their own, not on the caller's time (~3 ms of a 1000+1000 merge at 100,000 cards).
        Background.release(Leftovers((changes, disagreeing, cardEntries, ahead, versions, result.cards, sideTaken)))
        return MergePlan(change: change, report: report)
    }

    /// The newest valid version of the card at `path` on the line from `tip` back to `base` (first parents),
    /// when there is one that is not the base's; nil when the card was broken from its first change on.
    func lastValidVersion(path: String, id: String, from tip: ObjectID, base: ObjectID?, baseBlob: ObjectID?)
        -> Card?
    {
        var next: ObjectID? = tip
        var judged: Set<ObjectID> = []
        // A long line of commits is not walked to its end: the broken file is then kept as it came.
        for _ in 0..<1_000 {
            // Not past the base, nor into its history (when the base came in through a second parent).
            guard let commitID = next, commitID != base,
                base.map({ (try? repository.isDescendant($0, of: commitID)) != true }) ?? true,
                let commit = try? repository.commit(commitID),
                let entry = try? repository.treeEntry(in: commit.tree, path: path), entry.id != baseBlob
            else { return nil }
            if judged.insert(entry.id).inserted,
                case .card(let card) = (try? readVersion(entry, path: path, id: id)) ?? .absent
            {
                return card
            }
            next = commit.parents.first
        }
        return nil
    }

    /// The merge base, chosen the same way whichever side runs the merge: after criss-cross merges there
    /// are several, and libgit2's pick depends on the argument order, which would break symmetry. The
    /// latest by committer time (then the larger id) is the one closest to both tips.
    func chooseMergeBase(_ ours: ObjectID, _ theirs: ObjectID) throws(StoreError) -> ObjectID? {
        let bases = try withStoreError("finding the merge base") { () throws(GitError) in
            try repository.mergeBases(ours, theirs)
        }
        guard bases.count > 1 else { return bases.first }
        var best: (time: Int64, id: ObjectID)?
        for base in bases {
            let time = try withStoreError("reading \(base.short)") { () throws(GitError) in
                try repository.commit(base).committer.time
            }
            if let current = best, (current.time, current.id) >= (time, base) { continue }
            best = (time, base)
        }
        return best?.id
    }

    enum Version {
        case absent
        case card(Card)
        case invalid(String)

        var card: Card? {
            if case .card(let card) = self { return card }
            return nil
        }

        var isInvalid: Bool {
            if case .invalid = self { return true }
            return false
        }
    }

    func readVersion(_ entry: TreeEntry?, path: String, id: String, ahead: [VersionKey: Version] = [:])
        throws(StoreError) -> Version
    {
        guard let entry else { return .absent }
        guard entry.kind == .blob else { return .invalid(Deck.describe(kind: entry.kind)) }
        if let known = ahead[VersionKey(blob: entry.id, id: id)] { return known }
        let bytes: [UInt8]
        do {
            bytes = try repository.readBlob(entry.id, limit: Card.maximumFileSize)
        } catch {
            if error.code == .notFound { throw StoreError.git(error, while: "reading \(path)") }
            return .invalid(error.message)
        }
        return Deck.version(bytes, id: id)
    }

    /// A card file's bytes decoded as the version of a card, or the reason they are not one.
    static func version(_ bytes: [UInt8], id: String) -> Version {
        do {
            return .card(try Card.decode(bytes, expectedID: id))
        } catch {
            return .invalid("\(error)")
        }
    }

    /// Whether two entries are the same object in the same mode (nil: both absent).
    static func sameEntry(_ one: TreeEntry?, _ other: TreeEntry?) -> Bool {
        one?.id == other?.id && one?.mode == other?.mode
    }

    /// A file (not a card) both sides changed, merged line by line against the base as `git merge` does;
    /// nil when the changes overlap, or when it is no plain text file on all three sides (a link, a
    /// submodule, a binary file or one too big to read): a conflict for a person to settle.
    func mergeFileLines(_ path: String, base: TreeEntry?, ours: TreeEntry, theirs: TreeEntry) throws(StoreError)
        -> (bytes: [UInt8], mode: UInt32)?
    {
        let sides = [base, ours, theirs].compactMap { $0 }
        guard sides.allSatisfy({ $0.kind == .blob }) else { return nil }
        for side in sides {
            let size = try withStoreError("reading \(path)") { () throws(GitError) in
                try repository.objectSize(side.id)
            }
            if size > Deck.maximumIncomingFileSize { return nil }
        }
        let merged = try withStoreError("merging \(path)") { () throws(GitError) in
            try repository.mergeFile(
                path: path, base: base.map { ($0.id, $0.mode) }, ours: (ours.id, ours.mode),
                theirs: (theirs.id, theirs.mode))
        }
        return merged.merged.map { ($0, merged.mode) }
    }

    /// The refusal of a merge that files other than cards stop: what to run to settle them with git.
    static func fileConflictError(_ paths: [String], theirsName: String) -> StoreError {
        let list = paths.map { "  \($0)" }.joined(separator: "\n")
        let quoted = paths.map(ShellWord.quoted).joined(separator: " ")
        return StoreError(
            .uncommittedChanges,
            "not merging \(theirsName): these files (not cards) were changed on both sides in ways that do not "
                + "fit together:\n\(list)\nNothing was changed. Settle them with git, which merges the cards "
                + "through the cards merge driver: `git merge \(theirsName)`, edit the files, "
                + "`git add \(quoted)`, `git commit`; then run `cards sync` again")
    }

    static func isCardEntry(_ entries: MergeEntries) -> Bool {
        [entries.base, entries.ours, entries.theirs].allSatisfy { $0 == nil || $0?.kind == .blob }
    }

    /// Which file to keep when a version is invalid: the side that changed it; both changed: the valid
    /// card (its change is kept; the invalid file stays in history), else the invalid one, which must stay
    /// visible until fixed (an edit against a deletion stays, as policy `keep` keeps it); both invalid:
    /// the later tip's.
    static func pickInvalid(
        _ entries: MergeEntries, mine: Version, other: Version,
        theirsWins: Bool
    ) -> TreeEntry? {
        if entries.ours?.id == entries.base?.id { return entries.theirs }
        if entries.theirs?.id == entries.base?.id { return entries.ours }
        switch (mine, other) {
        case (.invalid, .invalid): return theirsWins ? entries.theirs : entries.ours
        case (.card, .invalid): return entries.ours
        case (.invalid, .card): return entries.theirs
        case (.invalid, _): return entries.ours
        case (_, .invalid): return entries.theirs
        default: return theirsWins ? entries.theirs : entries.ours
        }
    }
}
