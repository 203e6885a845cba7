@testable import GitCore

/// The index patch's builder as it was before the new index was streamed as pieces (commit 84de888):
/// every byte copied into one array. Kept only here, as the oracle the streamed output must equal
/// byte for byte (checksum included).
enum LegacyIndexPatch {
    /// The whole new index file, or the reason the old builder declined.
    static func build(
        _ bytes: UnsafeRawBufferPointer, changes: [(path: [UInt8], update: IndexUpdate)], indexSeconds: UInt32,
        indexNanoseconds: UInt32 = 0
    ) -> Result<[UInt8], IndexPatch.Reason> {
        buildWithoutChecksum(
            bytes, changes: changes, indexSeconds: indexSeconds, indexNanoseconds: indexNanoseconds
        ).map { output in
            output + output.withUnsafeBytes { SHA1.portableDigest($0) }
        }
    }

    /// The last update of each path, sorted by path (the old `apply`'s own code); nil when one is not
    /// a card path.
    static func changes(_ updates: [IndexUpdate]) -> [(path: [UInt8], update: IndexUpdate)]? {
        var latest: [[UInt8]: IndexUpdate] = [:]
        for update in updates {
            let path = Array(update.path.utf8)
            // The card-path rule as the old builder spelled it, not `PatchablePaths` (the code under test).
            guard path.count == 50, path[8] == UInt8(ascii: "/"), path.starts(with: Array("cards/".utf8)),
                path.suffix(5).elementsEqual(".json".utf8), !path[9..<45].contains(UInt8(ascii: "/"))
            else { return nil }
            latest[path] = update
        }
        let sorted = latest.keys.sorted { $0.lexicographicallyPrecedes($1) }
        return sorted.compactMap { path in latest[path].map { (path: path, update: $0) } }
    }

    private typealias Reason = IndexPatch.Reason

    static func be32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    static func append32(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }

    /// The new index without its checksum, or why the fast path does not apply.
    static func buildWithoutChecksum(
        _ bytes: UnsafeRawBufferPointer, changes: [(path: [UInt8], update: IndexUpdate)], indexSeconds: UInt32,
        indexNanoseconds: UInt32 = 0
    ) -> Result<[UInt8], IndexPatch.Reason> {
        let end = bytes.count - 20
        guard end >= 12, bytes[0] == 0x44, bytes[1] == 0x49, bytes[2] == 0x52, bytes[3] == 0x43 else {
            return .failure(Reason(text: "not an index file"))
        }
        let version = be32(bytes, 4)
        guard version == 2 || version == 3 else { return .failure(Reason(text: "index version \(version)")) }
        let entryCount = Int(be32(bytes, 8))
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + changes.count * 112 + 64)
        out += bytes[0..<12]
        var written = 0
        var position = 12
        var runStart = 12
        var smudges: [Int] = []
        var next = 0
        let slash = UInt8(ascii: "/")
        let cardsPrefix = Array("cards".utf8)

        func flush(upTo limit: Int) {
            let base = out.count
            if limit > runStart { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<limit])) }
            for offset in smudges {
                // Racily clean (written in the same second as the old index): size 0 makes git re-check it.
                for byte in 0..<4 { out[base + offset - runStart + byte] = 0 }
            }
            smudges.removeAll(keepingCapacity: true)
        }
        func emit(_ change: (path: [UInt8], update: IndexUpdate)) {
            guard let file = change.update.file else { return }
            for field in file.stat.fields { append32(field, to: &out) }
            out += file.blob.bytes
            let length = change.path.count
            out.append(UInt8(truncatingIfNeeded: min(length, 0xfff) >> 8))
            out.append(UInt8(truncatingIfNeeded: min(length, 0xfff)))
            out += change.path
            let total = (62 + length + 8) & ~7
            out += repeatElement(0, count: total - 62 - length)
            written += 1
        }

        for _ in 0..<entryCount {
            guard position + 62 <= end else { return .failure(Reason(text: "truncated index entry")) }
            let flags = Int(bytes[position + 60]) << 8 | Int(bytes[position + 61])
            let extended = flags & 0x4000 != 0
            if extended && version < 3 { return .failure(Reason(text: "extended flags in a version 2 index")) }
            let header = extended ? 64 : 62
            let nameStart = position + header
            var nameLength = flags & 0xfff
            if nameLength == 0xfff {
                var cursor = nameStart
                while cursor < end && bytes[cursor] != 0 { cursor += 1 }
                nameLength = cursor - nameStart
            }
            let entryLength = (header + nameLength + 8) & ~7
            guard position + entryLength <= end else { return .failure(Reason(text: "truncated index entry")) }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<nameStart + nameLength])
            let stage = (flags >> 12) & 3
            // A file where a card path needs a folder (`cards`, `cards/xx`, a card path used as a folder).
            if name.starts(with: cardsPrefix)
                && (nameLength == 5 || (nameLength == 8 && name[5] == slash)
                    || (nameLength > 50 && name[50] == slash && name[5] == slash))
            {
                return .failure(Reason(text: "\(String(decoding: name, as: UTF8.self)) is in the way of card paths"))
            }
            while next < changes.count && changes[next].path.lexicographicallyPrecedes(name) {
                flush(upTo: position)
                runStart = position
                emit(changes[next])
                next += 1
            }
            if next < changes.count && changes[next].path.elementsEqual(name) {
                if stage != 0 { return .failure(Reason(text: "a conflict in the index at a changed path")) }
                flush(upTo: position)
                emit(changes[next])
                next += 1
                runStart = position + entryLength
            } else {
                let seconds = be32(bytes, position + 8)
                let nanoseconds = be32(bytes, position + 12)
                if seconds > indexSeconds || (seconds == indexSeconds && nanoseconds >= indexNanoseconds) {
                    smudges.append(position + 36)
                }
                written += 1
            }
            position += entryLength
        }
        flush(upTo: position)
        while next < changes.count {
            emit(changes[next])
            next += 1
        }
        // The entry count in the header.
        let total = UInt32(written)
        out[8] = UInt8(truncatingIfNeeded: total >> 24)
        out[9] = UInt8(truncatingIfNeeded: total >> 16)
        out[10] = UInt8(truncatingIfNeeded: total >> 8)
        out[11] = UInt8(truncatingIfNeeded: total)

        var invalid: Set<[UInt8]> = [[]]
        for change in changes {
            invalid.insert(cardsPrefix)
            invalid.insert(Array(change.path[0..<8]))
        }
        while position + 8 <= end {
            let signature = Array(bytes[position..<position + 4])
            let size = Int(be32(bytes, position + 4))
            let body = position + 8
            guard body + size <= end else { return .failure(Reason(text: "truncated index extension")) }
            switch String(decoding: signature, as: UTF8.self) {
            case "TREE":
                var tree: [UInt8] = []
                var cursor = body
                guard rewriteTree(bytes, &cursor, limit: body + size, prefix: nil, invalid: invalid, into: &tree),
                    cursor == body + size
                else {
                    return .failure(Reason(text: "unreadable cached-tree extension"))
                }
                out += signature
                append32(UInt32(tree.count), to: &out)
                out += tree
            case "REUC", "NAME":
                // Keyed by path, not by position: still true.
                out += bytes[position..<body + size]
            default:
                // Optional extensions (upper-case first letter) are caches that may be dropped, and the
                // ones keyed by entry position (EOIE, IEOT, FSMN, UNTR) would be wrong now. Mandatory ones
                // (split or sparse index) we do not understand.
                guard signature[0] >= UInt8(ascii: "A") && signature[0] <= UInt8(ascii: "Z") else {
                    return .failure(Reason(text: "index extension \(String(decoding: signature, as: UTF8.self))"))
                }
            }
            position = body + size
        }
        guard position == end else { return .failure(Reason(text: "trailing bytes in the index")) }
        return .success(out)
    }

    /// Copies one cached-tree node and its children, marking the nodes on changed paths invalid
    /// (entry count -1, no id) so git and libgit2 recompute them.
    static func rewriteTree(
        _ bytes: UnsafeRawBufferPointer, _ cursor: inout Int, limit: Int, prefix: [UInt8]?, invalid: Set<[UInt8]>,
        into out: inout [UInt8]
    ) -> Bool {
        let nameStart = cursor
        while cursor < limit && bytes[cursor] != 0 { cursor += 1 }
        guard cursor < limit else { return false }
        let name = Array(bytes[nameStart..<cursor])
        cursor += 1
        func number(until terminator: UInt8) -> Int? {
            var negative = false
            var value = 0
            var digits = 0
            if cursor < limit && bytes[cursor] == UInt8(ascii: "-") {
                negative = true
                cursor += 1
            }
            while cursor < limit && bytes[cursor] != terminator {
                let digit = Int(bytes[cursor]) - 48
                guard digit >= 0 && digit <= 9, digits < 10 else { return nil }
                value = value * 10 + digit
                digits += 1
                cursor += 1
            }
            guard cursor < limit, digits > 0 else { return nil }
            cursor += 1
            return negative ? -value : value
        }
        guard let entries = number(until: 0x20), let subtrees = number(until: 0x0a), subtrees >= 0 else { return false }
        let path: [UInt8] = prefix.map { $0.isEmpty ? name : $0 + [UInt8(ascii: "/")] + name } ?? name
        out += name
        out.append(0)
        if entries >= 0 && !invalid.contains(path) {
            guard cursor + 20 <= limit else { return false }
            out += Array("\(entries) \(subtrees)\n".utf8)
            out += bytes[cursor..<cursor + 20]
        } else {
            out += Array("-1 \(subtrees)\n".utf8)
        }
        if entries >= 0 { cursor += 20 }
        for _ in 0..<subtrees {
            guard rewriteTree(bytes, &cursor, limit: limit, prefix: path, invalid: invalid, into: &out) else {
                return false
            }
        }
        return true
    }
}
