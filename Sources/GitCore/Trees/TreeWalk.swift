import CGit2
import Glibc

/// One path where trees walked together differ, with each tree's entry there (nil: absent).
package struct TreeWalkChange: Sendable, Hashable {
    /// The path from the root.
    package var path: String
    /// One entry per tree walked, in the order the trees were given.
    package var entries: [TreeEntry?]
}

extension Repository {
    /// Walks up to three trees together (nil: the empty tree) and returns the leaves (files, links,
    /// submodules) whose entries in tree `pair.0` and tree `pair.1` differ by id or kind, with the
    /// entry of every tree at that path, in git's order.
    ///
    /// A folder whose ids are equal in the two compared trees is skipped unread, so the cost grows
    /// with what changed. Entries are compared in libgit2's memory (name bytes, 20-byte ids): only
    /// the differing ones are copied into `TreeEntry` values, because at 100,000 cards a changed
    /// folder holds ~400 entries that are almost all equal. Each distinct tree object is read once
    /// per folder even when two of the trees share it (a side that did not touch the folder).
    ///
    /// Canonical trees (all that git and libgit2 write) are read as raw bytes, once each, and kept in
    /// `cache` when one is given (a merge builds its tree from them); any other tree sends the whole
    /// walk to libgit2's tree objects, which read it by their own rules (`RawTree`).
    ///
    /// - Complexity: O(entries of the folders that differ), no allocation per equal entry.
    /// `verified`: read every tree through libgit2, which checks each one's hash (`cards fsck`); the
    /// raw path reads canonical trees straight from the backends without that check.
    package func changedLeaves(
        _ trees: [ObjectID?], comparing pair: (Int, Int), cache: RawTreeCache? = nil, verified: Bool = false
    ) throws(GitError) -> [TreeWalkChange] {
        precondition(trees.count <= 3 && pair.0 < trees.count && pair.1 < trees.count)
        if !verified, let changes = try? rawChangedLeaves(trees, comparing: pair, cache: cache ?? RawTreeCache()) {
            return changes
        }
        return try libgit2ChangedLeaves(trees, comparing: pair)
    }

    /// `changedLeaves` through libgit2's tree objects: the path for trees that are not canonical.
    func libgit2ChangedLeaves(_ trees: [ObjectID?], comparing pair: (Int, Int)) throws(GitError) -> [TreeWalkChange] {
        var result: [TreeWalkChange] = []
        try walk(trees.map { $0?.raw }, comparing: pair, prefix: "", into: &result)
        return result
    }

    private func walk(
        _ ids: [git_oid?], comparing pair: (Int, Int), prefix: String, into result: inout [TreeWalkChange]
    ) throws(GitError) {
        if Self.same(ids[pair.0], ids[pair.1]) { return }
        // Look each distinct tree up once; a tree shared by two positions is walked by two cursors.
        var owned: [OpaquePointer] = []
        defer { for tree in owned { git_tree_free(tree) } }
        var cursors: [TreeCursor] = []
        for (position, id) in ids.enumerated() {
            guard var oid = id else {
                cursors.append(TreeCursor(tree: nil))
                continue
            }
            if let earlier = ids[..<position].firstIndex(where: { Self.same($0, oid) }) {
                cursors.append(TreeCursor(tree: cursors[earlier].tree))
                continue
            }
            var tree: OpaquePointer?
            try check(git_tree_lookup(&tree, pointer, &oid), "git_tree_lookup")
            guard let tree else { throw GitError(code: .notFound, message: "no tree", function: "git_tree_lookup") }
            owned.append(tree)
            cursors.append(TreeCursor(tree: tree))
        }
        // Reused for every key: no allocation per equal entry.
        var entries: [OpaquePointer?] = []
        entries.reserveCapacity(cursors.count)
        while true {
            // The smallest key (name, folder or not) under any cursor, in git's order.
            var smallest: (cursor: Int, entry: OpaquePointer)?
            for index in cursors.indices {
                guard let entry = cursors[index].current else { continue }
                if let best = smallest, TreeCursor.order(entry, best.entry) >= 0 { continue }
                smallest = (index, entry)
            }
            guard let smallest else { return }
            entries.removeAll(keepingCapacity: true)
            for index in cursors.indices {
                if let entry = cursors[index].current, TreeCursor.order(entry, smallest.entry) == 0 {
                    entries.append(entry)
                    cursors[index].advance()
                } else {
                    entries.append(nil)
                }
            }
            let left = entries[pair.0]
            let right = entries[pair.1]
            if let left, let right, git_oid_equal(git_tree_entry_id(left), git_tree_entry_id(right)) == 1,
                TreeCursor.kind(left) == TreeCursor.kind(right)
            {
                continue
            }
            let name = String(cString: git_tree_entry_name(smallest.entry))
            if git_tree_entry_type(smallest.entry) == GIT_OBJECT_TREE {
                try walk(
                    entries.map { $0.map { git_tree_entry_id($0).pointee } }, comparing: pair,
                    prefix: prefix + name + "/", into: &result)
            } else {
                result.append(TreeWalkChange(path: prefix + name, entries: entries.map { $0.map(TreeEntry.init) }))
            }
        }
    }

    private static func same(_ left: git_oid?, _ right: git_oid?) -> Bool {
        guard var left, var right else { return left == nil && right == nil }
        return git_oid_equal(&left, &right) == 1
    }
}

/// A position in one tree's entries, read in place. A tree whose entries are out of git's order
/// (only a hand-made or hostile one) is read through a sorted index instead, and of entries with
/// the same name the last counts, as when they are read into a dictionary.
private struct TreeCursor {
    let tree: OpaquePointer?
    private var order: [Int]?
    private var position = 0
    private let count: Int

    init(tree: OpaquePointer?) {
        self.tree = tree
        count = tree.map { git_tree_entrycount($0) } ?? 0
        guard let tree, count > 1 else { return }
        var sorted = true
        var previous = git_tree_entry_byindex(tree, 0)
        for index in 1..<count {
            let entry = git_tree_entry_byindex(tree, index)
            if let before = previous, let entry, TreeCursor.order(before, entry) >= 0 {
                sorted = false
                break
            }
            previous = entry
        }
        if !sorted {
            // Stable, so that of equal keys the later stays later (and wins in `current`).
            order = (0..<count).sorted { left, right in
                guard let a = git_tree_entry_byindex(tree, left), let b = git_tree_entry_byindex(tree, right) else {
                    return false
                }
                return TreeCursor.order(a, b) < 0
            }
        }
    }

    /// The entry under the cursor (the last of a run of equal keys), or nil at the end.
    var current: OpaquePointer? {
        mutating get {
            guard let tree, position < count else { return nil }
            while position + 1 < count, let here = entry(tree, position), let next = entry(tree, position + 1),
                TreeCursor.order(here, next) == 0
            {
                position += 1
            }
            return entry(tree, position)
        }
    }

    mutating func advance() { position += 1 }

    private func entry(_ tree: OpaquePointer, _ index: Int) -> OpaquePointer? {
        git_tree_entry_byindex(tree, order.map { $0[index] } ?? index)
    }

    /// git's order: names byte by byte, a folder's name as if it ended with "/".
    static func order(_ left: OpaquePointer, _ right: OpaquePointer) -> Int {
        let a = git_tree_entry_name(left)
        let b = git_tree_entry_name(right)
        guard let a, let b else { return 0 }
        let leftTree = git_tree_entry_type(left) == GIT_OBJECT_TREE
        let rightTree = git_tree_entry_type(right) == GIT_OBJECT_TREE
        if !leftTree && !rightTree {
            // Two files (every entry of a card folder): plain byte order, strcmp's.
            let compared = strcmp(a, b)
            return compared < 0 ? -1 : (compared > 0 ? 1 : 0)
        }
        var index = 0
        while true {
            var x = UInt8(bitPattern: a[index])
            var y = UInt8(bitPattern: b[index])
            if x == 0 && y == 0 { return leftTree == rightTree ? 0 : (leftTree ? 1 : -1) }
            let leftEnded = x == 0
            let rightEnded = y == 0
            if leftEnded { x = leftTree ? 0x2f : 0 }
            if rightEnded { y = rightTree ? 0x2f : 0 }
            if x != y { return x < y ? -1 : 1 }
            // Only a name holding "/" (never in a valid tree) gets here: never read past the end.
            if leftEnded || rightEnded { return leftEnded ? -1 : 1 }
            index += 1
        }
    }

    /// The entry's mode as the walk compares it: exactly, as git does (an executable bit set or cleared
    /// is a change).
    static func kind(_ entry: OpaquePointer) -> UInt32 {
        git_tree_entry_filemode(entry).rawValue
    }
}
