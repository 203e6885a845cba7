import CardModel
import DeckMerge
import GitCore
import Glibc

/// What `sync` should do.
public struct SyncOptions: Sendable {
    /// The remote's name; nil: the only remote, else `origin`.
    public var remote: String?
    /// Fetch and report the plan, change nothing else.
    public var dryRun: Bool
    /// Push even when it deletes more than half of the remote's cards.
    public var allowMassDelete: Bool
    /// What a merge does with a card deleted on one side and edited on the other.
    public var policy: MergePolicy
    /// Credentials, host keys and progress.
    public var settings: RemoteSettings
    /// How many times to fetch again after the remote moved under a push.
    public var attempts: Int
    /// Merge a remote's branch that shares no commit with this deck (refused otherwise, as git refuses it).
    public var allowUnrelatedHistories = false
    /// When both moved: replay this deck's commits onto the remote's (true) instead of a merge commit
    /// (false); nil: as `branch.<name>.rebase` or `pull.rebase` says (`Deck.rebasesOnSync`).
    public var rebase: Bool?

    /// Creates options.
    public init(
        remote: String? = nil, dryRun: Bool = false, allowMassDelete: Bool = false, policy: MergePolicy = .keep,
        settings: RemoteSettings = .fromEnvironment(), attempts: Int = 5
    ) {
        self.remote = remote
        self.dryRun = dryRun
        self.allowMassDelete = allowMassDelete
        self.policy = policy
        self.settings = settings
        self.attempts = attempts
    }
}

/// What `sync` did (or, on a dry run, would do).
public struct SyncReport: Sendable {
    /// How the deck and the remote related, and so what was done.
    public enum Action: Sendable, Equatable {
        /// Both were at the same commit: nothing written.
        case upToDate
        /// The remote was ahead: main moved forward to its commit.
        case fastForward(from: ObjectID, to: ObjectID)
        /// The deck was ahead (or the remote empty, `from` nil): main was pushed.
        case push(from: ObjectID?, to: ObjectID)
        /// Both had new commits: merged into a merge commit, then pushed.
        case mergeAndPush(ours: ObjectID, theirs: ObjectID)
    }

    /// The remote synced with.
    public var remote: DeckRemote
    /// The deck's branch, as people name it (`main`, or `master` for a deck cloned from one).
    public var branchName = "main"
    /// Whether nothing was changed on purpose.
    public var dryRun: Bool
    /// Hand edits committed before the sync (or, on a dry run, that would be).
    public var handEdits: Int = 0
    /// The commit that recorded them.
    public var handEditsCommit: ObjectID?
    /// The last step taken (or planned).
    public var action: Action = .upToDate
    /// Whether both moved and this deck's commits were replayed onto the remote's (`--rebase`): then
    /// `action`'s merge is a rebase, and `merge` says what it decided.
    public var rebased = false
    /// Card files that differ between the deck and the remote before the sync (fast-forward and push).
    public var changedCards: Int = 0
    /// The merge's decisions (planned on a dry run).
    public var merge: MergeReport?
    /// `main` at the end (the remote's main too, unless a dry run).
    public var head: ObjectID?
    /// How many fetch rounds it took (more than one when the remote moved under a push, or a
    /// fast-forward left something of ours to push).
    public var rounds: Int = 0
    /// How many pushes the remote refused because another device pushed first.
    public var refusedPushes: Int = 0
    /// What the server said on its side of the pushes (`remote:` lines, such as a post-receive hook's),
    /// as it said them: for the caller to show (made safe for a terminal first).
    public var serverMessages: [String] = []
    /// What a push could not do as git would have (a local remote's hooks that libgit2's transport did not run).
    public var pushWarnings: [String] = []
    /// On a dry run: the push would be refused by the mass-delete guard (deleted, remote's cards).
    public var massDelete: (deleted: Int, of: Int)?
    /// Notes from the merges on files that are not cards (merged line by line, kept over a deletion, left out).
    public var otherFiles: [String] = []
    /// Card files that are not valid cards among those a fast-forward brought in or a push sent (a merge
    /// says its own in `merge`): `cards fsck` and `cards status` show them until they are fixed.
    public var invalidCards: [CardProblem] = []
    /// Whether a push went through: what it sent stays committed, whatever fails after it.
    var pushed = false
    /// Whether the sync moved main itself (a fast-forward, a merge): kept, whatever fails after it.
    var movedMain = false

    init(remote: DeckRemote, dryRun: Bool) {
        self.remote = remote
        self.dryRun = dryRun
    }
}

extension Deck {
    /// Makes this deck and the remote's `main` equal (the README's Syncing, steps 1–8): commits valid hand edits, fetches,
    /// then does nothing, fast-forwards, pushes, or merges and pushes; fetches again when the
    /// remote moved under the push, up to `options.attempts` times. Never forces a push. A sync that fails
    /// takes back the hand edits it committed, unless a push or a merge of its own went through first
    /// (`Deck+SyncTakeBack.swift`).
    public func sync(_ options: SyncOptions) throws(StoreError) -> SyncReport {
        let syncLock = try acquireSyncLock()
        defer { withExtendedLifetime(syncLock) {} }
        // Before anything is fetched: git's own half-done merge is the first thing to settle.
        try checkNoUnfinishedGitOperation()
        try checkHistoryIsWhole(doing: "syncing")
        let remote = try syncRemote(named: options.remote)
        var report = SyncReport(remote: remote, dryRun: options.dryRun)
        report.branchName = branchName
        let noted = try commitHandEditsBeforeSync(options, remote: remote, into: &report)
        var reloads = 0
        while true {
            do {
                return try syncRounds(options, remote, &report)
            } catch {
                // A pack git's repack removed while it was read, before this sync moved main or pushed:
                // read again from the packs as they are now (`reloadedAfterVanishedPack`).
                if reloads < 3 && !report.pushed && !report.movedMain && reloadedAfterVanishedPack(error) {
                    reloads += 1
                    // The round that failed is done again, not counted twice against `attempts`.
                    report.rounds = max(0, report.rounds - 1)
                    continue
                }
                guard let noted else { throw error }
                throw handEditsAfterFailure(error, noted, report)
            }
        }
    }

    /// Steps 2 to 8 of a sync, after the hand edits are committed: fetch, then fast-forward, push, or
    /// merge and push, again while the remote moves under the push.
    private func syncRounds(_ options: SyncOptions, _ remote: DeckRemote, _ report: inout SyncReport)
        throws(StoreError) -> SyncReport
    {
        // A push there would be refused (a repository on this machine with a working tree): said before
        // anything is merged into this deck for it, and by a dry run, which pushes nothing; only where a
        // push would follow (taking such a remote's changes, a fast-forward, still works). A push alone
        // meets the same refusal in `push` itself.
        func checkPushable() throws(StoreError) {
            do {
                try repository.checkPushable(
                    remote.url, branch: remote.branch,
                    throughGit: (try? repository.transport(options.settings)) == .git)
            } catch {
                throw StoreError.remote(error, "pushing to", remote)
            }
        }
        // Set once a step changed the deck or the remote; a later round that finds them equal keeps its report.
        var acted = false
        while report.rounds < options.attempts {
            report.rounds += 1
            // Said of the round that ends the sync: an earlier round's plan was not carried out.
            report.invalidCards = []
            let theirs = try fetchMain(remote, options.settings)
            guard let ours = try headCommit() else {
                throw StoreError(.notADeck, "this deck has no commit yet; nothing to sync")
            }
            guard let theirs else {
                // An empty remote (no main yet): it gets our main.
                report.action = .push(from: nil, to: ours)
                (report.changedCards, report.invalidCards) = try changedCards(from: nil, to: ours)
                if options.dryRun {
                    try checkPushable()
                    return report
                }
                if try push(remote, options.settings, into: &report) {
                    acted = true
                    report.pushed = true
                    if let done = try finished(report, ours, remote) { return done }
                }
                continue
            }
            try checkRemoteIsDeck(theirs, remote)
            if theirs == ours {
                if !acted { report.action = .upToDate }
                report.head = ours
                return report
            }
            if try isAncestor(ours, of: theirs) {
                report.action = .fastForward(from: ours, to: theirs)
                (report.changedCards, report.invalidCards) = try changedCards(from: ours, to: theirs)
                if options.dryRun { return report }
                let merged = try merge(
                    theirs: theirs, theirsName: remote.trackingName, policy: options.policy, dryRun: false)
                report.movedMain = true
                report.otherFiles += merged.otherFiles
                if merged.kind == .merged { report.merge = merged }
                acted = true
                // Main moved here meanwhile (the merge then made a merge commit): the next round pushes it.
                let now = try headCommit()
                if merged.kind == .fastForward && now == theirs {
                    report.head = theirs
                    return report
                }
                continue
            }
            // A rebasing deck ahead of the remote with a merge commit of its own (one the remote refused,
            // say) replays its commits instead of pushing the merge.
            let rebasing = options.rebase ?? rebasesOnSync()
            var ahead = try isAncestor(theirs, of: ours)
            if ahead && rebasing { ahead = try !hasMergeCommits(ours, notIn: theirs) }
            if ahead {
                report.action = .push(from: theirs, to: ours)
                (report.changedCards, report.invalidCards) = try changedCards(from: theirs, to: ours)
                // A remote that takes no push is said first: --allow-mass-delete would not help there.
                try checkPushable()
                if let refused = try massDeletion(from: theirs, to: ours, options) {
                    if options.dryRun {
                        report.massDelete = refused
                        return report
                    }
                    throw massDeleteError(refused, remote)
                }
                if options.dryRun { return report }
                if try push(remote, options.settings, into: &report) {
                    acted = true
                    report.pushed = true
                    if let done = try finished(report, ours, remote) { return done }
                }
                continue
            }
            try checkPushable()
            report.action = .mergeAndPush(ours: ours, theirs: theirs)
            // (Unrelated histories have nothing to replay onto: they are merged, when allowed.)
            report.rebased = rebasing
            if rebasing, try chooseMergeBase(ours, theirs) == nil { report.rebased = false }
            let merged: MergeReport
            if report.rebased {
                do {
                    merged = try rebase(
                        ours, onto: theirs, theirsName: remote.trackingName, policy: options.policy,
                        dryRun: options.dryRun)
                } catch  where error.code == .git(.referenceChanged) && report.rounds < options.attempts {
                    // Another command committed during the replay: main was not moved; replay again from it.
                    continue
                }
            } else {
                merged = try merge(
                    theirs: theirs, theirsName: remote.trackingName, policy: options.policy, dryRun: options.dryRun,
                    allowUnrelatedHistories: options.allowUnrelatedHistories)
            }
            report.merge = merged
            report.otherFiles += merged.otherFiles
            if options.dryRun {
                report.massDelete = try plannedMassDeletion(merged, ours: ours, theirs: theirs, options)
                // What would go out: ours where it differs from theirs.
                report.invalidCards = try invalidGoingOut(from: theirs, to: ours, besides: merged)
                return report
            }
            guard let commit = merged.commit else {
                throw StoreError(.sync, "the merge of \(remote.trackingName) made no commit; run `cards sync` again")
            }
            report.movedMain = true
            if let refused = try massDeletion(from: theirs, to: commit, options) {
                throw massDeleteError(refused, remote, merged: true)
            }
            report.invalidCards = try invalidGoingOut(from: theirs, to: commit, besides: merged)
            acted = true
            if try push(remote, options.settings, into: &report, merged: true) {
                report.pushed = true
                if let done = try finished(report, commit, remote) { return done }
            }
        }
        throw StoreError(
            .sync,
            "\(remote.name) (\(remote.displayURL)) kept moving: \(options.attempts) pushes in a row were refused because "
                + "another device pushed first; your deck keeps its commits, run `cards sync` again in a moment")
    }

    /// After a push of `head`: the report, or nil when main moved here meanwhile (another command
    /// committed), so what went out may not be all of it: fetch again and compare.
    private func finished(_ report: SyncReport, _ head: ObjectID, _ remote: DeckRemote) throws(StoreError)
        -> SyncReport?
    {
        guard try headCommit() == head else { return nil }
        var report = report
        report.head = head
        // Our push moved the remote's main: say so in the remote-tracking ref, as git does.
        try? repository.setReference(remote.trackingReference, to: head, logMessage: "cards: push to \(remote.name)")
        return report
    }

    /// Step 1: valid hand edits become a commit; any invalid card file stops the sync before the network.
    /// Returns what it found and did, for a failed sync to take back; nil when it wrote nothing (a dry run
    /// commits nothing).
    private func commitHandEditsBeforeSync(_ options: SyncOptions, remote: DeckRemote, into report: inout SyncReport)
        throws(StoreError) -> HandEditsBeforeSync?
    {
        guard !isBare else { return nil }
        let refusal = "not syncing (nothing was sent or fetched)"
        if options.dryRun {
            let main = try snapshot()
            let edits = try handEdits(against: main)  // checked at the start of the sync
            try Deck.refuseInvalid(edits, saying: refusal, retry: "cards sync")
            if !options.allowMassDelete {
                try refuseMassDeletion(edits, main: main, saying: refusal, retry: "cards sync")
            }
            // Reformatted files are written back, not committed.
            report.handEdits = edits.filter { $0.change != .reformatted }.count
            return nil
        }
        // commitHandEdits scans the working tree once and refuses invalid files with the same message; the
        // files and index entries are noted as they are, under its lock, before it writes them.
        var noted: HandEditsBeforeSync?
        let committed = try commitHandEdits(
            message: "Commit hand edits before sync with \(remote.name)", refusal: refusal, retry: "cards sync",
            allowMassDelete: options.allowMassDelete,
            noting: { (snapshot, edits) throws(StoreError) in noted = try self.noteHandEdits(edits, main: snapshot) })
        if let outcome = committed.outcome {
            report.handEdits = committed.edits.count
            report.handEditsCommit = outcome.commit
            noted?.parent = outcome.parent
            noted?.commit = outcome.commit
            noted?.count = committed.edits.count
            return noted
        }
        return committed.reformatted > 0 ? noted : nil
    }

    /// A sync failed after its first step wrote `noted`: the hand edits are taken back unless a push or
    /// a merge of the sync went through first, and the error says which, truly.
    private func handEditsAfterFailure(_ error: StoreError, _ noted: HandEditsBeforeSync, _ report: SyncReport)
        -> StoreError
    {
        let keptBySync = report.pushed || report.movedMain
        guard let commit = noted.commit else {
            // Files only written back in main's format (no commit): their own bytes go back, unsaid.
            if !keptBySync { _ = takeBackHandEdits(noted) }
            return error
        }
        let one = noted.count == 1
        let (they, them, are, were) = one ? ("it", "it", "is", "was") : ("they", "them", "are", "were")
        // On a line of its own, after the server's `remote:` lines.
        let what = "\nThe \(noted.count) hand edit\(one ? "" : "s") the sync committed first (\(commit.short))"
        // "nothing was changed" (of a fetch, a merge refused) is not so when the commit stays.
        var kept = error
        kept.message = kept.message.replacing("nothing was changed", with: "nothing more was changed")
        if report.pushed {
            kept.message +=
                "\(what) went to \(report.remote.name) with its push: \(they) stay\(one ? "s" : "") committed."
            return kept
        }
        if report.movedMain {
            kept.message += "\(what) \(are) in the \(report.rebased ? "rebased commits" : "merge")."
            return kept
        }
        var failure = error
        switch takeBackHandEdits(noted) {
        case .done:
            failure.message += "\(what) \(were) taken back: \(they) \(are) uncommitted again, as before the sync."
            return failure
        case .mainMoved(let head):
            kept.message +=
                "\(what) stay\(one ? "s" : "") committed: main moved on from \(them) meanwhile (to \(head?.short ?? "nothing"), "
                + "a commit made on top of \(them)), and taking \(them) back would take that too; `cards sync` sends \(them)."
            return kept
        case .notDone(let why):
            kept.message +=
                "\(what) stay\(one ? "s" : "") committed: taking \(them) back failed (\(why.message)); nothing is lost, "
                + "`cards sync` sends \(them)."
            return kept
        case .partly(let why):
            failure.message +=
                "\(what) \(were) taken back (main is at \(noted.parent?.short ?? "?") again), but not every file or "
                + "index entry is as before (\(why.message)); the edits are in the files: `cards status` shows them."
            return failure
        }
    }

    /// Step 2: fetches the remote's main into `refs/remotes/NAME/main`; nil when the remote has no main.
    /// Fetches the remote's `main` into its tracking ref (`origin/main`) without merging: the commit it
    /// is at, or nil when the remote has no `main` (empty). `remote`: a name; nil, the only remote, else
    /// `origin`. `merge(reference:)` then merges it (`sync` does both, and pushes).
    public func fetch(remote: String? = nil, settings: RemoteSettings = .fromEnvironment()) throws(StoreError)
        -> ObjectID?
    {
        try fetchMain(try syncRemote(named: remote), settings)
    }

    private func fetchMain(_ remote: DeckRemote, _ settings: RemoteSettings) throws(StoreError) -> ObjectID? {
        let fetched: FetchResult
        do {
            fetched = try repository.fetch(
                from: remote.name, refspecs: ["\(remote.branch):\(remote.trackingReference)"], settings: settings)
        } catch {
            throw StoreError.remote(error, "fetching from", remote)
        }
        guard let theirs = fetched.heads[remote.branch] else {
            // No main there (any more): a tracking ref would only mislead `git status`.
            try? repository.deleteReference(remote.trackingReference)
            return nil
        }
        // The fetch moved the tracking ref already; make sure, since the rest reads the commit from here.
        guard repository.hasObject(theirs) else {
            throw StoreError(
                .sync, "fetching from \(remote.name) did not bring its main (\(theirs.short)); run `cards sync` again")
        }
        try withStoreError("updating \(remote.trackingReference)") { () throws(GitError) in
            try repository.setReference(remote.trackingReference, to: theirs, logMessage: "cards: fetch \(remote.name)")
        }
        return theirs
    }

    /// Pushes main; false when the remote moved meanwhile (fetch again; counted in `refusedPushes`),
    /// throws for anything else: a refusal of the server's own is final, said with its reason, and
    /// `merged` says the merge made for this push stays in the deck.
    private func push(
        _ remote: DeckRemote, _ settings: RemoteSettings, into report: inout SyncReport, merged: Bool = false
    ) throws(StoreError) -> Bool {
        // For tests only: widen the window between the first fetch and push so another device can
        // push first; a marker file tells the test the window is open.
        if report.rounds == 1, let text = getenv("CARDS_TEST_DELAY_BEFORE_PUSH").map({ String(cString: $0) }),
            let seconds = Double(text)
        {
            try? FileSystem.writeAtomically(
                Array("waiting\n".utf8), to: "\(gitDirectory)/cards-test-push-window", durable: false)
            usleep(UInt32(min(seconds, 10) * 1_000_000))
        }
        do {
            let pushed = try repository.push(
                to: remote.name, refspecs: ["\(branch):\(remote.branch)"], settings: settings)
            report.serverMessages += pushed.serverMessages
            report.pushWarnings += pushed.warnings
            return true
        } catch  where error.code == .nonFastForward {
            report.refusedPushes += 1
            return false
        } catch {
            var failure = StoreError.remote(error, "pushing to", remote)
            if report.rebased {
                failure.message += "\n(the rebased commits are in the deck; `cards sync` pushes them later)"
            } else if merged {
                failure.message +=
                    "\n(the merge commit was made locally and is kept; if \(remote.name) takes no merge commits (a "
                    + "linear-history rule), `cards sync --rebase` replays this deck's commits onto its instead; "
                    + "otherwise `cards sync` pushes the merge later)"
            }
            throw failure
        }
    }

    private func checkRemoteIsDeck(_ theirs: ObjectID, _ remote: DeckRemote) throws(StoreError) {
        let tree = try withStoreError("reading \(remote.trackingName)") { () throws(GitError) in
            try repository.commit(theirs).tree
        }
        let entry = try withStoreError("reading \(remote.trackingName)") { () throws(GitError) in
            try repository.treeEntry(in: tree, path: Deck.metadataPath)
        }
        guard let entry else {
            throw StoreError(
                .notADeck,
                "\(remote.name) (\(remote.displayURL)) is not a deck: its main has no deck.json; nothing was changed. "
                    + "Check the URL (`cards remote list`), or sync with an empty repository instead")
        }
        try refuseNewerFormat(
            of: entry.id, holder: "\(remote.name)'s deck is", outcome: "nothing was changed: update cards, then sync")
    }

    private func isAncestor(_ ancestor: ObjectID, of commit: ObjectID) throws(StoreError) -> Bool {
        try withStoreError("comparing histories") { () throws(GitError) in
            try repository.isDescendant(commit, of: ancestor)
        }
    }

    private func tree(of commit: ObjectID) throws(StoreError) -> ObjectID {
        try withStoreError("reading commit \(commit.short)") { () throws(GitError) in
            try repository.commit(commit).tree
        }
    }

    /// The files that are no valid card among those `new` sends to a remote at `remote` with a merge, but
    /// for those the merge already named (they came in).
    private func invalidGoingOut(from remote: ObjectID, to new: ObjectID, besides merged: MergeReport)
        throws(StoreError) -> [CardProblem]
    {
        let named = Set(merged.invalid.map(\.path))
        return try changedCards(from: remote, to: new).1.filter { !named.contains($0.path) }
    }

    /// How many card files differ between two commits (`old` nil: every card of `new`), and which of
    /// them, as `new` has them, are not valid cards.
    private func changedCards(from old: ObjectID?, to new: ObjectID) throws(StoreError) -> (Int, [CardProblem]) {
        guard let old else {
            let all = try snapshot(at: new).allCards()
            return (all.cards.count + all.problems.count, all.problems)
        }
        let oldTree = try tree(of: old)
        let newTree = try tree(of: new)
        let changes = try withStoreError("comparing trees") { () throws(GitError) in
            try TreeDiff.changes(in: repository, from: oldTree, to: newTree)
        }.filter { $0.path.hasPrefix(Deck.cardsFolder + "/") }
        return (changes.count, invalidCards(amongChanged: changes.map(\.path), in: newTree))
    }

    private func cardCount(at commit: ObjectID) throws(StoreError) -> Int {
        var count = 0
        try snapshot(at: commit).forEachCardEntry { (_) throws(StoreError) in count += 1 }
        return count
    }

    /// Step 5: (deleted, remote's cards) when pushing `new` over `remoteCommit` deletes more than
    /// half of the remote's cards and more than 10, unless allowed; else nil.
    private func massDeletion(from remoteCommit: ObjectID, to new: ObjectID, _ options: SyncOptions) throws(StoreError)
        -> (deleted: Int, of: Int)?
    {
        guard !options.allowMassDelete else { return nil }
        let oldTree = try tree(of: remoteCommit)
        let newTree = try tree(of: new)
        let changes = try withStoreError("comparing trees") { () throws(GitError) in
            try TreeDiff.changes(in: repository, from: oldTree, to: newTree)
        }
        let deleted = changes.filter { $0.path.hasPrefix(Deck.cardsFolder + "/") && $0.old != nil && $0.new == nil }
            .count
        return try Deck.guardVerdict(
            deleted: deleted, remoteCards: { () throws(StoreError) in try cardCount(at: remoteCommit) })
    }

    /// The same guard for a merge not yet made: cards on the remote that the merge would leave out.
    private func plannedMassDeletion(_ merge: MergeReport, ours: ObjectID, theirs: ObjectID, _ options: SyncOptions)
        throws(StoreError) -> (deleted: Int, of: Int)?
    {
        guard !options.allowMassDelete else { return nil }
        let theirsSnapshot = try snapshot(at: theirs)
        let oursSnapshot = try snapshot(at: ours)
        var deleted = 0
        for decision in merge.decisions where decision.kind == .tookOurs || decision.kind == .deletedOverEdit {
            let path = CardID.path(for: decision.id)
            if try theirsSnapshot.blobID(at: path) != nil, try oursSnapshot.blobID(at: path) == nil { deleted += 1 }
        }
        return try Deck.guardVerdict(
            deleted: deleted, remoteCards: { () throws(StoreError) in try cardCount(at: theirs) })
    }

    /// The mass-delete guard's threshold, for a push and for a commit of hand edits alike: (deleted,
    /// cards) when `deleted` is more than 10 and more than half of the cards (`remoteCards`, counted
    /// only then); else nil.
    static func guardVerdict(deleted: Int, remoteCards: () throws(StoreError) -> Int) throws(StoreError) -> (
        deleted: Int, of: Int
    )? {
        guard deleted > 10 else { return nil }
        let total = try remoteCards()
        return deleted * 2 > total ? (deleted, total) : nil
    }

    private func massDeleteError(_ refused: (deleted: Int, of: Int), _ remote: DeckRemote, merged: Bool = false)
        -> StoreError
    {
        StoreError(
            .sync,
            "not pushing: it would delete \(refused.deleted) of the \(refused.of) cards on \(remote.name), more than half"
                + (merged ? " (the merge was made locally and is kept)" : "")
                + "; if that is what you want, run `cards sync --allow-mass-delete` (`cards sync --dry-run` shows the plan)"
        )
    }
}
