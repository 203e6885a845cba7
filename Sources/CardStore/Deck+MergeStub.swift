import DeckMerge
import GitCore

// TEMPORARY: stands in for Deck+Merge.swift (being written on main) so sync can be built and
// tested now. Same API; handles only "up to date" and "fast-forward". Delete when the real one lands.

/// What a merge did (or, on a dry run, would do).
public struct MergeReport: Sendable {
    /// How the two histories related.
    public enum Kind: Sendable { case upToDate, fastForward, merged }
    /// How the two histories related.
    public var kind: Kind
    /// `main` after the merge (nil on a dry run, or when up to date).
    public var commit: ObjectID?
    /// One decision per card that changed on either side.
    public var decisions: [CardDecision]
    /// Incoming card files that failed validation (kept as they came).
    public var invalid: [CardProblem]
}

extension Deck {
    /// Merges the commit `theirs` into main: up to date, fast-forward, or a two-parent merge commit; dryRun writes nothing.
    public func merge(theirs: ObjectID, theirsName: String, policy: MergePolicy, dryRun: Bool) throws(StoreError) -> MergeReport {
        let lock = try DeckLock(path: "\(gitDirectory)/cards.lock", timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        let ours = try headCommit()
        if let ours {
            if ours == theirs { return MergeReport(kind: .upToDate, commit: nil, decisions: [], invalid: []) }
            let contained = try git("comparing histories") { () throws(GitError) in
                try repository.isDescendant(ours, of: theirs)
            }
            if contained { return MergeReport(kind: .upToDate, commit: nil, decisions: [], invalid: []) }
            let fastForward = try git("comparing histories") { () throws(GitError) in
                try repository.isDescendant(theirs, of: ours)
            }
            guard fastForward else {
                throw StoreError(.sync, "merging diverged histories is not available yet (the merge engine lands soon)")
            }
        }
        if dryRun { return MergeReport(kind: .fastForward, commit: nil, decisions: [], invalid: []) }
        let oldTree = try ours.map { (id) throws(StoreError) in
            try git("reading commit \(id.short)") { () throws(GitError) in try repository.commit(id).tree }
        }
        let newTree = try git("reading commit \(theirs.short)") { () throws(GitError) in try repository.commit(theirs).tree }
        let changes = try git("comparing trees") { () throws(GitError) in
            try TreeDiff.changes(in: repository, from: oldTree, to: newTree)
        }
        if !isBare {
            try checkNoHandEdits(
                DeckChange(files: changes.map { ($0.path, nil) }, message: CommitMessage(subject: "", trailers: [])),
                snapshot: try snapshot())
        }
        try git("fast-forwarding \(Deck.branch)") { () throws(GitError) in
            try repository.updateReference(
                Deck.branch, to: theirs, expected: ours, logMessage: "cards: fast-forward to \(theirsName)")
        }
        if !isBare { try updateWorkingTree(changes.map(\.path), snapshotTree: newTree) }
        return MergeReport(kind: .fastForward, commit: theirs, decisions: [], invalid: [])
    }
}
