import CGit2

extension Repository {
    /// The objects reachable from `tip` and from none of `excluding`, each with its type: the commits
    /// between them (a revision walk) and, for each, the trees and blobs its tree has and its first
    /// parent's has not, found by comparing the two trees folder by folder, where only folders whose
    /// ids differ are read. An object the walk of one commit finds may also be reachable from
    /// another parent, which costs a few bytes, never a missing object: the first commit of the
    /// range whose tree holds an object has no parent that holds it. (Following first parents from
    /// any commit whose tree holds an object reaches, within the range, one whose first parent does
    /// not hold it: else the object would be reachable from `excluding`. Its tree walk reaches the
    /// object, every folder above it differing from the parent's.)
    ///
    /// Nil for a tree that is not in canonical form (the caller then asks libgit2's packbuilder, which
    /// has its own rules for such trees). The trees it reads stay in `cache`, for the caller to pack.
    func newObjects(tip: ObjectID, excluding: [ObjectID], cache: RawTreeCache = RawTreeCache()) throws(GitError)
        -> [(id: git_oid, type: git_object_t)]?
    {
        let walk = try revisionWalk(from: tip, hiding: excluding)
        defer { git_revwalk_free(walk) }
        var objects: [(id: git_oid, type: git_object_t)] = []
        var seen = NewObjectsSeen()
        var next = git_oid()
        while true {
            let result = git_revwalk_next(&next, walk)
            if result == GIT_ITEROVER.rawValue { break }
            try check(result, "git_revwalk_next")
            let commit = try self.commit(ObjectID(next))
            objects.append((next, GIT_OBJECT_COMMIT))
            let parentTree = try commit.parents.first.map { (parent) throws(GitError) in try self.commit(parent).tree }
            do {
                try collectNewObjects(commit.tree, against: parentTree, cache: cache, seen: &seen, into: &objects)
            } catch {
                return nil
            }
        }
        return objects
    }

    /// A revision walk of the commits reachable from `tip` and from none of `hiding`; the caller frees it.
    func revisionWalk(from tip: ObjectID, hiding: [ObjectID]) throws(GitError) -> OpaquePointer {
        var out: OpaquePointer?
        try check(git_revwalk_new(&out, pointer), "git_revwalk_new")
        guard let walk = out else {
            throw GitError(code: .unexpected, message: "no revision walk", function: "git_revwalk_new")
        }
        var tipOID = tip.raw
        var result = git_revwalk_push(walk, &tipOID)
        for hiddenID in hiding where result == 0 {
            var hidden = hiddenID.raw
            result = git_revwalk_hide(walk, &hidden)
        }
        if result != 0 {
            let error = GitError.last(result, function: "git_revwalk")
            git_revwalk_free(walk)
            throw error
        }
        return walk
    }

    /// The tree `tree` and what under it differs from `old` (nil: everything), each object once.
    private func collectNewObjects(
        _ tree: ObjectID, against old: ObjectID?, cache: RawTreeCache, seen: inout NewObjectsSeen,
        into objects: inout [(id: git_oid, type: git_object_t)]
    ) throws(RawTreeFallback) {
        if tree == old { return }
        // The same tree against the same old one collects the same again: once is enough. (Against
        // another old tree it may find more: a tree seen once is not done with.)
        guard seen.walks.insert(TreePair(tree: tree, old: old)).inserted else { return }
        if seen.objects.insert(tree).inserted { objects.append((tree.raw, GIT_OBJECT_TREE)) }
        let new = try rawTree(tree, cache: cache)
        let previous = try old.map { (id) throws(RawTreeFallback) in try rawTree(id, cache: cache) } ?? RawTree.empty
        var position = 0
        for entry in new.entries {
            // Both are in git's order: the old entry of the same name and kind, if any, is found by
            // moving along the old tree.
            var match: RawTree.Entry?
            while position < previous.entries.count {
                let candidate = previous.entries[position]
                let order = RawTree.order(previous.bytes, candidate, new.bytes, entry)
                if order < 0 {
                    position += 1
                    continue
                }
                if order == 0 { match = candidate }
                break
            }
            if let match, RawTree.sameTarget(previous, match, new, entry) { continue }
            let id = new.id(entry)
            switch entry.mode {
            case RawTree.treeMode:
                try collectNewObjects(
                    id, against: match.map { previous.id($0) }, cache: cache, seen: &seen, into: &objects)
            // A submodule's commit lives in another repository.
            case RawTree.submoduleMode: continue
            default:
                if seen.objects.insert(id).inserted { objects.append((id.raw, GIT_OBJECT_BLOB)) }
            }
        }
    }
}

/// A tree walked against an old one (nil: against nothing).
private struct TreePair: Hashable {
    var tree: ObjectID
    var old: ObjectID?
}

/// What `newObjects` has done: the tree walks, and the objects listed.
private struct NewObjectsSeen {
    var walks = Set<TreePair>()
    var objects = Set<ObjectID>()
}
