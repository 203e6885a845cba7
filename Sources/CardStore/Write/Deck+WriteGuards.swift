import CardModel
import GitCore

/// What refuses a write before anything is written: git's own operation unfinished, another branch or
/// worktree checked out, hand edits the change would overwrite.
extension Deck {
    /// Refuses to write while git has an operation of its own unfinished in the working tree (a
    /// `git pull` whose merge stopped on conflicts, say): a commit of ours would take the half-merged
    /// files and index for hand edits, and git's own commit would then be made on top of it.
    func checkNoUnfinishedGitOperation() throws(StoreError) {
        if let problem = unfinishedGitOperation() {
            throw StoreError(.uncommittedChanges, "\(problem), then try again")
        }
    }

    /// The git operation unfinished in the working tree and what to do about it (without the closing
    /// "then …"), or nil: for the refusal of a write and for `cards fsck`.
    func unfinishedGitOperation() -> String? {
        if !isBare, let operation = repository.unfinishedOperation {
            return "a git \(operation.name) is unfinished in \(location); finish it (\(operation.finish)) or abandon "
                + "it (\(operation.abort))"
        }
        return otherCheckout()
    }

    /// What is checked out instead of main, said with what to do, or nil when main is, here only: cards
    /// reads and writes main, so a working tree on another branch would show main's changes as hand
    /// edits there, and another working tree on main (a linked worktree of this deck, bare or not)
    /// would take the new cards written here for cards deleted by hand.
    func otherCheckout() -> String? {
        let other = repository.otherWorktrees(checkingOut: branch).first
        let head = isBare ? branch : repository.headReferenceName()
        if head == branch {
            guard let other else { return nil }
            let folder = ShellWord.quoted(other.folder)
            let runThere = isBare ? "run cards there (`cards --deck \(folder) …`), or " : ""
            let remove = other.linked ? " or remove it (`git worktree remove \(folder)`)" : ""
            return "\(branchName) is\(isBare ? "" : " also") checked out in the worktree at \(other.folder); "
                + "cards writes \(branchName) from one working tree only: \(runThere)detach that one "
                + "(`git -C \(folder) switch --detach`)\(remove)"
        }
        // HEAD that cannot be read for want of a file descriptor is not detached.
        if head == nil, let limit = StoreError.openFileLimitReached() { return "cannot read HEAD" + limit }
        let checkedOut = head.map { "branch \($0.dropFirst("refs/heads/".count)) is checked out" } ?? "HEAD is detached"
        let problem = "\(checkedOut) in \(location), but cards works on \(branchName)"
        // git will not check out a branch twice: then the deck is the worktree that has it.
        if let other {
            return "\(problem), which is checked out in the worktree at \(other.folder); run cards there "
                + "(`cards --deck \(ShellWord.quoted(other.folder)) …`)"
        }
        let branchWord = ShellWord.quoted(branchName)
        return "\(problem); switch back with `git switch \(branchWord)` (or `git checkout \(branchWord)`)"
    }

    /// Refuses to overwrite a card file whose working-tree content differs from `main`: that is a
    /// hand edit that `cards commit` should record first.
    func checkNoHandEdits(
        _ files: [(path: String, incoming: () -> ObjectID?)], snapshot: DeckSnapshot
    ) throws(StoreError) {
        for file in files {
            guard let fullPath = try workingFile(file.path) else { continue }
            let committed = try snapshot.blobID(at: file.path)
            if committed == nil && !FileSystem.exists(fullPath) { continue }
            let present: ObjectID?
            var bytes: [UInt8]?
            if FileSystem.exists(fullPath) {
                bytes = try? FileSystem.read(fullPath, limit: 1 << 26)
                guard let bytes else {
                    throw StoreError(
                        .uncommittedChanges,
                        "\(file.path) in the working tree is not a readable file; remove it or run `cards status`")
                }
                present = cleanedID(bytes, path: file.path)
            } else {
                present = nil
            }
            if present == committed { continue }
            // The file already holds what is about to land there (a retried command): fine. Hashed only
            // here, off the common path.
            if present == file.incoming() { continue }
            // `cards commit` refuses a file that is not a valid card: then the way to keep the edit is to fix it.
            var keep = "run `cards commit` to keep them"
            // `cards commit` commits card files only: a file that is no card is git's to commit.
            if CardID.id(fromPath: file.path) == nil {
                let quoted = ShellWord.quoted(file.path)
                let message = ShellWord.quoted("Edit " + file.path)
                keep = "it is no card file, so commit it with git (`git add \(quoted) && git commit -m \(message)`)"
            }
            if let bytes, let id = CardID.id(fromPath: file.path),
                case .invalid(let reason) = Deck.version(bytes, id: id)
            {
                keep = "the file is not a valid card (\(reason)): fix it and `cards commit` to keep them"
            }
            throw StoreError(
                .uncommittedChanges,
                "\(file.path) has hand edits that are not committed; \(keep) "
                    + "(or `git checkout -- \(ShellWord.quoted(file.path))` to drop them), then try again")
        }
    }
}
