import CGit2

/// Writes the objects of one big commit (an import of thousands of cards) as a single pack instead of
/// one loose file (and, when durable, one fsync) per object.
///
/// It opens a second handle on the repository whose object database has an in-memory backend in
/// front: blobs, trees and the commit written through `repository` land in memory; `finish` packs
/// the objects the new commit has and its parent lacks into `objects/pack` (pack and index, through
/// libgit2's indexer, fsynced when the process is durable). The handle is then dropped, so no other
/// write ever goes to memory.
public final class PackWriter {
    /// Write objects through this handle; they are kept in memory until `finish`.
    public let repository: Repository
    private let backend: UnsafeMutablePointer<git_odb_backend>

    /// Opens a second handle on the repository at `gitDirectory` with an in-memory object store in front.
    public init(gitDirectory: String) throws(GitError) {
        repository = try Repository.open(at: gitDirectory)
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, repository.pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        var out: UnsafeMutablePointer<git_odb_backend>?
        try check(git_mempack_new(&out), "git_mempack_new")
        guard let out else {
            throw GitError(code: .other(-1), message: "no in-memory backend", function: "git_mempack_new")
        }
        // The odb owns the backend once added, and frees it with the repository.
        try check(git_odb_add_backend(odb, out, 1000), "git_odb_add_backend")
        backend = out
    }

    /// Writes a blob straight into the in-memory store. Going through the object database would, for
    /// each new object, first look for it on disk and rescan `objects/pack` on the miss (1.5.1's
    /// freshen): ~20 µs of directory reads per card. A blob already on disk is written again and
    /// packed twice at worst, which is harmless.
    public func writeBlob(_ bytes: [UInt8]) throws(GitError) -> ObjectID {
        var oid = git_oid()
        let result = bytes.withUnsafeBytes { buffer -> Int32 in
            let hashed = git_odb_hash(&oid, buffer.baseAddress, buffer.count, GIT_OBJECT_BLOB)
            guard hashed == 0, let write = backend.pointee.write else { return hashed == 0 ? -1 : hashed }
            return write(backend, &oid, buffer.baseAddress, buffer.count, GIT_OBJECT_BLOB)
        }
        try check(result, "git_mempack write")
        return ObjectID(oid)
    }

    /// Packs every object reachable from `commit` and not from `parent` (nil: everything) and writes
    /// the pack and its index into the repository's `objects/pack`.
    public func finish(commit: ObjectID, parent: ObjectID?) throws(GitError) {
        var builder: OpaquePointer?
        try check(git_packbuilder_new(&builder, repository.pointer), "git_packbuilder_new")
        defer { git_packbuilder_free(builder) }
        // Two cores here: let libgit2 search deltas on all of them.
        _ = git_packbuilder_set_threads(builder, 0)
        var walk: OpaquePointer?
        try check(git_revwalk_new(&walk, repository.pointer), "git_revwalk_new")
        defer { git_revwalk_free(walk) }
        var tip = commit.raw
        try check(git_revwalk_push(walk, &tip), "git_revwalk_push")
        if let parent {
            var hidden = parent.raw
            try check(git_revwalk_hide(walk, &hidden), "git_revwalk_hide")
        }
        try check(git_packbuilder_insert_walk(builder, walk), "git_packbuilder_insert_walk")
        try check(git_packbuilder_write(builder, nil, 0, nil, nil), "git_packbuilder_write")
        _ = git_mempack_reset(backend)
    }
}
