import CGit2

/// Trees read as raw bytes during one operation, kept so that a later step (building the merged
/// tree from the folders the walk read) does not read or inflate them again. Like its repository,
/// not for use on several threads at once.
public final class RawTreeCache {
    var trees: [ObjectID: RawTree] = [:]
    /// The trees each folder path had in the walk that read it ("" for the root, "cards/" ...): a
    /// rebuilt folder equal to one of them is that tree, known without hashing or writing it.
    var versions: [String: [ObjectID]] = [:]

    /// An empty cache.
    public init() {}

    func remember(_ id: ObjectID, at path: String) {
        if versions[path]?.contains(id) == true { return }
        versions[path, default: []].append(id)
    }
}

/// Why the raw path gave way to libgit2's: the caller runs libgit2's path, which gives its own
/// answer (or error) for the tree at hand.
struct RawTreeFallback: Error {}

extension Repository {
    /// The id of the tree with no entries.
    static let emptyTreeID = ObjectID(bytes: [
        0x4b, 0x82, 0x5d, 0xc6, 0x42, 0xcb, 0x6e, 0xb9, 0xa0, 0x60, 0xe5, 0x4b, 0xf8, 0xd6, 0x92, 0x88, 0xfb, 0xee,
        0x49, 0x04,
    ])

    /// The canonical tree `id` as raw bytes, from `cache` or read; throws `RawTreeFallback` for a
    /// tree that is not in canonical form, or that cannot be read this way.
    ///
    /// Read from the object database's backends directly: `git_odb_read` would hash the ~27 KB of
    /// each card folder again to check it (strict verification, on in this process), which cost as
    /// much as inflating it. git does not check on read either. What that trades: a tree object whose
    /// bytes no longer match its id (damaged on disk in a way zlib's own checksum did not catch) is
    /// used as it reads instead of refused; it still has to parse as a canonical tree.
    func rawTree(_ id: ObjectID, cache: RawTreeCache?) throws(RawTreeFallback) -> RawTree {
        if let known = cache?.trees[id] { return known }
        // libgit2 knows the empty tree without storing it.
        if id == Repository.emptyTreeID { return RawTree.empty }
        guard let bytes = readRawObject(id, type: GIT_OBJECT_TREE), let tree = RawTree(canonical: bytes) else {
            throw RawTreeFallback()
        }
        cache?.trees[id] = tree
        return tree
    }

    /// The content of object `id` when it is of `type`, read from the first backend that has it
    /// (in the odb's priority order, as `git_odb_read` asks them); nil for anything else (missing,
    /// another type, an error), which libgit2's own read then reports.
    func readRawObject(_ id: ObjectID, type expected: git_object_t) -> [UInt8]? {
        var odb: OpaquePointer?
        guard git_repository_odb(&odb, pointer) == 0, let odb else {
            git_error_clear()
            return nil
        }
        defer { git_odb_free(odb) }
        var oid = id.raw
        for position in 0..<git_odb_num_backends(odb) {
            var backend: UnsafeMutablePointer<git_odb_backend>?
            guard git_odb_get_backend(&backend, odb, position) == 0, let backend, let read = backend.pointee.read
            else {
                git_error_clear()
                continue
            }
            var data: UnsafeMutableRawPointer?
            var length = 0
            var type = GIT_OBJECT_INVALID
            let result = read(&data, &length, &type, backend, &oid)
            if result == GIT_ENOTFOUND.rawValue || result == GIT_PASSTHROUGH.rawValue {
                git_error_clear()
                continue
            }
            defer { if data != nil { git_odb_backend_data_free(backend, data) } }
            guard result == 0, type == expected else {
                git_error_clear()
                return nil
            }
            guard length > 0, let data else { return [] }
            return Array(UnsafeRawBufferPointer(start: data, count: length))
        }
        return nil
    }
}
