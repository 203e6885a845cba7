import CardModel
import GitCore

extension Deck {
    /// Refuses a branch the page cannot go on: `main` (the deck's branch), the branch checked out, and a
    /// name git would refuse. `publishPages` checks it too; a caller asks first to refuse before writing
    /// anything else.
    package func checkPagesBranch(_ branch: String) throws(StoreError) {
        guard Repository.isValidBranchName(branch) else {
            throw StoreError(.invalidInput, "'\(branch)' is not a branch name git accepts; give another with --branch")
        }
        let reference = "refs/heads/\(branch)"
        if reference == self.branch || repository.headReferenceName() == reference {
            throw StoreError(
                .invalidInput,
                "the page cannot go on '\(branch)': it holds the deck (or is checked out); name another branch "
                    + "with --branch, such as pages")
        }
    }

    /// Commits `files` (path and bytes, at the root) to branch `branch` of the deck's repository (op
    /// `publish`), on top of what the branch holds (a `CNAME` or other files put there stay), signed as
    /// git signs; nil when the branch already has these bytes: a page that did not change makes no
    /// commit. Refuses `main`, the branch checked out, and a name git would refuse.
    @discardableResult
    package func publishPages(_ files: [(path: String, bytes: [UInt8])], branch: String, message: String)
        throws(StoreError) -> ObjectID?
    {
        try checkPagesBranch(branch)
        let reference = "refs/heads/\(branch)"
        let lock = try DeckLock(path: "\(gitDirectory)/cards.lock", timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        let identity = try commitIdentity()
        return try withStoreError("publishing to \(branch)") { () throws(GitError) -> ObjectID? in
            let parent = try repository.referenceTarget(reference)
            let baseTree = try parent.map { (id) throws(GitError) in try repository.commit(id).tree }
            var updates: [TreeUpdate] = []
            for (path, bytes) in files {
                updates.append(TreeUpdate(path: path, blob: try repository.writeBlob(bytes)))
            }
            let tree = try repository.updatedTree(base: baseTree, updates: updates)
            if tree == baseTree { return nil }
            return try commitPages(
                tree: tree, parent: parent, reference: reference, message: message, identity: identity)
        }
    }

    private func commitPages(
        tree: ObjectID, parent: ObjectID?, reference: String, message: String, identity: CommitIdentity
    ) throws(GitError) -> ObjectID {
        var bytes = try Repository.commitBytes(
            tree: tree, parents: parent.map { [$0] } ?? [], message: message + "\n\nOp: publish\n",
            author: identity.author, committer: identity.committer)
        if let signer = try CommitSigner.configured(in: repository) {
            bytes = try signer.sign(bytes, committer: identity.committer, in: workingDirectory ?? gitDirectory)
        }
        let commit = try repository.writeCommit(bytes, tree: tree, parents: parent.map { [$0] } ?? [])
        try repository.updateReference(
            reference, to: commit, expected: parent, logMessage: "cards publish: \(message)")
        return commit
    }
}
