import GitCore

/// One path whose blob differs between two trees.
public struct PathChange: Sendable, Hashable {
    /// The path from the root.
    public var path: String
    /// The entry before (nil: absent).
    public var old: TreeEntry?
    /// The entry after (nil: absent).
    public var new: TreeEntry?
}

/// Compares two trees by walking them together and skipping every subtree whose id is equal on
/// both sides, so the cost grows with what changed, not with the size of the trees.
public enum TreeDiff {
    /// The paths (files, links, submodules) that differ between `old` and `new` (nil: the empty tree).
    public static func changes(in repository: Repository, from old: ObjectID?, to new: ObjectID?) throws(GitError)
        -> [PathChange]
    {
        var result: [PathChange] = []
        try compare(repository, old, new, prefix: "", into: &result)
        return result
    }

    private static func compare(
        _ repository: Repository, _ old: ObjectID?, _ new: ObjectID?, prefix: String, into result: inout [PathChange]
    ) throws(GitError) {
        if old == new { return }
        let oldEntries = try old.map { (id) throws(GitError) in try repository.treeEntries(id) } ?? []
        let newEntries = try new.map { (id) throws(GitError) in try repository.treeEntries(id) } ?? []
        var oldByName: [String: TreeEntry] = [:]
        for entry in oldEntries { oldByName[entry.name] = entry }
        var newByName: [String: TreeEntry] = [:]
        for entry in newEntries { newByName[entry.name] = entry }
        let names = Set(oldByName.keys).union(newByName.keys).sorted()
        for name in names {
            let before = oldByName[name]
            let after = newByName[name]
            if before?.id == after?.id && before?.kind == after?.kind { continue }
            let path = prefix + name
            let beforeTree = before?.kind == .tree ? before : nil
            let afterTree = after?.kind == .tree ? after : nil
            if beforeTree != nil || afterTree != nil {
                try compare(repository, beforeTree?.id, afterTree?.id, prefix: path + "/", into: &result)
            }
            let beforeLeaf = before?.kind == .tree ? nil : before
            let afterLeaf = after?.kind == .tree ? nil : after
            if beforeLeaf != nil || afterLeaf != nil {
                result.append(PathChange(path: path, old: beforeLeaf, new: afterLeaf))
            }
        }
    }
}
