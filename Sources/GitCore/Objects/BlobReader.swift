import CGit2

/// Reads many blobs of one repository through a single object-database handle, the way a command
/// that reads every card does.
///
/// `git_odb_read` skips the object layer of `git_blob_lookup` (its cache and object allocation):
/// about a quarter less time per small blob. Like `Repository.readBlob(_:limit:)`, it reads the size
/// from the object header first and never inflates a blob over the limit. Only the answer "here are
/// the bytes" comes from here: on anything else it returns nil, and `readBlob` (which reports why) is
/// the one to ask. Like its repository, not for use on several threads at once.
package final class BlobReader {
    private let repository: Repository
    private let odb: OpaquePointer

    /// A reader over `repository`'s objects.
    package init(_ repository: Repository) throws(GitError) {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, repository.pointer), "git_repository_odb")
        guard let odb else {
            throw GitError(code: .notFound, message: "no object database", function: "git_repository_odb")
        }
        self.repository = repository
        self.odb = odb
    }

    deinit {
        git_odb_free(odb)
    }

    /// The bytes of the blob `id` when it is a blob of at most `limit` bytes that reads without
    /// error; nil otherwise (`Repository.readBlob(_:limit:)` then gives the error).
    package func read(_ id: ObjectID, limit: Int) -> [UInt8]? {
        var oid = id.raw
        var size = 0
        var type = GIT_OBJECT_ANY
        guard git_odb_read_header(&size, &type, odb, &oid) == 0 else {
            git_error_clear()
            return nil
        }
        guard type == GIT_OBJECT_BLOB, size <= limit else { return nil }
        var object: OpaquePointer?
        guard git_odb_read(&object, odb, &oid) == 0, let object else {
            git_error_clear()
            return nil
        }
        defer { git_odb_object_free(object) }
        guard git_odb_object_type(object) == GIT_OBJECT_BLOB else { return nil }
        repository.blobsRead += 1
        let count = git_odb_object_size(object)
        guard count > 0, let data = git_odb_object_data(object) else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: count))
    }
}
