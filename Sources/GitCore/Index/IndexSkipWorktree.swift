import Glibc

/// What the index file says about the working tree's sparse state: which entries carry git's
/// skip-worktree bit (a sparse checkout's paths outside its patterns, `git update-index
/// --skip-worktree`, the links a deck keeps out of its working tree), which paths have an entry at
/// all, and whether it is a sparse index (`index.sparse`: folders outside the cone folded into one
/// entry each, and the mandatory `sdir` extension, which libgit2 1.5 cannot read).
///
/// Read by walking the entries' fixed headers in the mapped file (versions 2, 3 and 4), not through
/// libgit2, which parses every entry into an allocation of its own (~200 ms at 100,000 entries). A
/// version 2 index can hold no skip-worktree bit (the bit is in the extended flags of version 3), so
/// without `tracking` it is answered from its header and its last bytes alone.
package struct IndexSkipWorktree: Sendable {
    /// The index format version (0 when there is no index file or it cannot be read).
    package var version: UInt32 = 0
    /// Whether the index is a sparse index (`sdir` extension, or an entry naming a folder).
    package var isSparse = false
    /// The paths asked about (every path, when none were named) whose entry has the skip-worktree bit.
    package var skipped: Set<String> = []
    /// The paths asked about that have an entry, at any stage (only when asked with `tracking`).
    package var tracked: Set<String> = []
    /// Whether the index is split (`git update-index --split-index`): its mandatory `link` extension
    /// names the shared file most entries are in (read only by a walk of the whole file: `tracking`).
    package var isSplit = false

    /// The skip-worktree bit in an entry's extended flags (`CE_SKIP_WORKTREE >> 16`).
    static let skipWorktreeBit: UInt16 = 0x4000
    /// The flag in an entry's flags that says extended flags follow.
    static let extendedBit: UInt16 = 0x4000
    /// The mode of an entry that names a folder (a sparse index's sparse-directory entry).
    static let folderMode: UInt32 = 0o040000

    /// Reads the index at `indexPath` for `paths` (nil: every skip-worktree path). `tracking`: also
    /// which of `paths` have an entry (the whole file is then walked, whatever its version).
    package static func read(indexPath: String, paths: Set<String>?, tracking: Bool = false) -> IndexSkipWorktree {
        var result = IndexSkipWorktree()
        let descriptor = open(indexPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return result }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return result }
        let size = Int(info.st_size)
        var header = [UInt8](repeating: 0, count: 12)
        guard size >= 32, pread(descriptor, &header, 12, 0) == 12, header[0..<4] == [0x44, 0x49, 0x52, 0x43] else {
            return result
        }
        result.version = header[4..<8].reduce(0) { $0 << 8 | UInt32($1) }
        let wanted = paths.map { Set($0.map { Array($0.utf8) }) }
        if wanted?.isEmpty == true && !tracking {
            result.isSparse = endsWithSparseMarker(descriptor, size: size)
            return result
        }
        // Version 2 has no extended flags: no entry can skip the working tree. Its last bytes still say
        // whether git marked it sparse (a sparse index whose cone holds every folder stays version 2).
        if result.version == 2 && !tracking {
            result.isSparse = endsWithSparseMarker(descriptor, size: size)
            return result
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            return result
        }
        defer { munmap(mapped, size) }
        walk(UnsafeRawBufferPointer(start: mapped, count: size), wanted: wanted, tracking: tracking, into: &result)
        return result
    }

    /// Whether the index at `indexPath` is a sparse index: its last bytes first (where git writes the
    /// empty `sdir` extension, before the checksum or the end-of-entries extension), then, when they
    /// say so, a walk of the file to be sure. One open and two short reads for an index that is not.
    package static func isSparseIndex(at indexPath: String) -> Bool {
        read(indexPath: indexPath, paths: []).isSparse
            && read(indexPath: indexPath, paths: [], tracking: true).isSparse
    }

    /// Whether the index at `indexPath` is a split index (its `link` extension), which libgit2 1.5
    /// cannot read or write: told from the file itself, not from what libgit2 says when it refuses it.
    package static func isSplitIndex(at indexPath: String) -> Bool {
        read(indexPath: indexPath, paths: [], tracking: true).isSplit
    }

    /// Whether the empty `sdir` extension sits just before the checksum, or just before an
    /// end-of-index-entries extension (`EOIE`, 24 bytes) that git writes last.
    private static func endsWithSparseMarker(_ descriptor: Int32, size: Int) -> Bool {
        let marker: [UInt8] = Array("sdir".utf8) + [0, 0, 0, 0]
        let length = min(size, 68)
        var tail = [UInt8](repeating: 0, count: length)
        guard pread(descriptor, &tail, length, off_t(size - length)) == length else { return false }
        let beforeChecksum = length - 20 - 8
        if beforeChecksum >= 0 && Array(tail[beforeChecksum..<beforeChecksum + 8]) == marker { return true }
        let beforeEnd = length - 20 - 32 - 8
        return beforeEnd >= 0 && Array(tail[beforeEnd..<beforeEnd + 8]) == marker
            && Array(tail[beforeEnd + 8..<beforeEnd + 12]) == Array("EOIE".utf8)
    }

    /// Walks every entry and then the extensions, filling in `result`. An entry that cannot be read
    /// ends the walk: what was found so far stands (libgit2, reading the same file, says what is wrong).
    private static func walk(
        _ bytes: UnsafeRawBufferPointer, wanted: Set<[UInt8]>?, tracking: Bool, into result: inout IndexSkipWorktree
    ) {
        let end = bytes.count - 20
        let count = Int(BigEndian.read32(bytes, at: 8))
        let version = result.version
        guard version >= 2 && version <= 4 else { return }
        var position = 12
        var previous: [UInt8] = []
        for _ in 0..<count {
            guard position + 62 <= end else { return }
            let flags = UInt16(bytes[position + 60]) << 8 | UInt16(bytes[position + 61])
            let extended = version >= 3 && flags & extendedBit != 0
            let extendedFlags = extended ? UInt16(bytes[position + 62]) << 8 | UInt16(bytes[position + 63]) : 0
            let skips = extendedFlags & skipWorktreeBit != 0
            let mode = BigEndian.read32(bytes, at: position + 24)
            let nameStart = position + (extended ? 64 : 62)
            let name: [UInt8]
            if version == 4 {
                // Prefix-compressed: how many bytes of the previous name to drop, then the rest, NUL-ended.
                var cursor = nameStart
                guard let strip = varint(bytes, at: &cursor, end: end), strip <= previous.count else { return }
                var nul = cursor
                while nul < end && bytes[nul] != 0 { nul += 1 }
                guard nul < end else { return }
                name = Array(previous.prefix(previous.count - strip)) + Array(bytes[cursor..<nul])
                previous = name
                position = nul + 1
            } else {
                var length = Int(flags & 0xfff)
                if length == 0xfff {
                    var nul = nameStart
                    while nul < end && bytes[nul] != 0 { nul += 1 }
                    length = nul - nameStart
                }
                let entryLength = ((nameStart - position) + length + 8) & ~7
                guard position + entryLength <= end else { return }
                // Copied only when it may be asked about: most entries are passed over by their flags.
                if skips || tracking || mode == folderMode {
                    name = Array(bytes[nameStart..<nameStart + length])
                } else {
                    name = []
                }
                position += entryLength
            }
            if mode == folderMode { result.isSparse = true }
            guard skips || tracking else { continue }
            let asked = wanted.map { $0.contains(name) } ?? true
            guard asked else { continue }
            let path = String(decoding: name, as: UTF8.self)
            if skips { result.skipped.insert(path) }
            if tracking && wanted != nil { result.tracked.insert(path) }
        }
        while position + 8 <= end {
            let signature = Array(bytes[position..<position + 4])
            if signature == Array("sdir".utf8) { result.isSparse = true }
            if signature == Array("link".utf8) { result.isSplit = true }
            position += 8 + Int(BigEndian.read32(bytes, at: position + 4))
        }
    }

    /// git's offset varint (`decode_varint`): 7 bits a byte, most significant first, each continued
    /// byte adding one; nil when it runs past `end` or overflows.
    private static func varint(_ bytes: UnsafeRawBufferPointer, at cursor: inout Int, end: Int) -> Int? {
        guard cursor < end else { return nil }
        var byte = bytes[cursor]
        cursor += 1
        var value = Int(byte & 127)
        while byte & 128 != 0 {
            guard cursor < end, value < Int.max >> 8 else { return nil }
            byte = bytes[cursor]
            cursor += 1
            value = ((value + 1) << 7) | Int(byte & 127)
        }
        return value
    }
}
