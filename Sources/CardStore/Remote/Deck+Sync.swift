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
    /// (`Deck+SyncTakeBack.swift`). Its phases are `SyncRun`'s.
    public func sync(_ options: SyncOptions) throws(StoreError) -> SyncReport {
        let syncLock = try acquireSyncLock()
        defer { withExtendedLifetime(syncLock) {} }
        // Before anything is fetched: git's own half-done merge is the first thing to settle.
        try checkNoUnfinishedGitOperation()
        try checkHistoryIsWhole(doing: "syncing")
        let run = SyncRun(deck: self, options: options, remote: try syncRemote(named: options.remote))
        // Whatever way out (step 1 refusing an invalid card or a mass deletion, say): a fetch started for
        // the first round and never taken by one is stopped, and no ref moved.
        defer { run.abandonStartedFetch() }
        run.startFetch()
        try run.commitHandEdits()
        var reloads = 0
        while true {
            do {
                return try run.rounds()
            } catch {
                // A pack git's repack removed while it was read, before this sync moved main or pushed:
                // read again from the packs as they are now (`reloadedAfterVanishedPack`).
                if reloads < 3 && run.mayStartAgain && reloadedAfterVanishedPack(error) {
                    reloads += 1
                    // The round that failed is done again, not counted twice against `attempts`.
                    run.report.rounds = max(0, run.report.rounds - 1)
                    continue
                }
                throw run.failure(error)
            }
        }
    }

    /// Step 2: fetches the remote's main into `refs/remotes/NAME/main`; nil when the remote has no main.
    /// Fetches the remote's `main` into its tracking ref (`origin/main`) without merging: the commit it
    /// is at, or nil when the remote has no `main` (empty). `remote`: a name; nil, the only remote, else
    /// `origin`. `merge(reference:)` then merges it (`sync` does both, and pushes).
    public func fetch(remote: String? = nil, settings: RemoteSettings = .fromEnvironment()) throws(StoreError)
        -> ObjectID?
    {
        let chosen = try syncRemote(named: remote)
        return try fetchMain(chosen, try resolveRemote(chosen, settings))
    }

    /// `remote` resolved once for a sync or a fetch (`ResolvedRemote`): its URLs, its folder when it is
    /// on this machine, and the transport. A failure is said as a fetch's, the transfer it stops.
    func resolveRemote(_ remote: DeckRemote, _ settings: RemoteSettings) throws(StoreError) -> ResolvedRemote {
        do {
            return try repository.resolveRemote(remote.name, settings: settings)
        } catch {
            throw StoreError.remote(error, "fetching from", remote)
        }
    }

    /// Starts fetching the remote's branch through git (`Repository.startFetch`), for `fetchMain` to
    /// finish; nil through libgit2's transport.
    func startFetchMain(_ remote: DeckRemote, _ road: ResolvedRemote) throws(StoreError) -> PendingFetch? {
        do {
            return try repository.startFetch(road, refspecs: ["\(remote.branch):\(remote.trackingReference)"])
        } catch {
            throw StoreError.remote(error, "fetching from", remote)
        }
    }

    /// Fetches the remote's branch into its tracking ref (or finishes the fetch `started`, of the same
    /// remote and branch): the commit, or nil when the remote has none.
    func fetchMain(_ remote: DeckRemote, _ road: ResolvedRemote, started: PendingFetch? = nil) throws(StoreError)
        -> ObjectID?
    {
        // What opening the deck mapped does not see the pack the fetch brings: not handed on after it.
        openingTrees = nil
        let fetched: FetchResult
        do {
            if let started {
                fetched = try started.finish()
            } else {
                fetched = try repository.fetch(road, refspecs: ["\(remote.branch):\(remote.trackingReference)"])
            }
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

    func checkRemoteIsDeck(_ theirs: ObjectID, _ remote: DeckRemote) throws(StoreError) {
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

    func isAncestor(_ ancestor: ObjectID, of commit: ObjectID) throws(StoreError) -> Bool {
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
    func invalidGoingOut(from remote: ObjectID, to new: ObjectID, besides merged: MergeReport)
        throws(StoreError) -> [CardProblem]
    {
        let named = Set(merged.invalid.map(\.path))
        return try changedCards(from: remote, to: new).1.filter { !named.contains($0.path) }
    }

    /// How many card files differ between two commits (`old` nil: every card of `new`), and which of
    /// them, as `new` has them, are not valid cards.
    func changedCards(from old: ObjectID?, to new: ObjectID) throws(StoreError) -> (Int, [CardProblem]) {
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
    func massDeletion(from remoteCommit: ObjectID, to new: ObjectID, _ options: SyncOptions) throws(StoreError)
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
    func plannedMassDeletion(_ merge: MergeReport, ours: ObjectID, theirs: ObjectID, _ options: SyncOptions)
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

    func massDeleteError(_ refused: (deleted: Int, of: Int), _ remote: DeckRemote, merged: Bool = false)
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
