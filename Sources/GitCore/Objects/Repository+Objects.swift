import CGit2
import Glibc

extension Repository {
    /// Writes a blob (idempotent: the same bytes give the same id).
    ///
    /// Through `git_odb_write`, which looks for the object before writing it: 1.5.1's
    /// `git_blob_create_from_buffer` opens a write stream first (a temporary file and a zlib
    /// state) and only then finds the blob already stored, as for most blobs of a merge.
    package func writeBlob(_ bytes: [UInt8]) throws(GitError) -> ObjectID {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        var oid = git_oid()
        let result = bytes.withUnsafeBytes { buffer in
            git_odb_write(&oid, odb, buffer.baseAddress, buffer.count, GIT_OBJECT_BLOB)
        }
        try check(result, "git_odb_write")
        return ObjectID(oid)
    }

    /// The folder shared by every worktree of the repository (objects, refs, logs), with a trailing
    /// slash: the git folder itself, except in a linked worktree (`.git/worktrees/<name>/`).
    package var commonDirectory: String {
        String(cString: git_repository_commondir(pointer))
    }

    /// The size of an object in bytes, read from its header without inflating the whole object.
    package func objectSize(_ id: ObjectID) throws(GitError) -> Int {
        try objectHeader(id).size
    }

    /// An object's size and type, read from its header without inflating the whole object.
    func objectHeader(_ id: ObjectID) throws(GitError) -> (size: Int, type: git_object_t) {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        var size = 0
        var type = GIT_OBJECT_ANY
        var oid = id.raw
        try check(git_odb_read_header(&size, &type, odb, &oid), "git_odb_read_header")
        return (size, type)
    }

    /// Whether the object exists in the object database.
    package func hasObject(_ id: ObjectID) -> Bool {
        var odb: OpaquePointer?
        guard git_repository_odb(&odb, pointer) == 0 else {
            git_error_clear()
            return false
        }
        defer { git_odb_free(odb) }
        var oid = id.raw
        return git_odb_exists(odb, &oid) == 1
    }

    /// The bytes of a blob; refuses (`.tooLarge`, a message with the size) one larger than `limit`
    /// before reading it, so a hostile 1 GB blob is never loaded.
    package func readBlob(_ id: ObjectID, limit: Int = Int.max) throws(GitError) -> [UInt8] {
        if limit != Int.max {
            let size = try objectSize(id)
            if size > limit {
                throw GitError(
                    code: .tooLarge, message: "object \(id.short) is \(size) bytes, more than the \(limit) allowed",
                    function: "readBlob")
            }
        }
        var blob: OpaquePointer?
        var oid = id.raw
        try check(git_blob_lookup(&blob, pointer, &oid), "git_blob_lookup")
        blobsRead += 1
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        guard size > 0, let raw = git_blob_rawcontent(blob) else { return [] }
        return Array(UnsafeRawBufferPointer(start: raw, count: size))
    }

    /// The entries of a tree, in git's order (sorted by name).
    package func treeEntries(_ id: ObjectID) throws(GitError) -> [TreeEntry] {
        var tree: OpaquePointer?
        var oid = id.raw
        try check(git_tree_lookup(&tree, pointer, &oid), "git_tree_lookup")
        defer { git_tree_free(tree) }
        let count = git_tree_entrycount(tree)
        var entries: [TreeEntry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            if let entry = git_tree_entry_byindex(tree, index) {
                entries.append(TreeEntry(entry))
            }
        }
        return entries
    }

    /// The entry at a slash-separated path inside a tree, or nil when there is none.
    package func treeEntry(in treeID: ObjectID, path: String) throws(GitError) -> TreeEntry? {
        var tree: OpaquePointer?
        var oid = treeID.raw
        try check(git_tree_lookup(&tree, pointer, &oid), "git_tree_lookup")
        defer { git_tree_free(tree) }
        var entry: OpaquePointer?
        let result = git_tree_entry_bypath(&entry, tree, path)
        if result == GIT_ENOTFOUND.rawValue {
            git_error_clear()
            return nil
        }
        try check(result, "git_tree_entry_bypath")
        defer { git_tree_entry_free(entry) }
        guard let entry else { return nil }
        return TreeEntry(entry)
    }

    /// The id of the empty tree, written if needed.
    package func emptyTree() throws(GitError) -> ObjectID {
        var builder: OpaquePointer?
        try check(git_treebuilder_new(&builder, pointer, nil), "git_treebuilder_new")
        defer { git_treebuilder_free(builder) }
        var oid = git_oid()
        try check(git_treebuilder_write(&oid, builder), "git_treebuilder_write")
        return ObjectID(oid)
    }

    /// Applies updates to a tree without reading the rest of it: only the subtrees on the updated
    /// paths are rewritten, so the cost grows with the change, not with the tree.
    /// A removal of a path that is not there is skipped; duplicate paths keep the last update.
    package func updatedTree(base: ObjectID?, updates: [TreeUpdate]) throws(GitError) -> ObjectID {
        // A nil baseline builds from nothing (the first commit), without writing an empty tree.
        var tree: OpaquePointer?
        if let base {
            var baseOID = base.raw
            try check(git_tree_lookup(&tree, pointer, &baseOID), "git_tree_lookup")
        }
        defer { if tree != nil { git_tree_free(tree) } }

        // Keyed by the path's bytes: two Strings equal to Swift (é and e + U+0301) are two paths to git.
        var lastByPath: [[UInt8]: TreeUpdate] = [:]
        var order: [[UInt8]] = []
        for update in updates {
            let key = Array(update.path.utf8)
            if lastByPath[key] == nil { order.append(key) }
            lastByPath[key] = update
        }
        var effective: [TreeUpdate] = []
        for key in order {
            guard let update = lastByPath[key] else { continue }
            let path = update.path
            if update.blob == nil {
                // libgit2 fails on removing what is not there: filter first.
                guard tree != nil else { continue }
                var entry: OpaquePointer?
                let found = git_tree_entry_bypath(&entry, tree, path)
                if found == 0 {
                    git_tree_entry_free(entry)
                } else {
                    git_error_clear()
                    continue
                }
            }
            effective.append(update)
        }
        if effective.isEmpty {
            if let base { return base }
            return try emptyTree()
        }

        // The C path strings must live through the call.
        let paths = effective.map { strdup($0.path) }
        defer { for path in paths { free(path) } }
        var raw: [git_tree_update] = []
        raw.reserveCapacity(effective.count)
        for (index, update) in effective.enumerated() {
            var item = git_tree_update()
            item.path = UnsafePointer(paths[index])
            if let blob = update.blob {
                item.action = GIT_TREE_UPDATE_UPSERT
                item.id = blob.raw
                item.filemode = git_filemode_t(rawValue: update.mode)
            } else {
                item.action = GIT_TREE_UPDATE_REMOVE
            }
            raw.append(item)
        }
        var out = git_oid()
        try check(git_tree_create_updated(&out, pointer, tree, raw.count, raw), "git_tree_create_updated")
        return ObjectID(out)
    }
}
