import CGit2
import Glibc

/// Keeps the number of packs small once every commit writes its objects as a pack of its own.
///
/// A one-card commit stores its five objects (blob, three trees, commit) as one small pack: three
/// fsyncs (pack, index, folder) where loose objects take ten (each file and its fan-out folder). Left
/// alone, a thousand commits would leave a thousand packs, and every object lookup that misses would
/// search them all. So after a commit, when the folder holds more than `limit` packs, the smallest
/// ones are combined into one, keeping the packs in a geometric progression by object count (each
/// pack at least twice the objects of all smaller ones together, as `git repack --geometric=2`): an
/// object is rewritten a logarithmic number of times, and a big pack (an import, a fetch) is left
/// alone until the small ones add up to half of it. Packs with a `.keep` file are never touched.
///
/// The combined pack is flushed and named before the old ones are removed, so every object stays
/// readable throughout; a reader that had listed a removed pack misses, rescans the folder (libgit2
/// and git both do) and finds the object in the new pack.
public enum PackConsolidation {
    /// A pack in the folder, by its path without the extension and the objects its index lists.
    struct Pack {
        var base: String
        var objects: Int
    }

    /// Combines the smallest packs of `repository` when there are more than `limit`; returns how many
    /// packs were combined (0 when nothing was to do). Always flushed to disk, whatever the deck's
    /// setting: old packs already on disk are removed, so the new one must be there first. Runs
    /// under the pack folder's lock (every worktree of the repository shares the packs).
    @discardableResult
    public static func consolidate(_ repository: Repository, limit: Int = 16) throws(GitError) -> Int {
        let folder = repository.commonDirectory + "objects/pack"
        // A multi-pack index lists packs by name; removing some would leave it stale for git.
        guard access(folder + "/multi-pack-index", F_OK) != 0 else { return 0 }
        var names = packNames(in: folder)
        guard names.count > limit else { return 0 }
        // Tidying after a commit that is already made: another worktree writing packs is no reason to wait.
        guard let lock = PackFolderLock.acquireIfFree(packFolder: folder) else { return 0 }
        defer { withExtendedLifetime(lock) {} }
        names = packNames(in: folder)
        guard names.count > limit else { return 0 }
        var packs = names.compactMap { name in
            objectCount(ofIndex: "\(folder)/\(name).idx").map { Pack(base: "\(folder)/\(name)", objects: $0) }
        }
        packs.sort { ($0.objects, $0.base) < ($1.objects, $1.base) }
        let count = combinedCount(packs.map(\.objects), limit: limit)
        guard count >= 2 else { return 0 }
        let chosen = Array(packs.prefix(count))
        var ids: [git_oid] = []
        for pack in chosen {
            guard let listed = objectIDs(ofIndex: pack.base + ".idx", count: pack.objects) else { return 0 }
            ids += listed
        }
        ids = PackFile.sortedUnique(ids)
        let combined = try write(ids, from: repository, into: folder, holding: lock)
        // The combined pack can have the very name of a chosen one (same objects, same bytes, left by
        // a consolidation killed before its removals): that one is the result, never removed.
        let old = chosen.filter { $0.base != combined }
        // Killed midway, an old pack could be left without its index: named, it is removed next time.
        let marker = PackInstallMarker(packFolder: folder)
        try marker.record(old.map(\.base))
        defer { marker.clear() }
        for pack in old {
            // The index first: a folder scan that no longer sees it never tries to open the pack.
            for suffix in [".idx", ".pack", ".rev", ".bitmap"] { unlink(pack.base + suffix) }
        }
        return count
    }

    /// How many of the smallest packs (counts in ascending order) to combine: the fewest that leave
    /// the rest in a geometric progression, and at least enough to bring the total to half of `limit`.
    static func combinedCount(_ counts: [Int], limit: Int) -> Int {
        let mustCombine = counts.count > limit ? counts.count - limit / 2 + 1 : 0
        var prefixSum = 0
        for split in 0...counts.count {
            if split > 0 { prefixSum += counts[split - 1] }
            guard split >= mustCombine else { continue }
            var running = prefixSum
            var progression = true
            for next in counts[split...] {
                if next < 2 * running {
                    progression = false
                    break
                }
                running += next
            }
            if progression { return split }
        }
        return counts.count
    }

    /// Names (without extension) of the packs in `folder` that have an index and none of the files
    /// that give a pack a meaning of its own to git: `.keep`, `.promisor` (a partial clone's),
    /// `.mtimes` (a cruft pack's).
    static func packNames(in folder: String) -> [String] {
        var indexes: Set<String> = []
        var packs: [String] = []
        var kept: Set<String> = []
        for name in LockFiles.list(folder) where name.hasPrefix("pack-") {
            if name.hasSuffix(".pack") {
                packs.append(String(name.dropLast(5)))
            } else if name.hasSuffix(".idx") {
                indexes.insert(String(name.dropLast(4)))
            } else if let suffix = [".keep", ".promisor", ".mtimes"].first(where: name.hasSuffix) {
                kept.insert(String(name.dropLast(suffix.count)))
            }
        }
        return packs.filter { indexes.contains($0) && !kept.contains($0) }.sorted()
    }

    /// The object count a version-2 pack index states (the last fan-out entry), or nil when the file
    /// is not one.
    static func objectCount(ofIndex path: String) -> Int? {
        guard let header = readBytes(path, count: 8 + 256 * 4), isVersion2Index(header) else { return nil }
        return Int(bigEndian32(header, at: 8 + 255 * 4))
    }

    /// The `count` object ids (as `objectCount` read them) a version-2 pack index lists, or nil when
    /// it is unreadable or shorter.
    static func objectIDs(ofIndex path: String, count: Int) -> [git_oid]? {
        guard count <= 1 << 26, let bytes = readBytes(path, count: 8 + 256 * 4 + count * 20)
        else { return nil }
        var ids: [git_oid] = []
        ids.reserveCapacity(count)
        for position in 0..<count {
            var id = git_oid()
            let start = 8 + 256 * 4 + position * 20
            withUnsafeMutableBytes(of: &id.id) { raw in
                for offset in 0..<20 { raw[offset] = bytes[start + offset] }
            }
            ids.append(id)
        }
        return ids
    }

    private static func isVersion2Index(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && bytes[0] == 0xFF && bytes[1] == 0x74 && bytes[2] == 0x4F && bytes[3] == 0x63
            && bigEndian32(bytes, at: 4) == 2
    }

    private static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    /// The first `count` bytes of the file at `path`, or nil when it is shorter or unreadable.
    private static func readBytes(_ path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // Nothing allocated for a count the file cannot hold (a damaged index's fan-out).
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) >= count else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = bytes.withUnsafeMutableBytes { raw in
                read(fd, raw.baseAddress.map { $0 + filled }, count - filled)
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return nil }
            filled += result
        }
        return bytes
    }

    /// Reads each object through the repository's object database and writes them all as one pack;
    /// returns its path without extension.
    private static func write(
        _ ids: [git_oid], from repository: Repository, into folder: String, holding lock: PackFolderLock
    )
        throws(GitError) -> String
    {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, repository.pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        var pack = PackFile(expectedBytes: 0, objects: ids.count)
        for id in ids {
            var oid = id
            var object: OpaquePointer?
            try check(git_odb_read(&object, odb, &oid), "git_odb_read")
            defer { git_odb_object_free(object) }
            let data = UnsafeRawBufferPointer(start: git_odb_object_data(object), count: git_odb_object_size(object))
            pack.append(id: id, type: git_odb_object_type(object), data: data)
        }
        return try pack.install(in: folder, durable: true, holding: lock)
    }

}
