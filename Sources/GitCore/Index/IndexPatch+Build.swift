import Glibc
import SystemCalls

extension IndexPatch {
    /// The new index, without its checksum, as pieces of the old one (`bytes`) and new bytes; or why
    /// the fast path does not apply. `changes` are sorted by path; `indexTime` is the old index's
    /// modification time, which decides which unchanged entries are racily clean.
    ///
    /// `workingDirectory`: where the entries' files are, to look again at an unchanged entry recorded
    /// in the old index's second (`isStillAsRecorded`); nil leaves such entries as they are.
    static func build(
        _ bytes: UnsafeRawBufferPointer, changes: [(path: [UInt8], update: IndexUpdate)], paths: PatchablePaths,
        indexTime: (seconds: UInt32, nanoseconds: UInt32), workingDirectory: String? = nil
    ) -> Result<IndexImage, Reason> {
        let end = bytes.count - 20
        guard end >= 12, bytes[0] == 0x44, bytes[1] == 0x49, bytes[2] == 0x52, bytes[3] == 0x43 else {
            return .failure(Reason(text: "not an index file"))
        }
        let version = BigEndian.read32(bytes, at: 4)
        guard version == 2 || version == 3 else { return .failure(Reason(text: "index version \(version)")) }
        var image = IndexImage()
        // The header is the image's own: its entry count is set once the entries are placed.
        image.append(contentsOf: bytes[0..<12])
        var position = 12
        let written: Int
        switch placeEntries(
            bytes, end: end, version: version, changes: changes, paths: paths,
            indexTime: indexTime, workingDirectory: workingDirectory, position: &position,
            into: &image)
        {
        case .failure(let reason): return .failure(reason)
        case .success(let count): written = count
        }
        image.set32(UInt32(truncatingIfNeeded: written), atAdded: 8)
        // An entry with extended flags (skip-worktree) needs version 3, as git and libgit2 write it.
        if version == 2 && changes.contains(where: { $0.update.skipWorktree && $0.update.file != nil }) {
            image.set32(3, atAdded: 4)
        }
        if let reason = placeExtensions(
            bytes, end: end, changes: changes, paths: paths, position: &position, into: &image)
        {
            return .failure(reason)
        }
        guard position == end else { return .failure(Reason(text: "trailing bytes in the index")) }
        return .success(image)
    }

    /// Places the entries from `position` on: unchanged runs as pieces of the old file (a racily clean
    /// entry's size as 4 zero bytes of the image's own), changed entries spliced in at their sorted
    /// places, removed ones left out. Leaves `position` after the last entry; returns the entry count.
    private static func placeEntries(
        _ bytes: UnsafeRawBufferPointer, end: Int, version: UInt32, changes: [(path: [UInt8], update: IndexUpdate)],
        paths: PatchablePaths, indexTime: (seconds: UInt32, nanoseconds: UInt32), workingDirectory: String?,
        position: inout Int, into image: inout IndexImage
    ) -> Result<Int, Reason> {
        let entryCount = Int(BigEndian.read32(bytes, at: 8))
        var written = 0
        // The start of the old bytes not yet placed.
        var runStart = position
        var next = 0
        func emit(_ change: (path: [UInt8], update: IndexUpdate)) {
            if appendEntry(change, to: &image) { written += 1 }
        }
        for _ in 0..<entryCount {
            let entry: OldEntry
            switch OldEntry.read(bytes, at: position, end: end, version: version) {
            case .failure(let reason): return .failure(reason)
            case .success(let read): entry = read
            }
            if paths.isInTheWay(entry.name) {
                return .failure(
                    Reason(text: "\(String(decoding: entry.name, as: UTF8.self)) is in the way of card paths"))
            }
            var order = next < changes.count ? IndexPatch.compare(changes[next].path, entry.name) : 1
            while order < 0 {
                image.copy(runStart..<position)
                runStart = position
                emit(changes[next])
                next += 1
                order = next < changes.count ? IndexPatch.compare(changes[next].path, entry.name) : 1
            }
            if order == 0 {
                if entry.stage != 0 { return .failure(Reason(text: "a conflict in the index at a changed path")) }
                image.copy(runStart..<position)
                emit(changes[next])
                next += 1
                runStart = position + entry.length
            } else {
                let modified = BigEndian.read32(bytes, at: position + 8)
                if IndexPatch.isRacilyClean(
                    seconds: modified, nanoseconds: BigEndian.read32(bytes, at: position + 12), indexTime: indexTime)
                    || (modified == indexTime.seconds
                        && !isStillAsRecorded(bytes, at: position, name: entry.name, in: workingDirectory))
                {
                    // Racily clean (not older than the old index), or changed in its second where git's
                    // stat check cannot see it: size 0 makes git re-check it.
                    image.copy(runStart..<position + 36)
                    image.append32(0)
                    runStart = position + 40
                }
                written += 1
            }
            position += entry.length
        }
        image.copy(runStart..<position)
        while next < changes.count {
            emit(changes[next])
            next += 1
        }
        return .success(written)
    }

    /// Whether the file of the entry at `position`, recorded in the old index's second but before it
    /// (not racily clean to the nanosecond, but to git, which compares whole seconds), still holds
    /// the entry's blob, as far as git can tell. While the index is of that second git checks such an
    /// entry's file again; once a later index follows it trusts the stat data, and a same-size change
    /// made in that second (a hand edit right after a write) would never show in `git status`. So the
    /// file is looked at now, as git does before it writes an index (`ce_smudge_racily_clean_entry`):
    /// another mtime second or size shows the change to git by itself; times and inode the same to
    /// the nanosecond, the file is unchanged; else its content decides.
    /// False (smudge it) only for a file whose change git's stat check would miss. True without a
    /// working directory.
    private static func isStillAsRecorded(
        _ bytes: UnsafeRawBufferPointer, at position: Int, name: UnsafeRawBufferPointer, in workingDirectory: String?
    ) -> Bool {
        guard let workingDirectory, let base = bytes.baseAddress else { return true }
        // A name that is not UTF-8 cannot be looked up through a `String`: git would check it, so smudge it.
        guard let relative = String(validating: name, as: UTF8.self) else { return false }
        let path = workingDirectory + "/" + relative
        guard let now = FileStat(path: path) else { return true }
        func recorded(_ field: Int) -> UInt32 { BigEndian.read32(bytes, at: position + 4 * field) }
        // mtime seconds and size: what git compares whatever its settings (ctime and inode not with
        // `core.trustctime=false` or `core.checkStat=minimal`, nanoseconds only when built with USE_NSEC).
        guard now.fields[2] == recorded(2) && now.fields[9] == recorded(9) else { return true }
        if recorded(3) != 0 && [0, 1, 3, 5].allSatisfy({ now.fields[$0] == recorded($0) }) { return true }
        let size = Int(now.fields[9])
        guard size <= maximumComparedFile, let content = readWhole(path, size: size) else { return false }
        return ObjectID.blobHash(of: content) == ObjectID(pointer: base + position + 40)
    }

    /// Files larger than this are smudged rather than hashed by `isStillAsRecorded`.
    static let maximumComparedFile = 1 << 22

    /// The `size` bytes of the file at `path`, nil unless it holds exactly that many.
    private static func readWhole(_ path: String, size: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var complete = false
        let content = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, count in
            var filled = 0
            while filled <= size, let start = buffer.baseAddress {
                let got = FileDescriptor(descriptor).read(
                    into: UnsafeMutableRawBufferPointer(start: start + filled, count: size + 1 - filled))
                guard got > 0 else { break }
                filled += got
            }
            count = filled
            complete = filled == size
        }
        return complete ? content : nil
    }

    /// How `path` sorts against an entry's `name` in the index's order (bytes, then the shorter
    /// first): negative before, 0 the same, positive after. One `memcmp`: this runs for every entry
    /// of the index up to the last changed path (100,000 at 100,000 cards).
    static func compare(_ path: [UInt8], _ name: UnsafeRawBufferPointer) -> Int {
        let common = min(path.count, name.count)
        let order = path.withUnsafeBytes { own -> Int32 in
            guard common > 0, let left = own.baseAddress, let right = name.baseAddress else { return 0 }
            return memcmp(left, right, common)
        }
        return order != 0 ? Int(order) : path.count - name.count
    }

    /// Whether an entry whose file was modified at (`seconds`, `nanoseconds`) is racily clean against
    /// an index written at `indexTime`: modified at or after it, to the nanosecond, as git and libgit2
    /// decide. (To the second, every card an import wrote in the second of its index stayed smudged,
    /// and each `cards status` read and hashed them all again: 0.4 s at 10,000 cards.)
    static func isRacilyClean(seconds: UInt32, nanoseconds: UInt32, indexTime: (seconds: UInt32, nanoseconds: UInt32))
        -> Bool
    {
        seconds > indexTime.seconds || (seconds == indexTime.seconds && nanoseconds >= indexTime.nanoseconds)
    }

    /// An entry of the old index, as far as the patch reads it.
    private struct OldEntry {
        /// Its length in the file, padding included.
        var length: Int
        /// Its path.
        var name: UnsafeRawBufferPointer
        /// Its merge stage (0 unless conflicted).
        var stage: Int

        /// The entry at `position` (version 2 or 3 layout: 62 bytes, or 64 with extended flags, then the
        /// NUL-padded path), or why it cannot be read.
        static func read(_ bytes: UnsafeRawBufferPointer, at position: Int, end: Int, version: UInt32) -> Result<
            OldEntry, Reason
        > {
            guard position + 62 <= end else { return .failure(Reason(text: "truncated index entry")) }
            let flags = Int(bytes[position + 60]) << 8 | Int(bytes[position + 61])
            let extended = flags & 0x4000 != 0
            if extended && version < 3 { return .failure(Reason(text: "extended flags in a version 2 index")) }
            let header = extended ? 64 : 62
            let nameStart = position + header
            var nameLength = flags & 0xfff
            if nameLength == 0xfff {
                // A path of 4095 bytes or more: its length is where its NUL is.
                var cursor = nameStart
                while cursor < end && bytes[cursor] != 0 { cursor += 1 }
                nameLength = cursor - nameStart
            }
            let length = (header + nameLength + 8) & ~7
            guard position + length <= end else { return .failure(Reason(text: "truncated index entry")) }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<nameStart + nameLength])
            return .success(OldEntry(length: length, name: name, stage: (flags >> 12) & 3))
        }
    }

    /// Appends the index entry for a changed path (nothing for a removal); returns whether it did.
    private static func appendEntry(_ change: (path: [UInt8], update: IndexUpdate), to image: inout IndexImage) -> Bool
    {
        guard let file = change.update.file else { return false }
        // Straight into the image: it merges adjacent added bytes into one piece.
        let length = change.path.count
        let skips = change.update.skipWorktree
        for field in file.stat.fields { image.append32(field) }
        image.append(contentsOf: file.blob.bytes)
        // Extended flags (version 3) carry the skip-worktree bit: the flags say they follow.
        let flags = min(length, 0xfff) | (skips ? Int(IndexSkipWorktree.extendedBit) : 0)
        image.append(contentsOf: [UInt8(truncatingIfNeeded: flags >> 8), UInt8(truncatingIfNeeded: flags)])
        if skips {
            let extended = IndexSkipWorktree.skipWorktreeBit
            image.append(contentsOf: [UInt8(truncatingIfNeeded: extended >> 8), UInt8(truncatingIfNeeded: extended)])
        }
        let header = skips ? 64 : 62
        image.append(contentsOf: change.path)
        image.append(contentsOf: repeatElement(0, count: ((header + length + 8) & ~7) - header - length))
        return true
    }

    /// Places the extensions from `position` to `end`: TREE rewritten with the changed paths' nodes
    /// invalidated, REUC and NAME kept, other optional ones dropped; a reason for a mandatory one or
    /// one that does not parse. Leaves `position` after the last one.
    private static func placeExtensions(
        _ bytes: UnsafeRawBufferPointer, end: Int, changes: [(path: [UInt8], update: IndexUpdate)],
        paths: PatchablePaths, position: inout Int, into image: inout IndexImage
    ) -> Reason? {
        var invalid: Set<[UInt8]> = [[]]
        for change in changes { invalid.formUnion(paths.folders(of: change.path)) }
        while position + 8 <= end {
            let signature = Array(bytes[position..<position + 4])
            let size = Int(BigEndian.read32(bytes, at: position + 4))
            let body = position + 8
            guard body + size <= end else { return Reason(text: "truncated index extension") }
            switch String(decoding: signature, as: UTF8.self) {
            case "TREE":
                guard let tree = rewriteCachedTree(bytes, body: body, limit: body + size, invalid: invalid) else {
                    return Reason(text: "unreadable cached-tree extension")
                }
                image.append(contentsOf: signature)
                image.append32(UInt32(truncatingIfNeeded: tree.count))
                image.append(contentsOf: tree)
            case "REUC", "NAME":
                // Keyed by path, not by position: still true.
                image.copy(position..<body + size)
            default:
                // Optional extensions (upper-case first letter) are caches that may be dropped, and the
                // ones keyed by entry position (EOIE, IEOT, FSMN, UNTR) would be wrong now. Mandatory ones
                // (split or sparse index) we do not understand.
                guard signature[0] >= UInt8(ascii: "A") && signature[0] <= UInt8(ascii: "Z") else {
                    return Reason(text: "index extension \(String(decoding: signature, as: UTF8.self))")
                }
            }
            position = body + size
        }
        return nil
    }
}
