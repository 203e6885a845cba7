import CGit2
import Glibc

/// The repository's index (staging area), opened for reading and updating a few entries.
package final class Index {
    let pointer: OpaquePointer

    init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        git_index_free(pointer)
    }

    /// An index file on its own, at `path` (read if it exists), belonging to no repository: entries are
    /// staged by id (`stage`), and `write` writes that file (through `<path>.lock`).
    package static func open(path: String) throws(GitError) -> Index {
        Libgit2.ensureInitialized()
        var pointer: OpaquePointer?
        try check(git_index_open(&pointer, path), "git_index_open")
        guard let pointer else { throw GitError(code: .unexpected, message: "no index", function: "git_index_open") }
        return Index(pointer: pointer)
    }

    /// Number of entries.
    package var count: Int { git_index_entrycount(pointer) }

    /// Re-reads the index file from disk (`force`: even when it looks unchanged).
    package func reload(force: Bool = true) throws(GitError) {
        try check(git_index_read(pointer, force ? 1 : 0), "git_index_read")
    }

    /// Stages the working-tree file at `path` (hashing it and recording its stat data).
    package func add(path: String) throws(GitError) {
        try check(git_index_add_bypath(pointer, path), "git_index_add_bypath")
    }

    /// Removes `path` from the index; no error when it is not there.
    package func remove(path: String) throws(GitError) {
        guard git_index_get_bypath(pointer, path, 0) != nil else { return }
        try check(git_index_remove_bypath(pointer, path), "git_index_remove_bypath")
    }

    /// Stages the object `id` with `mode` at `path` without reading the working tree: its stat data is
    /// left empty, so git compares that file by content.
    /// `skipWorktree`: git's skip-worktree bit, for an entry the working tree does not hold on purpose (a
    /// link or a submodule a deck keeps in its trees without checking it out): `git status` then does
    /// not call it deleted.
    package func stage(path: String, id: ObjectID, mode: UInt32, skipWorktree: Bool = false) throws(GitError) {
        var entry = git_index_entry()
        entry.mode = mode
        entry.id = id.raw
        if skipWorktree { entry.flags_extended = UInt16(GIT_INDEX_ENTRY_SKIP_WORKTREE.rawValue) }
        let status = path.withCString { name in
            entry.path = name
            return git_index_add(pointer, &entry)
        }
        try check(status, "git_index_add")
    }

    /// Sets git's skip-worktree bit on every stage-0 entry whose path `marks` says (a repair that made
    /// the index again from a tree keeps what a sparse checkout left out of the working tree); returns
    /// how many entries it marked.
    @discardableResult
    package func markSkipWorktree(where marks: (String) -> Bool) throws(GitError) -> Int {
        let bit = UInt16(GIT_INDEX_ENTRY_SKIP_WORKTREE.rawValue)
        var marked: [git_index_entry] = []
        var names: [String] = []
        for position in 0..<git_index_entrycount(pointer) {
            guard let entry = git_index_get_byindex(pointer, position), let name = entry.pointee.path else { continue }
            guard git_index_entry_stage(entry) == 0, entry.pointee.flags_extended & bit == 0 else { continue }
            let path = String(cString: name)
            guard marks(path) else { continue }
            var copy = entry.pointee
            copy.flags_extended |= bit
            marked.append(copy)
            names.append(path)
        }
        // Added after the walk: adding replaces entries, and the borrowed pointers would go stale.
        for (position, var entry) in marked.enumerated() {
            let status = names[position].withCString { name in
                entry.path = name
                return git_index_add(pointer, &entry)
            }
            try check(status, "git_index_add")
        }
        return marked.count
    }

    /// The entry staged at `path` (stage 0) as `stage(_:at:)` puts it back: its object, mode and extended
    /// flags (skip-worktree, intent-to-add); nil when the index has none. Its stat data is not kept.
    package func entry(path: String) -> IndexEntry? {
        guard let entry = git_index_get_bypath(pointer, path, 0) else { return nil }
        return IndexEntry(
            id: ObjectID(entry.pointee.id), mode: entry.pointee.mode, flagsExtended: entry.pointee.flags_extended)
    }

    /// Stages `entry` (as `entry(path:)` read it) at `path`, without stat data: git compares that file by
    /// content.
    package func stage(_ entry: IndexEntry, at path: String) throws(GitError) {
        var raw = git_index_entry()
        raw.mode = entry.mode
        raw.id = entry.id.raw
        // Only the flags git keeps in the file (skip-worktree, intent-to-add); libgit2 marks the entry
        // extended itself when it writes one.
        raw.flags_extended = entry.flagsExtended & UInt16(GIT_INDEX_ENTRY_EXTENDED_FLAGS.rawValue)
        let status = path.withCString { name in
            raw.path = name
            return git_index_add(pointer, &raw)
        }
        try check(status, "git_index_add")
    }

    /// The blob staged at `path`, or nil.
    package func entryID(path: String) -> ObjectID? {
        guard let entry = git_index_get_bypath(pointer, path, 0) else { return nil }
        return ObjectID(entry.pointee.id)
    }

    /// Replaces the whole index with the contents of a tree (stat data is refreshed on the next status).
    package func readTree(_ tree: ObjectID) throws(GitError) {
        let repository = git_index_owner(pointer)
        var treePointer: OpaquePointer?
        var oid = tree.raw
        try check(git_tree_lookup(&treePointer, repository, &oid), "git_tree_lookup")
        defer { git_tree_free(treePointer) }
        try check(git_index_read_tree(pointer, treePointer), "git_index_read_tree")
    }

    /// The tree the index describes, written to the object database.
    package func writeTree() throws(GitError) -> ObjectID {
        var oid = git_oid()
        try check(git_index_write_tree(&oid, pointer), "git_index_write_tree")
        return ObjectID(oid)
    }

    /// Writes the index back to disk through `index.lock` (`.locked` while another writer holds it).
    package func write() throws(GitError) {
        try check(git_index_write(pointer), "git_index_write")
    }
}

/// One index entry as `Index.entry(path:)` reads it, to be staged again as it was.
package struct IndexEntry: Sendable, Equatable {
    /// The object staged.
    package var id: ObjectID
    /// Its git mode (0o100644, 0o100755, 0o120000, 0o160000).
    package var mode: UInt32
    /// libgit2's extended flags (skip-worktree, intent-to-add).
    package var flagsExtended: UInt16
}

extension Repository {
    /// Writes an index file at `path` holding the whole of `tree` (no stat data: git compares by
    /// content), through `<path>.lock`: the index a hook is shown for a commit of that tree.
    package func writeIndex(of tree: ObjectID, to path: String) throws(GitError) {
        let index = try Index.open(path: path)
        var treePointer: OpaquePointer?
        var oid = tree.raw
        try check(git_tree_lookup(&treePointer, pointer, &oid), "git_tree_lookup")
        defer { git_tree_free(treePointer) }
        try check(git_index_read_tree(index.pointer, treePointer), "git_index_read_tree")
        try index.write()
    }

    /// Opens the repository's index.
    package func index() throws(GitError) -> Index {
        var out: OpaquePointer?
        try check(git_repository_index(&out, pointer), "git_repository_index")
        guard let out else { throw GitError(code: .notFound, message: "no index", function: "git_repository_index") }
        return Index(pointer: out)
    }

    /// Makes the working tree and index match HEAD, overwriting local changes under `paths`
    /// (all paths when empty). Used by init, clone and repair, never on the per-card hot path.
    package func checkoutHead(paths: [String] = []) throws(GitError) {
        var options = git_checkout_options()
        try check(
            git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)), "git_checkout_options_init")
        options.checkout_strategy = GIT_CHECKOUT_FORCE.rawValue | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH.rawValue
        let cStrings = paths.map { strdup($0) }
        defer { for string in cStrings { free(string) } }
        var pointers: [UnsafeMutablePointer<CChar>?] = cStrings
        let result = pointers.withUnsafeMutableBufferPointer { buffer -> Int32 in
            if !paths.isEmpty {
                options.paths.strings = buffer.baseAddress
                options.paths.count = buffer.count
            }
            return git_checkout_head(pointer, &options)
        }
        try check(result, "git_checkout_head")
    }
}

/// A working-tree path whose state differs from the index or HEAD.
package struct StatusEntry: Sendable, Hashable {
    /// How the path differs.
    package enum Change: Sendable, Hashable {
        /// Present in the working tree, not in HEAD.
        case added
        /// Content differs from HEAD.
        case modified
        /// In HEAD, gone from the working tree.
        case deleted
        /// Anything else (type change, rename, conflict).
        case other
    }
    /// Path relative to the working tree root.
    package var path: String
    /// What changed.
    package var change: Change
}

extension Repository {
    /// Working-tree changes against HEAD under folders or at files (`cards/`, `deck.json`; untracked
    /// files included, recursively), in one scan: it is for `status` and `commit`, never for the
    /// per-card commands.
    ///
    /// Read-only: it does not write refreshed file data back, as `git status` does. libgit2 1.5
    /// writes its in-memory copy of the index without checking that the file is still the one it
    /// read (git does), so an index written by another command during the scan (a card added) was
    /// overwritten, the card then showing as deleted by hand.
    package func status(under paths: [String]) throws(GitError) -> [StatusEntry] {
        var options = git_status_options()
        try check(git_status_options_init(&options, UInt32(GIT_STATUS_OPTIONS_VERSION)), "git_status_options_init")
        options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR
        options.flags =
            GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH.rawValue
        var patterns: [UnsafeMutablePointer<CChar>?] = paths.map { strdup($0) }
        defer { for pattern in patterns { free(pattern) } }
        var list: OpaquePointer?
        let result = patterns.withUnsafeMutableBufferPointer { buffer -> Int32 in
            options.pathspec.strings = buffer.baseAddress
            options.pathspec.count = buffer.count
            return git_status_list_new(&list, pointer, &options)
        }
        try check(result, "git_status_list_new")
        defer { git_status_list_free(list) }
        var entries: [StatusEntry] = []
        let count = git_status_list_entrycount(list)
        for index in 0..<count {
            guard let entry = git_status_byindex(list, index) else { continue }
            let flags = entry.pointee.status.rawValue
            let delta = entry.pointee.index_to_workdir ?? entry.pointee.head_to_index
            guard let delta else { continue }
            let file = delta.pointee.new_file.path ?? delta.pointee.old_file.path
            guard let file else { continue }
            let path = String(cString: file)
            let change: StatusEntry.Change
            if flags & (GIT_STATUS_WT_DELETED.rawValue | GIT_STATUS_INDEX_DELETED.rawValue) != 0 {
                change = .deleted
            } else if flags & (GIT_STATUS_WT_NEW.rawValue | GIT_STATUS_INDEX_NEW.rawValue) != 0 {
                change = .added
            } else if flags & (GIT_STATUS_WT_MODIFIED.rawValue | GIT_STATUS_INDEX_MODIFIED.rawValue) != 0 {
                change = .modified
            } else {
                change = .other
            }
            entries.append(StatusEntry(path: path, change: change))
        }
        return entries
    }
}
