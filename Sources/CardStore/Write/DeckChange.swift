import GitCore

/// What one deck operation changes: files to write (bytes) or remove (nil), and the commit message.
package struct DeckChange {
    /// Paths in the deck and their new content; nil removes the file.
    package var files: [(path: String, content: [UInt8]?)]
    /// The message of the commit.
    package var message: CommitMessage
    /// Whether the change's objects go into a pack of their own (every commit of this package does;
    /// false writes loose objects through libgit2, flushed together when there are many).
    package var packable = true
    /// Trees the change was planned from, kept as raw bytes (a merge's walk): the new tree is then
    /// spliced from them instead of being rebuilt through libgit2 (`Repository.splicedTree`).
    package var trees: RawTreeCache?
    /// Blob ids of files in `files`, by position there, whose content is already in the object
    /// database (a merge taking one side's version): not written again. Each must be the blob id of
    /// that file's content.
    package var storedBlobs: [Int: ObjectID] = [:]
    /// Git file modes of files in `files`, by position, that are no plain file (an executable, a symbolic
    /// link, a submodule: a merge carrying another side's entry as it came); each such entry needs its
    /// object in `storedBlobs`.
    package var modes: [Int: UInt32] = [:]
    /// Files in `files`, by position, that go into the tree and the index but not the working tree
    /// (`Deck.notCheckedOut`: a link, a submodule, a huge file); each needs its object in `storedBlobs`.
    package var outsideWorkingTree: Set<Int> = []

    /// Creates a change.
    package init(files: [(path: String, content: [UInt8]?)], message: CommitMessage) {
        self.files = files
        self.message = message
    }
}

/// A commit a deck operation made.
public struct CommitOutcome: Sendable, Hashable {
    /// The new commit on `main`.
    public var commit: ObjectID
    /// The commit before it (nil for the first).
    public var parent: ObjectID?
}
