import CFastCRC
import CGit2
import Glibc
import SystemCalls

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
package enum PackConsolidation {
    /// How many packs a commit leaves before it combines the smallest.
    package static let limit = 16

    /// A pack in the folder, by its path without the extension, mapped with its index.
    struct Pack {
        var base: String
        var mapped: MappedPack
        var objects: Int { mapped.objectCount }
    }

    /// Combines the smallest packs of `repository` when there are more than `limit`; returns how many
    /// packs were combined (0 when nothing was to do). Always flushed to disk, whatever the deck's
    /// setting: old packs already on disk are removed, so the new one must be there first. Runs
    /// under the pack folder's lock (every worktree of the repository shares the packs).
    @discardableResult
    package static func consolidate(_ repository: Repository, limit: Int = PackConsolidation.limit)
        throws(GitError) -> Int
    {
        let folder = repository.packFolder
        // A multi-pack index lists packs by name; removing some would leave it stale for git.
        guard access(folder + "/multi-pack-index", F_OK) != 0 else { return 0 }
        var names = packNames(in: folder)
        guard names.count > limit else { return 0 }
        // git's own repacking is at work: it does the tidying, and ours beside it loses objects.
        guard !gitRepacking(repository) else { return 0 }
        // Tidying after a commit that is already made: another worktree writing packs is no reason to wait.
        guard let lock = PackFolderLock.acquireIfFree(packFolder: folder) else { return 0 }
        defer { withExtendedLifetime(lock) {} }
        names = packNames(in: folder)
        guard names.count > limit else { return 0 }
        // A pack whose index is not a version-2 one (or is damaged) is left as it is.
        var packs = names.compactMap { name -> Pack? in
            let base = "\(folder)/\(name)"
            guard let mapped = MappedPack(index: base + ".idx", pack: base + ".pack"), mapped.isValidIndex else {
                return nil
            }
            return Pack(base: base, mapped: mapped)
        }
        packs.sort { ($0.objects, $0.base) < ($1.objects, $1.base) }
        // The chosen packs' objects, each listing read once. A pack whose listing fails its checks (a
        // damaged index, a pack gone) is left as it is and the choice made again without it: being
        // among the smallest, it would otherwise stop every consolidation after it.
        var chosen: [Pack] = []
        var listings: [[MappedPack.ListedEntry]] = []
        while chosen.isEmpty {
            let count = combinedCount(packs.map(\.objects), limit: limit)
            guard count >= 2 else { return 0 }
            listings = []
            for pack in packs.prefix(count) {
                guard let listed = pack.mapped.listedEntries() else { break }
                listings.append(listed)
            }
            if listings.count == count {
                chosen = Array(packs.prefix(count))
            } else {
                packs.remove(at: listings.count)
            }
        }
        let combined = try write(chosen, listings, from: repository, into: folder, holding: lock)
        // The combined pack can have the very name of a chosen one (same objects, same bytes, left by
        // a consolidation killed before its removals): that one is the result, never removed.
        let old = chosen.filter { $0.base != combined }
        // Looked for again before anything is removed: a gc that started meanwhile finds the new pack
        // beside the old ones (the same objects twice, which the next consolidation combines).
        guard !gitRepacking(repository) else { return 0 }
        // Killed midway, an old pack could be left without its index: named, it is removed next time.
        let marker = PackInstallMarker(packFolder: folder)
        try marker.record(old.map(\.base))
        defer { marker.clear() }
        for pack in old {
            // The index first: a folder scan that no longer sees it never tries to open the pack.
            for suffix in [".idx", ".pack", ".rev", ".bitmap"] { unlink(pack.base + suffix) }
        }
        return chosen.count
    }

    /// Whether git is repacking this repository: `git gc` holds `gc.pid` while it runs (one a
    /// killed gc of this machine left, naming a dead pid, or one older than 12 hours, does not count),
    /// `git maintenance` holds `objects/maintenance.lock`, `git repack` writes its new pack as
    /// `objects/pack/.tmp-<pid>-pack…` (a dead pid's, ten minutes old, does not count), and a multi-pack
    /// index names packs by name.
    /// Removing packs beside them is what loses objects: `git gc` beside our consolidation lost
    /// commits `main` reached (MaintenanceRaceTests, about one run in three); git's own commands
    /// exclude each other with these same files.
    static func gitRepacking(_ repository: Repository) -> Bool {
        let common = repository.commonDirectory
        if let bytes = Repository.readSmallFile(common + "gc.pid", limit: 512, followingLinks: false) {
            // "<pid> <host>", as git writes it.
            let words = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
            // As git reads it: one older than 12 hours is stale, whichever machine wrote it.
            let old = LockFiles.modificationTime(common + "gc.pid").map { LockFiles.wallClock() - $0 > 12 * 3_600 }
            let stale =
                old == true
                || (words.count >= 2 && String(words[1]) == hostName()
                    && Int32(words[0]).map { !LockFiles.isAlive($0) } == true)
            if !stale { return true }
        } else if errno != ENOENT {
            return true
        }
        if access(common + "objects/maintenance.lock", F_OK) == 0 { return true }
        // A multi-pack index written meanwhile names the packs we would remove.
        if access(repository.packFolder + "/multi-pack-index", F_OK) == 0 { return true }
        // A repack's pack being written (`.tmp-<pid>-…`): while its process lives, or a killed one's for
        // ten minutes (git never removes those; counted for ever, they would stop every consolidation).
        return LockFiles.list(repository.packFolder).contains { name in
            guard name.hasPrefix(".tmp-") else { return false }
            if let pid = Int32(name.dropFirst(5).prefix { $0 != "-" }), LockFiles.isAlive(pid) { return true }
            let written = LockFiles.modificationTime(repository.packFolder + "/" + name)
            return written.map { LockFiles.wallClock() - $0 < 600 } ?? false
        }
    }

    /// This machine's name, as git's `gc.pid` names it.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
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

    /// Writes every object of `packs` (as `listings`, each pack's `listedEntries`) once as one pack;
    /// returns its path without extension.
    ///
    /// A whole object is copied as it lies in its pack, checked against the CRC-32 its index records
    /// (as `git repack` reuses objects): inflating, hashing and storing each one again through
    /// libgit2 cost a 100,000-card deck 30–190 ms every few commits. A delta (its base is named by
    /// its place in its old pack) or an entry failing its check is read whole through libgit2, which
    /// resolves the delta or reports the damage (and then nothing is combined).
    private static func write(
        _ packs: [Pack], _ listings: [[MappedPack.ListedEntry]], from repository: Repository, into folder: String,
        holding lock: PackFolderLock
    )
        throws(GitError) -> String
    {
        // The entries' bytes lie in the packs' mappings.
        defer { withExtendedLifetime(packs) {} }
        let unique = PackFile.sortedUnique(listings.flatMap { $0 }, by: \.id)
        var odb: OpaquePointer?
        defer { if odb != nil { git_odb_free(odb) } }
        var pack = PackFile(expectedBytes: unique.reduce(0) { $0 + $1.packed.count }, objects: unique.count)
        for entry in unique {
            let packed = entry.packed
            // Types 1–4 (commit, tree, blob, tag) are whole; 6 and 7 are deltas.
            let type = packed.first.map { ($0 >> 4) & 0x7 } ?? 0
            if (1...4).contains(type), let base = packed.baseAddress,
                cards_crc32(0, base.assumingMemoryBound(to: UInt8.self), packed.count) == entry.crc
            {
                pack.appendEntry(id: entry.id, packed: packed, crc: entry.crc)
                continue
            }
            if odb == nil { try check(git_repository_odb(&odb, repository.pointer), "git_repository_odb") }
            var oid = entry.id
            var object: OpaquePointer?
            try check(git_odb_read(&object, odb, &oid), "git_odb_read")
            defer { git_odb_object_free(object) }
            let data = UnsafeRawBufferPointer(start: git_odb_object_data(object), count: git_odb_object_size(object))
            pack.append(id: entry.id, type: git_odb_object_type(object), data: data)
        }
        return try pack.install(in: folder, durable: true, holding: lock).name
    }
}
