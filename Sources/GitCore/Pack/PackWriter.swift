import CGit2
import Dispatch

/// Writes the new objects of one commit (one card, a merge, an import of thousands of cards) as a
/// single pack instead of one loose file (and, when durable, one fsync) per object.
///
/// Blobs and the commit are kept in an in-memory object store (libgit2's mempack) written directly,
/// the trees a splice makes as the arrays it made; `finish` packs the new ones into `objects/pack`
/// (see `PackFile`: whole objects, pack and index flushed before they are named). Only a tree
/// libgit2 must build (`TreeSplice` gave way) goes through `repository`, a second handle on the
/// repository whose object database has the in-memory store in front, opened on that first use:
/// opening it read the configuration again and, for the commit's parent, every pack index (~0.3 ms
/// of a one-card commit that never needed it).
package final class PackWriter {
    private let gitDirectory: String
    private let packFolder: String
    private let backend: UnsafeMutablePointer<git_odb_backend>
    /// The second handle, once opened; it owns the in-memory store from then on.
    private var handle: Repository?
    /// The blobs written so far, to pack in `finish`.
    private var blobs: [git_oid] = []
    /// The trees written through `write(tree:)` (a splice), by id, to pack in `finish` without a walk.
    /// Kept here, not in the in-memory store: a store's write and read each copy the bytes (a
    /// 1000+1000 merge at 100,000 cards makes ~250 trees of ~27 KB), and libgit2 never reads them.
    private var splicedTrees: [ObjectID: [UInt8]] = [:]
    /// The root tree of each commit written through `writeCommit`, read from its first line.
    private var commitTrees: [ObjectID: ObjectID] = [:]

    /// A writer for the objects of one commit to `repository` (its common folder holds the packs).
    package init(for repository: Repository) throws(GitError) {
        gitDirectory = repository.gitDirectory
        packFolder = repository.packFolder
        var out: UnsafeMutablePointer<git_odb_backend>?
        try check(git_mempack_new(&out), "git_mempack_new")
        guard let out else {
            throw GitError(code: .unexpected, message: "no in-memory backend", function: "git_mempack_new")
        }
        backend = out
    }

    deinit {
        // Until a handle's object database took it over, the store is this writer's to free.
        if handle == nil { backend.pointee.free?(backend) }
    }

    /// A handle on the repository whose writes land in memory (opened on first use): for a tree that
    /// libgit2 builds (`git_tree_create_updated`).
    package var repository: Repository {
        get throws(GitError) {
            if let handle { return handle }
            let opened = try Repository.open(at: gitDirectory)
            var odb: OpaquePointer?
            try check(git_repository_odb(&odb, opened.pointer), "git_repository_odb")
            defer { git_odb_free(odb) }
            // The odb owns the backend once added, and frees it with the repository.
            try check(git_odb_add_backend(odb, backend, 1000), "git_odb_add_backend")
            handle = opened
            return opened
        }
    }

    /// Writes a blob straight into the in-memory store. Going through the object database would, for
    /// each new object, first look for it on disk and rescan `objects/pack` on the miss (1.5.1's
    /// freshen): ~20 µs of directory reads per card. A blob already on disk is written again and
    /// packed twice at worst, which is harmless.
    package func writeBlob(_ bytes: [UInt8]) throws(GitError) -> ObjectID {
        let oid = try writeToMemory(bytes, type: GIT_OBJECT_BLOB)
        blobs.append(oid)
        return ObjectID(oid)
    }

    /// Keeps a tree (its entries, no header) for the pack: when the commit's root tree is one of these,
    /// `finish` packs them without walking the new trees (a splice writes every new tree of the commit
    /// through here, or gives way and has them forgotten).
    ///
    /// The id is `known` (hashed already, on the thread that made the bytes) or hashed here
    /// (`ObjectID.hash(of:type:)`, collision-detecting). `known` must be the bytes' tree id.
    func write(tree bytes: [UInt8], id known: ObjectID? = nil) throws(GitError) -> ObjectID {
        let id: ObjectID
        if let known { id = known } else { id = try ObjectID.hash(of: bytes, type: GIT_OBJECT_TREE) }
        splicedTrees[id] = bytes
        return id
    }

    /// Writes a commit (its bytes, from `Repository.commitBytes`) straight into the in-memory store,
    /// as `writeBlob` does a blob: through the object database, libgit2 1.5.1 would first look for the
    /// new commit in every pack on disk, opening each pack index, and rescan `objects/pack` on the miss.
    package func writeCommit(_ bytes: [UInt8]) throws(GitError) -> ObjectID {
        let id = try ObjectID.hash(of: bytes, type: GIT_OBJECT_COMMIT)
        try writeToMemory(bytes, type: GIT_OBJECT_COMMIT, id: id.raw)
        // A commit starts "tree <40 hex digits>\n".
        if bytes.count >= 46, bytes.starts(with: Array("tree ".utf8)),
            let tree = ObjectID(hex: String(decoding: bytes[5..<45], as: UTF8.self))
        {
            commitTrees[id] = tree
        }
        return id
    }

    /// Forgets the trees written through `write(tree:)`: `finish` then walks the commit's new trees.
    func forgetWrittenTrees() {
        splicedTrees.removeAll()
    }

    /// Hashes `bytes` with libgit2 unless `id` is given, and stores them in memory under that id.
    @discardableResult
    private func writeToMemory(_ bytes: [UInt8], type: git_object_t, id: git_oid? = nil) throws(GitError) -> git_oid {
        var oid = id ?? git_oid()
        let result = bytes.withUnsafeBytes { buffer -> Int32 in
            let hashed = id == nil ? git_odb_hash(&oid, buffer.baseAddress, buffer.count, type) : 0
            guard hashed == 0, let write = backend.pointee.write else { return hashed == 0 ? -1 : hashed }
            return write(backend, &oid, buffer.baseAddress, buffer.count, type)
        }
        try check(result, "git_mempack write")
        return oid
    }

    /// Packs the objects of the new commit that are in memory (the blobs written through `writeBlob`,
    /// the new trees and the commit) into one pack in the repository's `objects/pack`, with its
    /// index, both flushed to disk before they are named (unless `durable` is false). Returns the
    /// pack's `.keep` (`PackKeep`), made before it was named: the caller releases it once the ref
    /// that reaches the commit is written. Nil when nothing new was to be packed.
    @discardableResult
    package func finish(commit: ObjectID, durable: Bool = true) throws(GitError) -> PackKeep? {
        defer { empty() }
        var ids = blobs
        // A commit written through the odb that found it on disk already is not in memory: then it and
        // everything under it is stored. (`writeCommit` always stores it in memory: a commit made
        // twice, the same merge in the same second, is packed again, which is harmless.)
        var commitID = commit.raw
        if let exists = backend.pointee.exists, exists(backend, &commitID) != 0 {
            ids.append(commitID)
            try collectNewTrees(of: commit, into: &ids)
        }
        return try pack(ids, durable: durable)
    }

    /// Packs the blobs and the new trees under `tree` written so far, before their commit exists: a
    /// `pre-commit` or `commit-msg` hook reads them (git finds objects in a pack as well as loose). Kept
    /// as `finish(commit:)`'s pack is; the writer is then empty, and the commit, written next, goes into
    /// a pack of its own. Written loose (as they were), `git maintenance run --task=loose-objects` packed
    /// them into a pack that a `git repack -a -d` running beside it deleted before `main` moved: in a
    /// loop of the two beside writes to a deck with a `pre-commit` hook, every run lost a commit's tree.
    @discardableResult
    package func finish(tree: ObjectID, durable: Bool = true) throws(GitError) -> PackKeep? {
        defer { empty() }
        var ids = blobs
        try collectNewTrees(under: tree, into: &ids)
        return try pack(ids, durable: durable)
    }

    /// Forgets every object written so far (packed, or given up).
    private func empty() {
        _ = git_mempack_reset(backend)
        blobs.removeAll()
        splicedTrees.removeAll()
        commitTrees.removeAll()
    }

    /// Packs `ids` (objects in memory or spliced trees) as one kept pack.
    private func pack(_ ids: [git_oid], durable: Bool) throws(GitError) -> PackKeep? {
        let unique = PackFile.sortedUnique(ids)
        // Everything was stored already (the same merge made again): no empty pack.
        if unique.isEmpty { return nil }
        let checksums = treeChecksums()
        var pack = PackFile(expectedBytes: try totalSize(of: unique), objects: unique.count)
        for id in unique {
            if let tree = splicedTrees[ObjectID(id)] {
                let sums =
                    checksums[ObjectID(id)]
                    ?? tree.withUnsafeBytes { PackFile.checksums(type: GIT_OBJECT_TREE, data: $0) }
                pack.append(id: id, type: GIT_OBJECT_TREE, keeping: tree, checksums: sums)
            } else {
                try appendFromMemory(id, to: &pack)
            }
        }
        // The common folder: a linked worktree's git folder has no objects of its own.
        return try pack.install(in: packFolder, durable: durable, keeping: true).keep
    }

    /// The trees under `commit` that were written in memory: a tree already on disk, and everything
    /// under it, is not new.
    private func collectNewTrees(of commit: ObjectID, into ids: inout [git_oid]) throws(GitError) {
        if let root = commitTrees[commit] { return try collectNewTrees(under: root, into: &ids) }
        let repository = try repository
        var raw = commit.raw
        var object: OpaquePointer?
        try check(git_commit_lookup(&object, repository.pointer, &raw), "git_commit_lookup")
        defer { git_commit_free(object) }
        guard let root = git_commit_tree_id(object)?.pointee else { return }
        try collectNewTrees(under: ObjectID(root), into: &ids)
    }

    /// The trees under the root tree `root` that were written in memory.
    private func collectNewTrees(under root: ObjectID, into ids: inout [git_oid]) throws(GitError) {
        // A spliced root: every new tree under it was written through `write(tree:)` (a splice that
        // fell back to libgit2 does not reach the root, so its trees are found by the walk below).
        if splicedTrees[root] != nil {
            ids += splicedTrees.keys.map(\.raw)
            return
        }
        // Only a tree libgit2 built is in memory, and only through the second handle.
        guard handle != nil else { return }
        let repository = try repository
        var pending = [root.raw]
        while var tree = pending.popLast() {
            guard let exists = backend.pointee.exists, exists(backend, &tree) != 0 else { continue }
            ids.append(tree)
            var treeObject: OpaquePointer?
            try check(git_tree_lookup(&treeObject, repository.pointer, &tree), "git_tree_lookup")
            defer { git_tree_free(treeObject) }
            for position in 0..<git_tree_entrycount(treeObject) {
                guard let entry = git_tree_entry_byindex(treeObject, position),
                    git_tree_entry_type(entry) == GIT_OBJECT_TREE, let id = git_tree_entry_id(entry)
                else { continue }
                pending.append(id.pointee)
            }
        }
    }

    /// Below this many bytes of spliced trees their pack checksums are worked out on one thread.
    static let sideBySideChecksumBytes = 512 * 1024

    /// The pack entry checksums of the spliced trees (~250 folders of ~27 KB in a 1000+1000 merge at
    /// 100,000 cards: ~3 ms of Adler-32 and CRC-32), on two threads when there are many bytes.
    private func treeChecksums() -> [ObjectID: PackFile.Checksums] {
        let trees = Array(splicedTrees)
        let total = trees.reduce(0) { $0 + $1.value.count }
        let halves = total >= PackWriter.sideBySideChecksumBytes && Repository.processors > 1 ? 2 : 1
        var sums = [PackFile.Checksums?](repeating: nil, count: trees.count)
        sums.withUnsafeMutableBufferPointer { slots in
            // Each half fills only its own slots.
            let shared = UncheckedSendable((slots, trees))
            DispatchQueue.concurrentPerform(iterations: halves) { half in
                let (slots, trees) = shared.value
                let middle = trees.count / halves
                for index in half == 0 ? 0..<middle : middle..<trees.count {
                    slots[index] = trees[index].value.withUnsafeBytes {
                        PackFile.checksums(type: GIT_OBJECT_TREE, data: $0)
                    }
                }
            }
        }
        var result: [ObjectID: PackFile.Checksums] = [:]
        result.reserveCapacity(trees.count)
        for (index, tree) in trees.enumerated() { result[tree.key] = sums[index] }
        return result
    }

    private func totalSize(of ids: [git_oid]) throws(GitError) -> Int {
        guard let readHeader = backend.pointee.read_header else { return 0 }
        var total = 0
        for id in ids {
            // Spliced trees are kept as they are, not copied into the pack's own buffer.
            if splicedTrees[ObjectID(id)] != nil { continue }
            var oid = id
            var length = 0
            var type = GIT_OBJECT_INVALID
            try check(readHeader(&length, &type, backend, &oid), "git_mempack read_header")
            total += length
        }
        return total
    }

    private func appendFromMemory(_ id: git_oid, to pack: inout PackFile) throws(GitError) {
        var oid = id
        var data: UnsafeMutableRawPointer?
        var length = 0
        var type = GIT_OBJECT_INVALID
        guard let read = backend.pointee.read else {
            throw GitError(code: .unexpected, message: "the in-memory backend cannot read", function: "mempack")
        }
        try check(read(&data, &length, &type, backend, &oid), "git_mempack read")
        defer { git_odb_backend_data_free(backend, data) }
        pack.append(id: id, type: type, data: UnsafeRawBufferPointer(start: data, count: length))
    }
}
