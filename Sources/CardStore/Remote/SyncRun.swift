import CardModel
import DeckMerge
import GitCore
import Glibc

/// One `Deck.sync` (the README's Syncing), in phases called in this order: `commitHandEdits` (step 1),
/// then `rounds`, each of which is `fetch`, `compare`, and the step the comparison calls for:
/// `pushToEmptyRemote`, `upToDate`, `fastForward`, `pushAhead` or `mergeAndPush` (`checkPushable`
/// before anything is merged for a push, `push`, `finished` after it); `failure` on the way out of a
/// sync that failed takes back what step 1 committed. The remote is resolved once, at the first fetch
/// (`resolvedRemote`), and every fetch and push of the sync takes that value.
final class SyncRun {
    /// How `main` and the remote's branch relate, after a fetch.
    enum Relation {
        /// The remote has no such branch yet.
        case remoteEmpty
        /// Both are at the same commit.
        case same
        /// The remote is ahead: a fast-forward.
        case behind(theirs: ObjectID)
        /// The deck is ahead: a push.
        case ahead(theirs: ObjectID)
        /// Both moved: a merge (or, `rebasing`, a replay of ours onto theirs), then a push.
        case diverged(theirs: ObjectID, rebasing: Bool)
    }

    /// How a round ended.
    enum RoundEnd {
        /// The sync is over, with this report.
        case done(SyncReport)
        /// Fetch again: the remote moved under a push, or main moved here meanwhile.
        case again
    }

    /// The deck synced.
    let deck: Deck
    /// What the sync was asked to do.
    let options: SyncOptions
    /// The remote synced with, as the deck has it configured.
    let remote: DeckRemote
    /// What the sync did so far.
    var report: SyncReport
    /// What step 1 found and wrote, for `failure` to take back; nil when it wrote nothing.
    private var noted: Deck.HandEditsBeforeSync?
    /// The remote resolved at the first fetch (`resolvedRemote`).
    private var road: ResolvedRemote?
    /// The first round's fetch, started before step 1 (`startFetch`), until that round takes it.
    private var started: PendingFetch?
    /// Set once a step changed the deck or the remote; a later round that finds them equal keeps its report.
    private var acted = false

    /// Starts a sync with `remote`: nothing is read or written until its phases are called.
    init(deck: Deck, options: SyncOptions, remote: DeckRemote) {
        self.deck = deck
        self.options = options
        self.remote = remote
        report = SyncReport(remote: remote, dryRun: options.dryRun)
        report.branchName = deck.branchName
    }

    /// Whether the sync may start its rounds again (after a pack vanished under a read): nothing it did
    /// so far must be kept.
    var mayStartAgain: Bool { !report.pushed && !report.movedMain }

    /// Starts the first round's fetch through git, so that it transfers while step 1 looks for hand edits
    /// (a working tree's every file `lstat`ed: ~6 ms at 1,000 cards, ~0.1 s at 100,000). Not through
    /// libgit2's transport (it fetches in this process); not where git, ssh or a credential helper could
    /// ask on a terminal (a remote not on this machine, with a controlling terminal): a refusal of step 1
    /// would stop it mid-question; and not where step 1 may ask on the terminal itself (a commit hook, a
    /// signature). A failure to start is left to the fetch to meet again.
    func startFetch() {
        guard !deck.isBare else { return }
        let hooks = deck.commitHooks(merge: false)
        guard hooks.before == nil && !hooks.message && !hooks.afterCommit,
            deck.repository.configBool("commit.gpgsign") != true
        else { return }
        do {
            let road = try resolvedRemote()
            guard road.localPath != nil || !SyncRun.hasControllingTerminal else { return }
            started = try deck.startFetchMain(remote, road)
        } catch {
            road = nil
        }
    }

    /// Whether this process has a terminal that a child could open to ask a question (`/dev/tty`).
    static var hasControllingTerminal: Bool {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// Stops the fetch `startFetch` started when no round took it (step 1 refused the sync): no ref moved.
    func abandonStartedFetch() {
        started?.abandon()
        started = nil
    }

    /// Step 1: valid hand edits become a commit; any invalid card file stops the sync before anything is
    /// sent or any ref moves (a fetch `startFetch` started is stopped).
    /// Notes what it found and did, for a failed sync to take back (nothing when it wrote nothing: a dry
    /// run commits nothing).
    func commitHandEdits() throws(StoreError) {
        guard !deck.isBare else { return }
        let refusal = "not syncing (nothing was sent or fetched)"
        if options.dryRun {
            let main = try deck.snapshot()
            let edits = try deck.handEdits(against: main)  // checked at the start of the sync
            try Deck.refuseInvalid(edits, saying: refusal, retry: "cards sync")
            if !options.allowMassDelete {
                try deck.refuseMassDeletion(edits, main: main, saying: refusal, retry: "cards sync")
            }
            // Reformatted files are written back, not committed.
            report.handEdits = edits.filter { $0.change != .reformatted }.count
            return
        }
        // commitHandEdits scans the working tree once and refuses invalid files with the same message; the
        // files and index entries are noted as they are, under its lock, before it writes them.
        var found: Deck.HandEditsBeforeSync?
        let committed = try deck.commitHandEdits(
            message: "Commit hand edits before sync with \(remote.name)", refusal: refusal, retry: "cards sync",
            allowMassDelete: options.allowMassDelete,
            noting: { [deck] (snapshot, edits) throws(StoreError) in
                found = try deck.noteHandEdits(edits, main: snapshot)
            })
        if let outcome = committed.outcome {
            report.handEdits = committed.edits.count
            report.handEditsCommit = outcome.commit
            found?.parent = outcome.parent
            found?.commit = outcome.commit
            found?.count = committed.edits.count
            noted = found
            return
        }
        noted = committed.reformatted > 0 ? found : nil
    }

    /// Steps 2 to 8, after the hand edits are committed: fetch, then fast-forward, push, or merge and
    /// push, again while the remote moves under the push, up to `options.attempts` rounds.
    func rounds() throws(StoreError) -> SyncReport {
        acted = false
        while report.rounds < options.attempts {
            report.rounds += 1
            // Said of the round that ends the sync: an earlier round's plan was not carried out.
            report.invalidCards = []
            // Resolved again each round: a `git remote set-url` made meanwhile is what git itself reads
            // (it is handed the remote's name), so this round's checks and push look where git does. The
            // first round's fetch, started before step 1, keeps the remote it was started with.
            if started == nil { road = nil }
            let theirs = try fetch()
            guard let ours = try deck.headCommit() else {
                throw StoreError(.notADeck, "this deck has no commit yet; nothing to sync")
            }
            let end: RoundEnd
            switch try compare(ours, theirs) {
            case .remoteEmpty: end = try pushToEmptyRemote(ours)
            case .same: end = .done(upToDate(ours))
            case .behind(let theirs): end = try fastForward(ours, to: theirs)
            case .ahead(let theirs): end = try pushAhead(ours, over: theirs)
            case .diverged(let theirs, let rebasing): end = try mergeAndPush(ours, theirs, rebasing: rebasing)
            }
            if case .done(let report) = end { return report }
        }
        throw StoreError(
            .sync,
            "\(remote.name) (\(remote.displayURL)) kept moving: \(options.attempts) pushes in a row were refused because "
                + "another device pushed first; your deck keeps its commits, run `cards sync` again in a moment")
    }

    /// The remote, resolved at a round's fetch and kept for that round's checks and push.
    private func resolvedRemote() throws(StoreError) -> ResolvedRemote {
        if let road { return road }
        let resolved = try deck.resolveRemote(remote, options.settings)
        road = resolved
        return resolved
    }

    /// Step 2: the remote's branch fetched into its tracking ref (by the fetch `startFetch` started, in
    /// the first round); nil when the remote has none.
    private func fetch() throws(StoreError) -> ObjectID? {
        let pending = started
        started = nil
        return try deck.fetchMain(remote, try resolvedRemote(), started: pending)
    }

    /// How `ours` and `theirs` relate; refuses a remote whose branch is no deck (or a newer one).
    private func compare(_ ours: ObjectID, _ theirs: ObjectID?) throws(StoreError) -> Relation {
        guard let theirs else { return .remoteEmpty }
        try deck.checkRemoteIsDeck(theirs, remote)
        if theirs == ours { return .same }
        if try deck.isAncestor(ours, of: theirs) { return .behind(theirs: theirs) }
        // A rebasing deck ahead of the remote with a merge commit of its own (one the remote refused,
        // say) replays its commits instead of pushing the merge.
        let rebasing = options.rebase ?? deck.rebasesOnSync()
        var ahead = try deck.isAncestor(theirs, of: ours)
        if ahead && rebasing { ahead = try !deck.hasMergeCommits(ours, notIn: theirs) }
        return ahead ? .ahead(theirs: theirs) : .diverged(theirs: theirs, rebasing: rebasing)
    }

    /// An empty remote (no branch yet): it gets our main.
    private func pushToEmptyRemote(_ ours: ObjectID) throws(StoreError) -> RoundEnd {
        report.action = .push(from: nil, to: ours)
        (report.changedCards, report.invalidCards) = try deck.changedCards(from: nil, to: ours)
        if options.dryRun {
            try checkPushable()
            return .done(report)
        }
        // A push alone meets the refusal of a remote that takes none in `push` itself.
        return try pushed(ours, checked: false)
    }

    /// Both at the same commit: nothing to do (a round after one that acted keeps what it said).
    private func upToDate(_ ours: ObjectID) -> SyncReport {
        if !acted { report.action = .upToDate }
        report.head = ours
        return report
    }

    /// The remote is ahead: main moves forward to `theirs`.
    private func fastForward(_ ours: ObjectID, to theirs: ObjectID) throws(StoreError) -> RoundEnd {
        report.action = .fastForward(from: ours, to: theirs)
        (report.changedCards, report.invalidCards) = try deck.changedCards(from: ours, to: theirs)
        if options.dryRun { return .done(report) }
        let merged = try deck.merge(
            theirs: theirs, theirsName: remote.trackingName, policy: options.policy, dryRun: false)
        report.movedMain = true
        report.otherFiles += merged.otherFiles
        if merged.kind == .merged { report.merge = merged }
        acted = true
        // Main moved here meanwhile (the merge then made a merge commit): the next round pushes it.
        let now = try deck.headCommit()
        if merged.kind == .fastForward && now == theirs {
            report.head = theirs
            return .done(report)
        }
        return .again
    }

    /// The deck is ahead: main is pushed over `theirs`, unless the mass-delete guard refuses it.
    private func pushAhead(_ ours: ObjectID, over theirs: ObjectID) throws(StoreError) -> RoundEnd {
        report.action = .push(from: theirs, to: ours)
        (report.changedCards, report.invalidCards) = try deck.changedCards(from: theirs, to: ours)
        // A remote that takes no push is said first: --allow-mass-delete would not help there.
        try checkPushable()
        if let refused = try deck.massDeletion(from: theirs, to: ours, options) {
            if options.dryRun {
                report.massDelete = refused
                return .done(report)
            }
            throw deck.massDeleteError(refused, remote)
        }
        if options.dryRun { return .done(report) }
        return try pushed(ours, checked: true)
    }

    /// Both moved: `theirs` merged into main (or ours replayed onto it, `rebasing`), then pushed.
    private func mergeAndPush(_ ours: ObjectID, _ theirs: ObjectID, rebasing: Bool) throws(StoreError) -> RoundEnd {
        try checkPushable()
        report.action = .mergeAndPush(ours: ours, theirs: theirs)
        // (Unrelated histories have nothing to replay onto: they are merged, when allowed.)
        report.rebased = rebasing
        if rebasing, try deck.chooseMergeBase(ours, theirs) == nil { report.rebased = false }
        let merged: MergeReport
        if report.rebased {
            do {
                merged = try deck.rebase(
                    ours, onto: theirs, theirsName: remote.trackingName, policy: options.policy,
                    dryRun: options.dryRun)
            } catch  where error.code == .git(.referenceChanged) && report.rounds < options.attempts {
                // Another command committed during the replay: main was not moved; replay again from it.
                return .again
            }
        } else {
            merged = try deck.merge(
                theirs: theirs, theirsName: remote.trackingName, policy: options.policy, dryRun: options.dryRun,
                allowUnrelatedHistories: options.allowUnrelatedHistories)
        }
        report.merge = merged
        report.otherFiles += merged.otherFiles
        if options.dryRun {
            report.massDelete = try deck.plannedMassDeletion(merged, ours: ours, theirs: theirs, options)
            // What would go out: ours where it differs from theirs.
            report.invalidCards = try deck.invalidGoingOut(from: theirs, to: ours, besides: merged)
            return .done(report)
        }
        guard let commit = merged.commit else {
            throw StoreError(.sync, "the merge of \(remote.trackingName) made no commit; run `cards sync` again")
        }
        report.movedMain = true
        if let refused = try deck.massDeletion(from: theirs, to: commit, options) {
            throw deck.massDeleteError(refused, remote, merged: true)
        }
        report.invalidCards = try deck.invalidGoingOut(from: theirs, to: commit, besides: merged)
        acted = true
        guard try push(merged: true, checked: true) else { return .again }
        report.pushed = true
        return try finished(commit).map(RoundEnd.done) ?? .again
    }

    /// A push there would be refused (a repository on this machine with a working tree): said before
    /// anything is merged into this deck for it, and by a dry run, which pushes nothing; only where a
    /// push would follow (taking such a remote's changes, a fast-forward, still works). The push that
    /// follows in the same round does not check again.
    private func checkPushable() throws(StoreError) {
        let road = try resolvedRemote()
        do {
            try deck.repository.checkPushable(road, branch: remote.branch)
        } catch {
            throw StoreError.remote(error, "pushing to", remote)
        }
    }

    /// Pushes `head` (main, not merged in this round) and ends the round as the push went.
    private func pushed(_ head: ObjectID, checked: Bool) throws(StoreError) -> RoundEnd {
        guard try push(checked: checked) else { return .again }
        acted = true
        report.pushed = true
        return try finished(head).map(RoundEnd.done) ?? .again
    }

    /// Pushes main; false when the remote moved meanwhile (fetch again; counted in `refusedPushes`),
    /// throws for anything else: a refusal of the server's own is final, said with its reason, and
    /// `merged` says the merge made for this push stays in the deck. `checked`: `checkPushable` ran
    /// for this push.
    private func push(merged: Bool = false, checked: Bool) throws(StoreError) -> Bool {
        // For tests only: widen the window between the first fetch and push so another device can
        // push first; a marker file tells the test the window is open.
        if report.rounds == 1, let text = getenv("CARDS_TEST_DELAY_BEFORE_PUSH").map({ String(cString: $0) }),
            let seconds = Double(text)
        {
            try? FileSystem.writeAtomically(
                Array("waiting\n".utf8), to: "\(deck.gitDirectory)/cards-test-push-window", durable: false)
            usleep(UInt32(min(seconds, 10) * 1_000_000))
        }
        let road = try resolvedRemote()
        do {
            let pushed = try deck.repository.push(
                road, refspecs: ["\(deck.branch):\(remote.branch)"], checkedPushable: checked)
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

    /// After a push of `head`: the report, or nil when main moved here meanwhile (another command
    /// committed), so what went out may not be all of it: fetch again and compare.
    private func finished(_ head: ObjectID) throws(StoreError) -> SyncReport? {
        guard try deck.headCommit() == head else { return nil }
        report.head = head
        // Our push moved the remote's main: say so in the remote-tracking ref, as git does.
        try? deck.repository.setReference(
            remote.trackingReference, to: head, logMessage: "cards: push to \(remote.name)")
        return report
    }

    /// The sync failed with `error`: the hand edits step 1 committed are taken back unless a push or a
    /// merge of the sync went through first, and the error says which, truly.
    func failure(_ error: StoreError) -> StoreError {
        guard let noted else { return error }
        let keptBySync = report.pushed || report.movedMain
        guard let commit = noted.commit else {
            // Files only written back in main's format (no commit): their own bytes go back, unsaid.
            if !keptBySync { _ = deck.takeBackHandEdits(noted) }
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
        switch deck.takeBackHandEdits(noted) {
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
}
