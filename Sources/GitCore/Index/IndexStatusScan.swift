import Dispatch
import Glibc
import Synchronization

/// The working tree's changes under one folder and at a few top-level files, found as `git status`
/// finds them: the index's entries read where they lie in the mapped file, each tracked file's `lstat`
/// compared with the stat data its entry records, each folder's names counted (an extra name is an
/// untracked file), and the entries' ids compared with a tree's, folder by folder.
///
/// libgit2's status (`status(under:)`) parsed every index entry into an allocation of its own, hashed the
/// 12 MB file with its collision-detecting SHA-1, compared the whole HEAD tree with it and walked every
/// folder again for untracked files: at 100,000 cards ~0.23 s to read the index and ~0.9 s for the rest
/// (docs/PERFORMANCE.md, Sync). This scan answers only where it answers as that one would for a caller
/// that compares every path it is given with the tree itself (a path given too many is only read
/// again): it gives up (nil: ask libgit2) on anything it does not read, such as an untracked name (git's
/// ignore rules decide about it), a conflict, an assume-unchanged or intent-to-add entry, a version 4,
/// split or sparse index, or a folder below the folder's own folders.
package enum IndexStatusScan {
    /// One index entry under the folder or at one of the files.
    struct Tracked {
        /// Where its entry starts in the mapped index.
        var entry: Int
        /// Where its path starts, and how long it is.
        var nameStart: Int
        var nameLength: Int
        /// The length of its folder's path (up to the last "/"; 0 for a top-level file).
        var folderLength: Int
        /// Whether it carries the skip-worktree bit: git does not look at its file.
        var skips: Bool
    }

    /// The changes the scan found, or nil where libgit2 must look.
    /// `folder`: a top-level folder ("cards"); `files`: top-level files ("deck.json"); `tree`: the tree to
    /// compare the index with (nil: an empty one).
    package static func scan(
        _ repository: Repository, folder: String, files: [String], against tree: ObjectID?, cache: RawTreeCache
    ) -> [StatusEntry]? {
        guard let workingDirectory = repository.workingDirectory else { return nil }
        guard case .success(let mapped) = IndexPatch.map(repository.gitDirectory + "index") else { return nil }
        defer { munmap(UnsafeMutableRawPointer(mutating: mapped.bytes.baseAddress), mapped.bytes.count) }
        let bytes = mapped.bytes
        guard let tracked = entries(bytes, folder: Array(folder.utf8), files: Set(files.map { Array($0.utf8) }))
        else { return nil }
        // Grouped by folder ([] for the top-level files): the entries of one folder are its names in order.
        var groups: [[UInt8]: [Int]] = [:]
        for (index, item) in tracked.enumerated() {
            groups[Array(bytes[item.nameStart..<item.nameStart + item.folderLength]), default: []].append(index)
        }
        let folderKey = Array(folder.utf8)
        // Only the folder itself and its folders: anything deeper is for libgit2.
        for key in groups.keys where !key.isEmpty {
            guard
                key == folderKey
                    || (key.starts(with: folderKey + [0x2f]) && !key[(folderKey.count + 1)...].contains(0x2f))
            else { return nil }
        }
        var reported: Set<String> = []
        guard
            compareWithTree(
                repository, bytes, tracked, groups, folder: folderKey, files: files, tree: tree, cache: cache,
                into: &reported)
        else { return nil }
        guard
            let changed = compareWithFiles(
                workingDirectory, bytes, tracked, groups, folder: folderKey,
                indexTime: (mapped.seconds, mapped.nanoseconds))
        else { return nil }
        for index in changed {
            let item = tracked[index]
            reported.insert(String(decoding: bytes[item.nameStart..<item.nameStart + item.nameLength], as: UTF8.self))
        }
        return reported.sorted().map { StatusEntry(path: $0, change: .modified) }
    }

    /// The entries under `folder` and at `files`, or nil when the index is not one this scan reads.
    static func entries(_ bytes: UnsafeRawBufferPointer, folder: [UInt8], files: Set<[UInt8]>) -> [Tracked]? {
        guard bytes.count >= 32, bytes[0] == 0x44, bytes[1] == 0x49, bytes[2] == 0x52, bytes[3] == 0x43 else {
            return nil
        }
        let version = BigEndian.read32(bytes, at: 4)
        guard version == 2 || version == 3 else { return nil }
        // A damaged index is libgit2's to refuse, in its words (`cards fsck --repair` makes it again): its
        // checksum checked as libgit2 checks it (~6 ms at 100,000 entries), unless git wrote none
        // (`index.skipHash`: zeros).
        let stored = UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - 20)...])
        if stored.contains(where: { $0 != 0 }) {
            let computed = SHA1.digest(UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 20)]))
            guard computed.elementsEqual(stored) else { return nil }
        }
        let count = Int(BigEndian.read32(bytes, at: 8))
        let end = bytes.count - 20
        var position = 12
        var tracked: [Tracked] = []
        let prefix = folder + [0x2f]
        for _ in 0..<count {
            guard position + 62 <= end else { return nil }
            let flags = UInt16(bytes[position + 60]) << 8 | UInt16(bytes[position + 61])
            let extended = version >= 3 && flags & 0x4000 != 0
            let extendedFlags = extended ? UInt16(bytes[position + 62]) << 8 | UInt16(bytes[position + 63]) : 0
            let nameStart = position + (extended ? 64 : 62)
            var length = Int(flags & 0xfff)
            if length == 0xfff {
                var nul = nameStart
                while nul < end && bytes[nul] != 0 { nul += 1 }
                length = nul - nameStart
            }
            let entryLength = ((nameStart - position) + length + 8) & ~7
            guard position + entryLength <= end else { return nil }
            // A sparse index's folder entry: libgit2 1.5 cannot read the file either.
            if BigEndian.read32(bytes, at: position + 24) == 0o040000 { return nil }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<nameStart + length])
            let underFolder = name.count > prefix.count && name.starts(with: prefix)
            if underFolder || (!name.contains(0x2f) && files.contains(Array(name))) {
                // A conflict, assume-unchanged, intent-to-add: what git says of them is libgit2's to say.
                guard flags & 0x3000 == 0, flags & 0x8000 == 0, extendedFlags & 0x2000 == 0 else { return nil }
                let lastSlash = name.lastIndex(of: 0x2f) ?? 0
                tracked.append(
                    Tracked(
                        entry: position, nameStart: nameStart, nameLength: length, folderLength: lastSlash,
                        skips: extendedFlags & 0x4000 != 0))
            }
            position += entryLength
        }
        // A split index ("link") keeps entries elsewhere; a sparse one says so ("sdir").
        while position + 8 <= end {
            let signature = BigEndian.read32(bytes, at: position)
            if signature == 0x6c69_6e6b || signature == 0x7364_6972 { return nil }
            position += 8 + Int(BigEndian.read32(bytes, at: position + 4))
        }
        return tracked
    }

    /// Adds to `reported` every path whose entry differs from `tree`'s (id or mode), is in one and not
    /// the other; false when the tree holds what this scan does not read (a folder deeper down).
    static func compareWithTree(
        _ repository: Repository, _ bytes: UnsafeRawBufferPointer, _ tracked: [Tracked], _ groups: [[UInt8]: [Int]],
        folder: [UInt8], files: [String], tree: ObjectID?, cache: RawTreeCache, into reported: inout Set<String>
    ) -> Bool {
        let folderName = String(decoding: folder, as: UTF8.self)
        func path(_ item: Tracked) -> String {
            String(decoding: bytes[item.nameStart..<item.nameStart + item.nameLength], as: UTF8.self)
        }
        let root: RawTree
        do {
            root = try repository.rawTree(tree ?? Repository.emptyTreeID, cache: cache)
        } catch {
            return false
        }
        // The top-level files.
        for file in files {
            let name = Array(file.utf8)
            let entry = root.find(name, isTree: false)
            let index = groups[[]]?.first { index in
                let item = tracked[index]
                return bytes[item.nameStart..<item.nameStart + item.nameLength].elementsEqual(name)
            }
            if !same(bytes, index.map { tracked[$0] }, root, entry) { reported.insert(file) }
        }
        // The folder's folders: each compared name by name with its group (both in byte order: a folder
        // of files only is in that order in a tree, and the index is sorted by path).
        var folderTree: RawTree?
        if let entry = root.find(folder, isTree: true) {
            do {
                folderTree = try repository.rawTree(root.id(entry), cache: cache)
            } catch {
                return false
            }
        }
        var treeFolders: [([UInt8], ObjectID)] = []
        var folderFiles: [RawTree.Entry] = []
        if let folderTree, let base = folderTree.bytes.baseAddress {
            for entry in folderTree.entries {
                if entry.isTree {
                    treeFolders.append(
                        (
                            Array(
                                UnsafeBufferPointer(
                                    start: base + entry.nameStart, count: entry.nameEnd - entry.nameStart)),
                            folderTree.id(entry)
                        ))
                } else {
                    folderFiles.append(entry)
                }
            }
        }
        repository.readAhead(treeFolders.map(\.1), cache: cache)
        var seen: Set<[UInt8]> = []
        for (name, id) in treeFolders {
            let key = folder + [0x2f] + name
            seen.insert(key)
            let subtree: RawTree
            do {
                subtree = try repository.rawTree(id, cache: cache)
            } catch {
                return false
            }
            if subtree.entries.contains(where: \.isTree) { return false }
            let prefix = folderName + "/" + String(decoding: name, as: UTF8.self) + "/"
            join(bytes, tracked, groups[key] ?? [], subtree, subtree.entries, prefix: prefix, into: &reported)
        }
        if let folderTree {
            join(
                bytes, tracked, groups[folder] ?? [], folderTree, folderFiles, prefix: folderName + "/", into: &reported
            )
        } else if let items = groups[folder] {
            for index in items { reported.insert(path(tracked[index])) }
        }
        // Folders the index has and the tree does not.
        for (key, items) in groups where !key.isEmpty && key != folder && !seen.contains(key) {
            for index in items { reported.insert(path(tracked[index])) }
        }
        return true
    }

    /// Whether an index entry and a tree entry are the same object in the same mode (both absent: yes).
    static func same(_ bytes: UnsafeRawBufferPointer, _ item: Tracked?, _ tree: RawTree, _ entry: RawTree.Entry?)
        -> Bool
    {
        guard let item, let entry, let base = tree.bytes.baseAddress, let index = bytes.baseAddress else {
            return item == nil && entry == nil
        }
        guard BigEndian.read32(bytes, at: item.entry + 24) == entry.mode else { return false }
        return memcmp(index + item.entry + 40, base + entry.idStart, 20) == 0
    }

    /// Walks a folder's index entries (`items`, in order) beside its tree entries (`entries`, in
    /// order), reporting a name in one only or different in both.
    static func join(
        _ bytes: UnsafeRawBufferPointer, _ tracked: [Tracked], _ items: [Int], _ tree: RawTree,
        _ entries: [RawTree.Entry],
        prefix: String, into reported: inout Set<String>
    ) {
        guard let base = tree.bytes.baseAddress else { return }
        var left = 0
        var right = 0
        while left < items.count || right < entries.count {
            let order: Int32
            if left == items.count {
                order = 1
            } else if right == entries.count {
                order = -1
            } else {
                let item = tracked[items[left]]
                let entry = entries[right]
                let name = UnsafeRawBufferPointer(
                    rebasing: bytes[(item.nameStart + item.folderLength + 1)..<(item.nameStart + item.nameLength)])
                let other = UnsafeRawBufferPointer(
                    start: base + entry.nameStart, count: entry.nameEnd - entry.nameStart)
                let common = min(name.count, other.count)
                let compared =
                    common == 0
                    ? 0
                    : name.baseAddress.flatMap { left in
                        other.baseAddress.map { memcmp(left, $0, common) }
                    } ?? 0
                order = compared != 0 ? compared : Int32(name.count) - Int32(other.count)
            }
            if order < 0 {
                let item = tracked[items[left]]
                reported.insert(
                    String(decoding: bytes[item.nameStart..<item.nameStart + item.nameLength], as: UTF8.self))
                left += 1
            } else if order > 0 {
                let entry = entries[right]
                reported.insert(
                    prefix
                        + String(
                            decoding: UnsafeBufferPointer(
                                start: base + entry.nameStart, count: entry.nameEnd - entry.nameStart),
                            as: UTF8.self))
                right += 1
            } else {
                let item = tracked[items[left]]
                if !same(bytes, item, tree, entries[right]) {
                    reported.insert(
                        String(decoding: bytes[item.nameStart..<item.nameStart + item.nameLength], as: UTF8.self))
                }
                left += 1
                right += 1
            }
        }
    }

    /// The entries whose file is gone, or differs from the stat data the index records for it (or may,
    /// being as new as the index: racily clean), for the caller to read; nil when a folder holds a name
    /// the index does not (an untracked file or folder: git's ignore rules are libgit2's to apply).
    static func compareWithFiles(
        _ workingDirectory: String, _ bytes: UnsafeRawBufferPointer, _ tracked: [Tracked], _ groups: [[UInt8]: [Int]],
        folder: [UInt8], indexTime: (UInt32, UInt32)
    ) -> [Int]? {
        let keys = Array(groups.keys)
        // The folder's own entries are the names of its folders besides its files.
        let subfolders = Set(
            keys.compactMap { key -> [UInt8]? in
                key.count > folder.count ? Array(key[(folder.count + 1)...]) : nil
            })
        let top = workingDirectory.hasSuffix("/") ? workingDirectory : workingDirectory + "/"
        // The folder itself is always looked at: files there, or folders, that the index does not know.
        var work = keys
        if groups[folder] == nil { work.append(folder) }
        let outcome = Outcome(halves: 2)
        let shared = UncheckedSendable((work, groups, tracked, bytes))
        let run: @Sendable (Int) -> Void = { half in
            let (work, groups, tracked, bytes) = shared.value
            var changed: [Int] = []
            for (position, key) in work.enumerated() where position % 2 == half {
                let directory = top + String(decoding: key, as: UTF8.self)
                let allowed: Set<[UInt8]> = key == folder ? subfolders : []
                guard
                    check(
                        directory: directory, isTop: key.isEmpty, items: groups[key] ?? [], tracked: tracked,
                        bytes: bytes, indexTime: indexTime, folders: allowed, into: &changed)
                else {
                    outcome.fail()
                    return
                }
            }
            outcome.set(half, changed)
        }
        if work.count >= 16 && Repository.processors > 1 {
            DispatchQueue.concurrentPerform(iterations: 2) { run($0) }
        } else {
            run(0)
            run(1)
        }
        return outcome.result
    }

    /// One folder: `lstat` of each entry's file (by name, from the folder's descriptor), then its names
    /// counted; false when it holds a name not in the index. `isTop`: the working tree's own folder,
    /// whose other names (everything not a deck file) are none of this scan's business.
    static func check(
        directory: String, isTop: Bool, items: [Int], tracked: [Tracked], bytes: UnsafeRawBufferPointer,
        indexTime: (UInt32, UInt32), folders: Set<[UInt8]>, into changed: inout [Int]
    ) -> Bool {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            // No folder: every tracked file in it is gone (git keeps out only the skipped ones).
            guard errno == ENOENT else { return false }
            for index in items where !tracked[index].skips { changed.append(index) }
            return true
        }
        defer { close(descriptor) }
        guard let base = bytes.baseAddress else { return false }
        var present = 0
        for index in items {
            let item = tracked[index]
            var info = stat()
            // The name is NUL-ended where it lies (an entry is padded with 1 to 8 NULs).
            let start = item.nameStart + (item.folderLength == 0 ? 0 : item.folderLength + 1)
            let name = base.advanced(by: start).assumingMemoryBound(to: CChar.self)
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno != ENOENT && errno != ENOTDIR { return false }
                if !item.skips { changed.append(index) }
                continue
            }
            present += 1
            if item.skips { continue }
            if !matches(info, bytes, at: item.entry, indexTime: indexTime) { changed.append(index) }
        }
        if isTop { return true }
        // Every name the folder holds is one the index tracks (or, in the top folder, one of its folders).
        guard let listing = fdopendir(dup(descriptor)) else { return false }
        defer { closedir(listing) }
        var names = 0
        var subfolders = 0
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name == [0x2e] || name == [0x2e, 0x2e] { continue }
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR):
                guard folders.contains(name) else { return false }
                subfolders += 1
            case Int32(DT_UNKNOWN):
                return false
            default:
                names += 1
            }
        }
        return names == present
    }

    /// Whether a file's `lstat` is the stat data its entry records (git's `ie_match_stat`, every field
    /// compared), and not racily clean (modified within the index's own timestamp).
    static func matches(_ info: stat, _ bytes: UnsafeRawBufferPointer, at entry: Int, indexTime: (UInt32, UInt32))
        -> Bool
    {
        guard info.st_mode & S_IFMT == S_IFREG else { return false }
        func field(_ number: Int) -> UInt32 { BigEndian.read32(bytes, at: entry + 4 * number) }
        let mode: UInt32 = info.st_mode & 0o100 != 0 ? 0o100755 : 0o100644
        let seconds = UInt32(truncatingIfNeeded: info.st_mtim.tv_sec)
        let nanoseconds = UInt32(truncatingIfNeeded: info.st_mtim.tv_nsec)
        guard field(0) == UInt32(truncatingIfNeeded: info.st_ctim.tv_sec),
            field(1) == UInt32(truncatingIfNeeded: info.st_ctim.tv_nsec), field(2) == seconds,
            field(3) == nanoseconds, field(4) == UInt32(truncatingIfNeeded: info.st_dev),
            field(5) == UInt32(truncatingIfNeeded: info.st_ino), field(6) == mode,
            field(7) == UInt32(truncatingIfNeeded: info.st_uid), field(8) == UInt32(truncatingIfNeeded: info.st_gid),
            field(9) == UInt32(truncatingIfNeeded: info.st_size)
        else { return false }
        // Written in the index's own second (to its nanosecond or after): its content may have changed
        // since without the stat data showing it.
        return !IndexPatch.isRacilyClean(seconds: seconds, nanoseconds: nanoseconds, indexTime: indexTime)
    }

    /// The two halves' findings, or a failure of either.
    final class Outcome: Sendable {
        private let state: Mutex<(found: [[Int]], failed: Bool)>

        init(halves: Int) { state = Mutex((Array(repeating: [], count: halves), false)) }

        func set(_ half: Int, _ changed: [Int]) { state.withLock { $0.found[half] = changed } }

        func fail() { state.withLock { $0.failed = true } }

        var result: [Int]? { state.withLock { $0.failed ? nil : $0.found.flatMap { $0 } } }
    }
}
