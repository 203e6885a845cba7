import CardModel
import DeckMerge
import GitCore
import SystemCalls

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
        // Most merges set nothing aside: no set of every decided card's id for them.
        guard !setAside.isEmpty else { return 0 }
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
    package init(path: String, reason: String, isOurs: Bool, commit: ObjectID) {
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
    package func resolveCommit(_ reference: String) throws(StoreError) -> ObjectID? {
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
        // Read through the cache the merge's planning then walks with, and the commit's snapshot after it:
        // the pack indexes mapped once. The one opening the deck made, when no snapshot took it yet (its
        // indexes mapped, its root tree read: a `cards merge` maps them once, not three times).
        let trees = openingTrees ?? RawTreeCache()
        openingTrees = nil
        // Handed to the commit's snapshot below; never left behind for a later one (packs change).
        defer { openingTrees = nil }
        try refuseNewerFormat(
            at: theirs, holder: "\(theirsName) holds a deck", outcome: "nothing was merged: update cards, then merge",
            cache: trees)
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
            // As after `git merge` (and `git pull`): post-merge, told it was not a squash.
            if !isBare { runAfterHook("post-merge", arguments: ["0"]) }
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
            let plan = try self.planMerge(
                ours: oursCommit, theirs: theirs, theirsName: theirsName, policy: policy, trees: trees)
            report = plan.report
            return plan.change
        }
        // The snapshot the change is built on reads through the same cache (`snapshot()` takes it).
        openingTrees = trees
        if dryRun {
            _ = try build(try snapshot())
            return report
        }
        let outcome = try commitChange(parents: [theirs], build)
        report.commit = outcome?.commit
        if outcome != nil && !isBare { runAfterHook("post-merge", arguments: ["0"]) }
        return report
    }

    /// Moves `main` forward to `target` (a descendant of `current`, named `theirsName` in the reflog, as
    /// git names it), then the changed files.
    /// Returns the files it brought in that are not valid cards, and the notes on entries it took into
    /// the tree and index without checking them out.
    func fastForward(
        to target: ObjectID, from current: ObjectID?, theirsName: String, logMessage: String? = nil
    ) throws(StoreError) -> (
        ObjectID, invalid: [CardProblem], carried: [String]
    ) {
        let lock = try DeckLock(path: "\(gitDirectory)/cards.lock", timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        try checkNoUnfinishedGitOperation()
        try recoverInterruptedWrite()
        // Under the deck lock, main must still be where the caller found it: another command's commit
        // made meanwhile (during a rebase's replay, say) would otherwise be compared, written over and put
        // back as `current` had it, its change undone in the working tree and index.
        guard try headCommit() == current else {
            throw StoreError(
                .git(.referenceChanged),
                "main moved meanwhile (another command committed while this one worked); nothing was changed: "
                    + "run the command again")
        }
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
        // What git keeps out of the working tree (a sparse checkout's paths): index entries only.
        let skips = workingTreeSkips(for: paths, adding: Set(incoming.compactMap { $0.new == nil ? nil : $0.path }))
        if !isBare {
            let snapshot = try snapshot()
            try checkNoHandEdits(
                incoming.filter { !skips.contains($0.path) }.map { change in (change.path, { change.new?.id }) },
                snapshot: snapshot)
        }
        // Only what is written out takes room in the working tree.
        var carried: [String] = []
        var sizes: [Int?] = []
        for change in incoming {
            guard let entry = change.new, !skips.contains(change.path) else { continue }
            if let reason = notCheckedOut(entry) {
                carried.append(Deck.carriedNote(change.path, reason))
            } else {
                sizes.append((try? repository.objectSize(entry.id)) ?? Deck.maximumIncomingFileSize)
            }
        }
        try checkSpace(forFileSizes: sizes)
        let deadline = MonotonicClock.now() + lockTimeout
        if !isBare { try waitForIndex(deadline: deadline, expected: current != nil) }
        try markPending(incoming.map { ($0.path, $0.new?.id) })
        // The working tree and index first, then main, under git's index lock, as a commit does (`IndexLock`).
        let indexLock = isBare ? nil : try lockIndex(deadline: deadline, expected: current != nil)
        defer { indexLock?.release() }
        if !isBare {
            do {
                try updateWorkingTree(paths, snapshotTree: newTree, indexLock: indexLock, skips: skips)
            } catch {
                throw putBack(paths, to: oldTree, indexLock: indexLock, skips: skips, after: error)
            }
        }
        while true {
            let why: StoreError
            do {
                // The target looked up first: a `git gc` meanwhile could have taken it (`TargetCheck`).
                try repository.updateReference(
                    branch, to: target, expected: current,
                    logMessage: logMessage ?? "merge \(theirsName): Fast-forward", check: .lookUp)
                break
            } catch  where error.code == .locked {
                // Waited for while a process holds it; said at once when none does (`waitForGitLock`).
                do throws(StoreError) {
                    try waitForGitLock("\(branch).lock", deadline: deadline)
                    continue
                } catch {
                    why = error
                }
            } catch {
                why = StoreError.git(
                    error, while: "moving main forward (another command changed the deck meanwhile; try again)")
            }
            if isBare { clearPending() }
            throw isBare ? why : putBack(paths, to: oldTree, indexLock: indexLock, skips: skips, after: why)
        }
        if !isBare { recordIndexFollows(target) }
        indexLock?.release()
        clearPending()
        reapplySparsePatterns(skips, following: target)
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
    /// merge base (none: an empty base), reading only the cards that changed; in the phases of `MergePlanner`.
    /// `trees`: a cache of this operation's to read through (made after any fetch: its pack reader sees
    /// the packs as they are now).
    func planMerge(
        ours: ObjectID, theirs: ObjectID, theirsName: String, policy: MergePolicy, base: ObjectID?? = nil,
        trees: RawTreeCache = RawTreeCache()
    ) throws(StoreError) -> MergePlan {
        var planner = try MergePlanner(
            deck: self, ours: ours, theirs: theirs, theirsName: theirsName, policy: policy, base: base, trees: trees)
        try planner.findDisagreements()
        planner.readCardsAhead()
        for disagreement in planner.disagreeing { try planner.decide(disagreement) }
        let result = try planner.mergeCards()
        planner.takeMergedCards(result)
        try planner.takePickedFiles()
        let change = planner.makeChange(result)
        // Thousands of small allocations (every version decoded, the walk's entries): freed on a thread of
        // their own, not on the caller's time (~3 ms of a 1000+1000 merge at 100,000 cards).
        Background.release(planner.leftovers(result))
        return MergePlan(change: change, report: planner.report)
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
                + "through the cards merge driver: `git merge \(ShellWord.operand(theirsName))`, edit the files, "
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
