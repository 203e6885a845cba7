import CardModel
import DeckMerge
import GitCore
import Glibc
import SystemCalls

/// `cards sync --rebase`: a history without merge commits, for a remote that takes none (GitHub's
/// "require linear history", GitLab's fast-forward merges, gitolite's `VREF/MERGE-CHECK`), as
/// `git pull --rebase` makes one.
extension Deck {
    /// Whether a sync rebases when the deck and the remote both moved, as `git pull` decides:
    /// `branch.<name>.rebase`, else `pull.rebase` (true, `merges` and `interactive` rebase; false merges).
    package func rebasesOnSync() -> Bool {
        for key in ["branch.\(branchName).rebase", "pull.rebase"] {
            if let rebases = repository.configBool(key) { return rebases }
            // Not a boolean: `merges`, `interactive` (both rebase).
            if ((try? repository.configString(key)) ?? nil) != nil { return true }
        }
        return false
    }

    /// Whether a commit of `ours` that `theirs` lacks is a merge commit.
    func hasMergeCommits(_ ours: ObjectID, notIn theirs: ObjectID) throws(StoreError) -> Bool {
        var found = false
        do {
            try repository.walkHistory(from: ours, hiding: [theirs]) { commit in
                found = commit.parents.count > 1
                return !found
            }
        } catch {
            throw Deck.historyError(error)
        }
        return found
    }

    /// The commits of `ours` that `theirs` lacks, oldest first; merge commits are left out (their
    /// changes are in the commits they joined), as `git rebase` leaves them out.
    func commitsToReplay(_ ours: ObjectID, onto theirs: ObjectID) throws(StoreError) -> [Commit] {
        var newestFirst: [Commit] = []
        do {
            try repository.walkHistory(from: ours, hiding: [theirs]) { commit in
                if commit.parents.count <= 1 { newestFirst.append(commit) }
                return true
            }
        } catch {
            throw Deck.historyError(error)
        }
        return newestFirst.reversed()
    }

    /// Replays this deck's commits that `theirs` lacks onto `theirs`, one by one, each through the card
    /// and field merge against its own parent (conflicts recorded in the cards exactly as a merge records
    /// them) and committed with its own author and message; then moves `main` from `ours` to the last one
    /// (the working tree and index brought along), never to a history without the remote's. Returns what
    /// was decided, as a merge report whose commit is the new tip (on a dry run, none is made).
    func rebase(
        _ ours: ObjectID, onto theirs: ObjectID, theirsName: String, policy: MergePolicy, dryRun: Bool
    ) throws(StoreError) -> MergeReport {
        let replayed = try commitsToReplay(ours, onto: theirs)
        var report = MergeReport(kind: .merged, decisions: [], invalid: [])
        var tip = theirs
        let identity = dryRun ? nil : try commitIdentity()
        let deadline = MonotonicClock.now() + lockTimeout
        // Each replayed commit's pack is kept from git's repack until main reaches it (or the rebase fails).
        var keeps: [PackKeep] = []
        defer { for keep in keeps { keep.release() } }
        for (number, commit) in replayed.enumerated() {
            let plan = try planMerge(
                ours: tip, theirs: commit.id, theirsName: commit.id.short, policy: policy,
                base: .some(commit.parents.first))
            // What the replayed commit changed: a card only the remote's side changed is no news of the replay.
            report.decisions += plan.report.decisions.filter { $0.kind != .tookOurs && $0.kind != .unchanged }.map {
                // Said from this device's side: the replayed commit is this device's ("here"), the line it
                // is replayed onto the remote's.
                var decision = $0
                decision.summary = Deck.replaySummary(decision.summary)
                return decision
            }
            report.invalid += plan.report.invalid
            report.setAside += plan.report.setAside
            report.otherFiles += plan.report.otherFiles
            report.conflicts += plan.report.conflicts
            if dryRun { continue }
            var change = plan.change
            // The replayed commit says what the original said (less its Device trailer, which the commit
            // gets again); a conflict the replay recorded is said in its trailers too, as a merge says it.
            change.message = Deck.replayMessage(of: commit)
            change.message.trailers += plan.change.message.trailers.filter { $0.0 == "Card-Conflict" }
            guard !change.files.isEmpty, let identity else { continue }
            let attempt = CommitAttempt(
                deck: self, number: number + 1, snapshot: try snapshot(at: tip), change: change,
                identity: CommitIdentity(author: commit.author, committer: identity.committer), extraParents: [],
                recordingHandEdits: false, deadline: deadline, runsHooks: false)
            defer { attempt.end() }
            let (_, tree) = try attempt.writeObjects()
            let made = try attempt.writeCommit(tree: tree)
            try attempt.flushObjects(commit: made, tree: tree)
            keeps += attempt.handOverKeeps()
            tip = made
        }
        if dryRun { return report }
        // main moves once, from ours to the replayed line: a command that moved it meanwhile makes this fail
        // (checked under the deck lock, then by compare-and-swap), and the sync's next round starts again
        // from the new main.
        let (commit, _, carried) = try fastForward(
            to: tip, from: ours, theirsName: theirsName,
            logMessage: Deck.ownCommitLogPrefix + "rebase onto \(theirsName) (\(replayed.count) commits replayed)")
        report.commit = commit
        report.otherFiles += carried
        // One small pack a replayed commit: combined as after any commit once there are many.
        for keep in keeps { keep.release() }
        keeps = []
        consolidatePacks()
        return report
    }

    /// A replayed commit's message: the original's subject, body and trailers, less its `Device`
    /// trailer (the replay gets this deck's, as every commit does).
    static func replayMessage(of commit: Commit) -> CommitMessage {
        let trailers = commit.trailers.filter { $0.key != Deck.deviceTrailer }.map { ($0.key, $0.value) }
        var paragraphs = commit.message.split(separator: "\n\n", omittingEmptySubsequences: true).map(String.init)
        if !commit.trailers.isEmpty, paragraphs.count > 1 { paragraphs.removeLast() }
        // A first paragraph of several lines keeps its other lines (the subject is its first line only).
        var rest = Array(paragraphs.dropFirst())
        if let first = paragraphs.first, let lineEnd = first.firstIndex(of: "\n") {
            rest.insert(String(first[first.index(after: lineEnd)...]), at: 0)
        }
        let body = rest.joined(separator: "\n\n").trimmingTrailingNewlines()
        return CommitMessage(subject: commit.subject, body: body.isEmpty ? nil : body, trailers: trailers)
    }
}

extension Deck {
    /// A merge decision's line as a rebase shows it: the merge's "theirs" (the commit replayed) is this
    /// device's, "here"; its "ours" (the line replayed onto) the remote's. Only the words after the
    /// card's quoted title are changed.
    static func replaySummary(_ summary: String) -> String {
        var labelEnd = summary.startIndex
        if summary.hasPrefix("\"") {
            var escaped = false
            var index = summary.index(after: summary.startIndex)
            while index < summary.endIndex {
                let character = summary[index]
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    labelEnd = summary.index(after: index)
                    break
                }
                index = summary.index(after: index)
            }
        }
        var rest = String(summary[labelEnd...])
        for (from, to) in [
            (" on theirs", " here"), (" from theirs", " from here"), (" on ours", " on the remote"),
            (" from ours", " from the remote"),
        ] {
            rest = rest.replacing(from, with: to)
        }
        return String(summary[..<labelEnd]) + rest
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
