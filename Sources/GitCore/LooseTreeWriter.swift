import CGit2
import Glibc

/// Writes tree objects as loose files whose zlib stream is made of stored (uncompressed) blocks,
/// for a bulk write whose objects are flushed together afterwards (no fsync here).
///
/// Through `git_odb_write` each new ~27 KB card folder of a merge cost ~0.3 ms: a look for it on
/// disk first (a miss rescans `objects/pack`), its id hashed, then zlib level 1, which spends ~0.2 ms
/// on the 20-byte ids that do not compress. Stored blocks take ~15 µs. What that trades: these
/// trees take ~40 % more room (~25 KB instead of ~18 KB) until `git gc` packs them. Their ids are
/// still hashed by libgit2 (`git_odb_hash`, with its collision detection), and the files are
/// written as libgit2 writes loose objects: a temporary file in the object's folder, read-only,
/// renamed into place. Like its repository, not for use on several threads at once.
public final class LooseTreeWriter {
    private let objectsDirectory: String
    /// On the heap: zlib keeps a pointer back to the stream and refuses one that moved.
    private let stream: UnsafeMutablePointer<z_stream>
    private let ready: Bool

    /// A writer into `repository`'s object folder (the common one, for a linked worktree).
    public init(_ repository: Repository) {
        objectsDirectory = repository.commonDirectory + "objects/"
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        ready =
            deflateInit2_(
                stream, Z_NO_COMPRESSION, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }

    deinit {
        if ready { deflateEnd(stream) }
        stream.deallocate()
    }

    /// Writes the tree with these bytes (its entries, no header) and returns its id.
    func write(tree bytes: [UInt8]) throws(GitError) -> ObjectID {
        var oid = git_oid()
        let hashed = bytes.withUnsafeBytes { buffer in
            git_odb_hash(&oid, buffer.baseAddress, buffer.count, GIT_OBJECT_TREE)
        }
        try check(hashed, "git_odb_hash")
        let id = ObjectID(oid)
        let hex = id.hex
        let folder = objectsDirectory + hex.prefix(2)
        let path = "\(folder)/\(hex.dropFirst(2))"
        // Already stored loose (the same merge made again): kept, as `git_odb_write` keeps it. One only
        // in a pack is written again loose, which is harmless.
        if access(path, F_OK) == 0 { return id }
        let object = Array("tree \(bytes.count)".utf8) + [0] + bytes
        let compressed = try deflated(object)
        if mkdir(folder, 0o777) != 0 && errno != EEXIST { throw failure("cannot create \(folder)") }
        let temporary = try FileSync.writeTemporary(compressed, in: folder, prefix: "tmp_cards_obj_", flush: false)
        guard rename(temporary, path) == 0 else {
            let error = failure("cannot move the tree \(id.short) into place")
            unlink(temporary)
            throw error
        }
        return id
    }

    /// `bytes` as one zlib stream of stored blocks.
    private func deflated(_ bytes: [UInt8]) throws(GitError) -> [UInt8] {
        guard ready, deflateReset(stream) == Z_OK else {
            throw GitError(code: .other(-1), message: "zlib could not start a stream", function: "deflateReset")
        }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(bytes.count))))
        let result = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output -> Int32 in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.pointee.avail_in = uInt(input.count)
                stream.pointee.next_out = output.baseAddress
                stream.pointee.avail_out = uInt(output.count)
                return deflate(stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else {
            throw GitError(code: .other(-1), message: "zlib could not store an object", function: "deflate")
        }
        out.removeLast(out.count - Int(stream.pointee.total_out))
        return out
    }

    private func failure(_ what: String) -> GitError {
        GitError(code: .other(-1), message: "\(what): \(String(cString: strerror(errno)))", function: "LooseTreeWriter")
    }
}
