import GitCore

/// One path whose blob differs between two trees.
package struct PathChange: Sendable, Hashable {
    /// The path from the root.
    package var path: String
    /// The entry before (nil: absent).
    package var old: TreeEntry?
    /// The entry after (nil: absent).
    package var new: TreeEntry?
}

/// Compares two trees by walking them together and skipping every subtree whose id is equal on
/// both sides, so the cost grows with what changed, not with the size of the trees
/// (`Repository.changedLeaves`: equal entries are compared in place, never copied).
package enum TreeDiff {
    /// The paths (files, links, submodules) that differ between `old` and `new` (nil: the empty tree).
    /// `verified`: every tree read is hash-checked (see `Repository.changedLeaves`).
    package static func changes(
        in repository: Repository, from old: ObjectID?, to new: ObjectID?, verified: Bool = false
    ) throws(GitError) -> [PathChange] {
        try repository.changedLeaves([old, new], comparing: (0, 1), verified: verified).map { change in
            PathChange(path: change.path, old: change.entries[0], new: change.entries[1])
        }
    }
}
