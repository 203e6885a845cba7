import GitCore
import Glibc
import Synchronization
import SystemCalls

/// The client hooks git runs around a commit, run where `git commit` and `git merge` run them:
/// `pre-commit` (`pre-merge-commit` for a merge) shown the index of the commit to be, `commit-msg`
/// given the message file (its edits kept), `post-commit` after a commit, `post-merge` after a
/// merge or fast-forward. A hook that refuses stops the command before anything is published.
extension Deck {
    /// Which hooks one commit runs, found once for it (a stat of each: nothing more when there are none).
    struct CommitHooks {
        /// Where they are (`Repository.hooksFolder`), looked up once for the commit.
        var folder = ""
        /// `pre-commit` or `pre-merge-commit`, when there is one and verification is on.
        var before: String?
        /// Whether `commit-msg` runs.
        var message: Bool
        /// `post-commit`, for a commit that is not a merge (git's merge runs `post-merge` instead).
        var afterCommit: Bool

        /// Whether a hook must read the commit's objects before it is written: they then go into a pack
        /// of their own before the hooks run, and the commit into a second (`CommitAttempt.flushObjects`).
        var readsObjects: Bool { before != nil || message }
    }

    private static let verifyHooksStore = Mutex(true)

    /// Whether `pre-commit`, `pre-merge-commit` and `commit-msg` run (`--no-verify` turns them off for
    /// the command, as for `git commit`); `post-commit` and `post-merge` always run.
    public static var runsVerifyHooks: Bool {
        get { verifyHooksStore.withLock { $0 } }
        set { verifyHooksStore.withLock { $0 = newValue } }
    }

    /// The hooks a commit with `merge` (a second parent) or without runs here.
    func commitHooks(merge: Bool) -> CommitHooks {
        let verify = Deck.runsVerifyHooks
        let before = merge ? "pre-merge-commit" : "pre-commit"
        let folder = repository.hooksFolder()
        return CommitHooks(
            folder: folder, before: verify && Repository.hasHook(before, in: folder) ? before : nil,
            message: verify && Repository.hasHook("commit-msg", in: folder),
            afterCommit: !merge && Repository.hasHook("post-commit", in: folder))
    }

    /// Runs the hooks before a commit of `tree` as `git commit <paths>` runs them: `pre-commit` (or
    /// `pre-merge-commit`), then `commit-msg` on `message` (in `COMMIT_EDITMSG`), both with
    /// `GIT_INDEX_FILE` naming an index of `tree` (so `git diff --cached` is the change), the author in
    /// `GIT_AUTHOR_NAME`, `GIT_AUTHOR_EMAIL` and `GIT_AUTHOR_DATE`, and `GIT_EDITOR=:`. Returns the
    /// message to commit: the hook's edits kept, cleaned of trailing spaces and extra blank lines as git
    /// cleans a message given without an editor; an emptied one aborts, as in git.
    func runHooksBeforeCommit(
        _ hooks: CommitHooks, tree: ObjectID, message: String, author: Signature
    ) throws(StoreError) -> String {
        guard hooks.before != nil || hooks.message else { return message }
        let prefix = "cards-hook-index-"
        let indexPath = "\(gitDirectory)/\(prefix)\(getpid())"
        defer { unlink(indexPath) }
        // One a killed command left (its process gone): only looked for where hooks run.
        for name in FileSystem.list(gitDirectory) where name.hasPrefix(prefix) {
            if let pid = Int32(name.dropFirst(prefix.count)), !LockFiles.isAlive(pid) {
                unlink("\(gitDirectory)/\(name)")
            }
        }
        try withStoreError("writing the index the commit hooks read") { () throws(GitError) in
            try repository.writeIndex(of: tree, to: indexPath)
        }
        let environment = [
            "GIT_INDEX_FILE": indexPath, "GIT_EDITOR": ":", "GIT_AUTHOR_NAME": author.name,
            "GIT_AUTHOR_EMAIL": author.email, "GIT_AUTHOR_DATE": "@\(author.time) \(author.zone)",
        ]
        if let name = hooks.before {
            try refuseUnlessZero(name, in: hooks.folder, runHook(name, in: hooks.folder, environment: environment))
        }
        guard hooks.message else { return message }
        let path = "\(gitDirectory)/COMMIT_EDITMSG"
        try FileSystem.writeAtomically(Array(message.utf8), to: path, durable: false)
        try refuseUnlessZero(
            "commit-msg", in: hooks.folder,
            runHook("commit-msg", in: hooks.folder, arguments: [path], environment: environment))
        guard let bytes = try? FileSystem.read(path, limit: 1 << 24) else {
            throw StoreError(.io, "cannot read \(path) back after the commit-msg hook; nothing was changed")
        }
        let edited = Deck.strippingSpace(String(decoding: bytes, as: UTF8.self))
        if edited.isEmpty {
            throw StoreError(
                .git(.user),
                "Aborting commit due to empty commit message (the commit-msg hook emptied it); "
                    + "nothing was changed")
        }
        return edited
    }

    /// A message as git's `stripspace` leaves it (no comment stripping): trailing white space off every
    /// line, runs of blank lines made one, none at the start or the end, a final line feed; empty when
    /// nothing is left.
    static func strippingSpace(_ text: String) -> String {
        var lines: [Substring] = []
        var blank = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var trimmed = line
            while let last = trimmed.last, last == " " || last == "\t" || last == "\r" { trimmed.removeLast() }
            if trimmed.isEmpty {
                blank = !lines.isEmpty
                continue
            }
            if blank { lines.append("") }
            blank = false
            lines.append(trimmed)
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    /// Runs a hook whose answer does not matter (`post-commit`, `post-merge`, `post-checkout`), when
    /// there is one: what it says is shown, a failure is not the command's.
    func runAfterHook(_ name: String, arguments: [String] = []) {
        let folder = repository.hooksFolder()
        guard Repository.hasHook(name, in: folder) else { return }
        _ = try? repository.runHook(name, in: folder, arguments: arguments)
    }

    private func runHook(
        _ name: String, in folder: String, arguments: [String] = [], environment: [String: String]
    ) throws(StoreError) -> Int32 {
        try withStoreError("running the \(name) hook") { () throws(GitError) in
            try repository.runHook(name, in: folder, arguments: arguments, environment: environment)
        }
    }

    private func refuseUnlessZero(_ name: String, in folder: String, _ status: Int32) throws(StoreError) {
        guard status != 0 else { return }
        throw StoreError(
            .git(.user),
            "the \(name) hook (\(folder)/\(name)) refused the commit (exit \(status)); what it "
                + "said is above; nothing was changed: fix what it names, or skip the hook with --no-verify")
    }
}
