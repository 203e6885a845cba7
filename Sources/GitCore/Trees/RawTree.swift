import Glibc

/// A tree object's bytes with its entries located in place, for walks and rewrites that compare and
/// copy entries without building a libgit2 object or a Swift value per entry.
///
/// Only a tree in git's canonical form parses: each mode one of git's five spellings, names neither
/// empty nor holding a slash, entries strictly in git's order, no name twice. Anything else (an old
/// tree with `100664`, a hand-made or hostile one) gives nil, and the caller takes libgit2's path,
/// which has its own rules for such trees; so both paths agree on every tree this one accepts.
struct RawTree: @unchecked Sendable {
    /// One entry: where its name lies in `bytes` (its id follows the name's NUL) and its mode.
    /// 16 bytes: the walk of a big merge keeps ~800 folders of ~400 entries each.
    struct Entry: Sendable {
        private let startOffset: UInt32
        private let nameStartOffset: UInt32
        private let nameEndOffset: UInt32
        let mode: UInt32

        /// An entry of a tree of less than 4 GB (`RawTree(canonical:)` refuses bigger ones).
        init(start: Int, nameStart: Int, nameEnd: Int, mode: UInt32) {
            startOffset = UInt32(truncatingIfNeeded: start)
            nameStartOffset = UInt32(truncatingIfNeeded: nameStart)
            nameEndOffset = UInt32(truncatingIfNeeded: nameEnd)
            self.mode = mode
        }

        /// Where the entry (its mode) starts.
        var start: Int { Int(startOffset) }
        var nameStart: Int { Int(nameStartOffset) }
        var nameEnd: Int { Int(nameEndOffset) }

        /// Where the 20-byte id starts.
        var idStart: Int { nameEnd + 1 }
        /// Where the next entry starts.
        var end: Int { nameEnd + 21 }
        var isTree: Bool { mode == RawTree.treeMode }

        /// The same entry in a tree whose bytes lie `shift` bytes further on.
        func moved(by shift: Int) -> Entry {
            Entry(start: start + shift, nameStart: nameStart + shift, nameEnd: nameEnd + shift, mode: mode)
        }
    }

    static let treeMode: UInt32 = 0o40000
    static let blobMode: UInt32 = 0o100644
    static let executableMode: UInt32 = 0o100755
    static let linkMode: UInt32 = 0o120000
    static let submoduleMode: UInt32 = 0o160000

    /// The object's content (no "tree <size>" header), in memory that `owner` keeps: a stretch of a
    /// mapped pack (a tree stored uncompressed is used where it lies, `PackReader.readTree`) or a
    /// buffer of its own. Never written, so a tree is shared between threads as it is.
    let bytes: UnsafeBufferPointer<UInt8>
    /// Keeps `bytes` alive.
    private let owner: AnyObject?
    /// The entries, in the tree's (git's) order.
    let entries: [Entry]

    /// The tree with no entries.
    static let empty = RawTree(bytes: UnsafeBufferPointer(start: nil, count: 0), owner: nil, entries: [])

    private init(bytes: UnsafeBufferPointer<UInt8>, owner: AnyObject?, entries: [Entry]) {
        self.bytes = bytes
        self.owner = owner
        self.entries = entries
    }

    /// Parses a copy of `bytes`; nil when the tree is not in canonical form (see the type's summary).
    init?(canonical bytes: [UInt8]) {
        let copy = OwnedBytes(bytes)
        self.init(canonical: UnsafeBufferPointer(copy.bytes), owner: copy)
    }

    /// How many entries at the end are the same bytes in every tree of `trees`, at the same distance
    /// from the end: found by comparing the bytes whole, then counting the entries that lie within
    /// what is alike. (A walk steps over the alike entries at the start itself, `alikeEntries`.)
    static func commonTail(_ trees: [RawTree]) -> Int {
        guard let first = trees.first, trees.count > 1 else { return 0 }
        var suffix = first.bytes.count
        let left = UnsafeRawBufferPointer(first.bytes)
        for tree in trees.dropFirst() {
            suffix = min(suffix, commonSuffix(left, UnsafeRawBufferPointer(tree.bytes), limit: suffix))
        }
        // From the end, an entry counts when it starts at the same distance from the end in every tree.
        var tail = 0
        while first.entries.count - tail > 0 {
            let distance = first.bytes.count - first.entries[first.entries.count - 1 - tail].start
            guard distance <= suffix else { break }
            let alike = trees.dropFirst().allSatisfy { tree in
                tree.entries.count - tail > 0
                    && tree.bytes.count - tree.entries[tree.entries.count - 1 - tail].start == distance
            }
            guard alike else { break }
            tail += 1
        }
        return tail
    }

    /// Bytes compared by one `memcmp` before the 8-byte loop looks for the first difference.
    static let comparedBlock = 256

    /// The length of the common start of `left` and `right`, at most `limit`: whole blocks compared
    /// by `memcmp` (vectorised; a merge compares ~14 MB of card folders), then the block that differs
    /// 8 bytes at a time (memcmp gives only the order, and halving down to the first difference with
    /// it read the same bytes several times over).
    static func commonPrefix(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer, limit: Int) -> Int {
        let count = min(limit, left.count, right.count)
        guard count > 0, let a = left.baseAddress, let b = right.baseAddress else { return 0 }
        var offset = 0
        while offset + comparedBlock <= count && memcmp(a + offset, b + offset, comparedBlock) == 0 {
            offset += comparedBlock
        }
        while offset + 8 <= count {
            // Read as little-endian numbers: the first differing byte holds the lowest set bit.
            let difference =
                UInt64(littleEndian: a.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                ^ UInt64(littleEndian: b.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            if difference != 0 { return offset + difference.trailingZeroBitCount / 8 }
            offset += 8
        }
        while offset < count && left[offset] == right[offset] { offset += 1 }
        return offset
    }

    /// The length of the common end of `left` and `right`, at most `limit`, found as `commonPrefix`.
    static func commonSuffix(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer, limit: Int) -> Int {
        let count = min(limit, left.count, right.count)
        guard count > 0, let a = left.baseAddress, let b = right.baseAddress else { return 0 }
        let leftEnd = left.count
        let rightEnd = right.count
        var length = 0
        while length + comparedBlock <= count
            && memcmp(a + leftEnd - length - comparedBlock, b + rightEnd - length - comparedBlock, comparedBlock) == 0
        {
            length += comparedBlock
        }
        while length + 8 <= count {
            // Read as little-endian numbers: the last differing byte holds the highest set bit.
            let difference =
                UInt64(littleEndian: a.loadUnaligned(fromByteOffset: leftEnd - length - 8, as: UInt64.self))
                ^ UInt64(littleEndian: b.loadUnaligned(fromByteOffset: rightEnd - length - 8, as: UInt64.self))
            if difference != 0 { return length + difference.leadingZeroBitCount / 8 }
            length += 8
        }
        while length < count && left[leftEnd - 1 - length] == right[rightEnd - 1 - length] { length += 1 }
        return length
    }

    /// Parses `bytes` in place (kept alive by `owner`); nil when the tree is not in canonical form
    /// (see the type's summary).
    ///
    /// With a `sibling` (another version of the same folder, read just before), the entries lying in
    /// the bytes the two have alike at their start and at their end are taken from the sibling's
    /// instead of parsed again: the versions of a folder a merge reads differ in a few of ~400 entries.
    /// Alike bytes from an entry's start to the end of the tree parse alike, so the result is the one
    /// a parse of every entry gives (`RawTreeParseTests` checks it on random and damaged versions).
    init?(canonical bytes: UnsafeBufferPointer<UInt8>, owner: AnyObject, like sibling: RawTree? = nil) {
        // Offsets are kept in 32 bits; no real tree comes near.
        guard bytes.count < Int(UInt32.max), let entries = RawTree.parseEntries(bytes, like: sibling) else {
            return nil
        }
        // Strict order leaves one case: a file and a folder of the same name ("a" and "a/" sort apart).
        let hasTree = entries.contains { $0.isTree }
        if hasTree && entries.contains(where: { !$0.isTree }) {
            var folders = Set<[UInt8]>()
            for entry in entries where entry.isTree { folders.insert(Array(bytes[entry.nameStart..<entry.nameEnd])) }
            for entry in entries where !entry.isTree && folders.contains(Array(bytes[entry.nameStart..<entry.nameEnd]))
            {
                return nil
            }
        }
        self.bytes = bytes
        self.owner = owner
        self.entries = entries
    }

    /// The entries of `bytes` in strict order, or nil when an entry is malformed or out of order; the
    /// stretches alike with `sibling`'s bytes at the start and at the end taken from its entries.
    private static func parseEntries(_ buffer: UnsafeBufferPointer<UInt8>, like sibling: RawTree?) -> [Entry]? {
        guard let base = buffer.baseAddress else { return [] }
        var entries: [Entry] = []
        // A card folder's entries are ~69 bytes each: one allocation, not a dozen doublings.
        entries.reserveCapacity(buffer.count / 60 + 1)
        var position = 0
        // How many bytes at the end are alike with the sibling's (0: none to take).
        var suffix = 0
        if let sibling, !sibling.entries.isEmpty {
            let mine = UnsafeRawBufferPointer(buffer)
            let theirs = UnsafeRawBufferPointer(sibling.bytes)
            let prefix = commonPrefix(mine, theirs, limit: min(buffer.count, sibling.bytes.count))
            // Never counted twice: what the start took is not the end's.
            suffix = commonSuffix(mine, theirs, limit: min(buffer.count, sibling.bytes.count) - prefix)
            let head = sibling.firstEntry(endingAfter: prefix, in: sibling.entries.indices)
            entries.append(contentsOf: sibling.entries[..<head])
            position = head > 0 ? sibling.entries[head - 1].end : 0
        }
        while position < buffer.count {
            if let sibling, suffix > 0, buffer.count - position <= suffix,
                let first = sibling.entryStarting(at: sibling.bytes.count - (buffer.count - position))
            {
                // The rest is the sibling's last entries byte for byte: theirs, moved by the difference in size.
                let shift = buffer.count - sibling.bytes.count
                let moved = sibling.entries[first].moved(by: shift)
                if let previous = entries.last, RawTree.order(base, previous, base, moved) >= 0 { return nil }
                for entry in sibling.entries[first...] { entries.append(entry.moved(by: shift)) }
                return entries
            }
            if let entry = RawTree.commonFileEntry(base, count: buffer.count, at: position) {
                if let previous = entries.last, RawTree.order(base, previous, base, entry) >= 0 { return nil }
                entries.append(entry)
                position = entry.end
                continue
            }
            guard let (mode, nameStart) = RawTree.parseMode(buffer, at: position) else { return nil }
            guard let nul = memchr(base + nameStart, 0, buffer.count - nameStart) else { return nil }
            let nameEnd = base.distance(to: nul.assumingMemoryBound(to: UInt8.self))
            guard nameEnd > nameStart, nameEnd + 21 <= buffer.count,
                memchr(base + nameStart, Int32(UInt8(ascii: "/")), nameEnd - nameStart) == nil
            else { return nil }
            let entry = Entry(start: position, nameStart: nameStart, nameEnd: nameEnd, mode: mode)
            if let previous = entries.last, RawTree.order(base, previous, base, entry) >= 0 { return nil }
            entries.append(entry)
            position = entry.end
        }
        return entries
    }

    /// `"100644 "` as the low seven bytes of a little-endian word.
    private static let fileModeWord: UInt64 = 0x20_34_34_36_30_30_31
    /// The name length the fast parse looks for first: 41 bytes, a UUID and `.json`, as nearly every
    /// entry of a deck's folders is named (CardStore's card files). Only a guess of what is common: a
    /// tree of other names parses the general way, to the same entries.
    private static let commonNameLength = 41

    /// The entry at `position` when it has the common shape: mode `100644`, a `commonNameLength`-byte
    /// name holding neither NUL nor "/", then its NUL and 20-byte id. nil for any other shape, which
    /// the general parse then reads (to the same result for this shape: the mode is one of git's five
    /// spellings, the name ends at its first NUL and holds no "/"). The general parse (two `memchr`
    /// calls and a digit loop per entry) was a fifth of a merge's instructions.
    @inline(__always)
    private static func commonFileEntry(_ base: UnsafePointer<UInt8>, count: Int, at position: Int) -> Entry? {
        let nameStart = position + 7
        let nameEnd = nameStart + commonNameLength
        guard nameEnd + 21 <= count, base[nameEnd] == 0 else { return nil }
        let raw = UnsafeRawPointer(base)
        let head = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        guard head & 0x00FF_FFFF_FFFF_FFFF == fileModeWord else { return nil }
        // Five words and one byte cover the name: none may hold a zero byte or a "/".
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let slashes: UInt64 = 0x2F2F_2F2F_2F2F_2F2F
        var flagged: UInt64 = 0
        for word in 0..<5 {
            let value = raw.loadUnaligned(fromByteOffset: nameStart + word * 8, as: UInt64.self)
            let slash = value ^ slashes
            flagged |= ((value &- ones) & ~value & highs) | ((slash &- ones) & ~slash & highs)
        }
        let last = base[nameEnd - 1]
        guard flagged == 0, last != 0, last != UInt8(ascii: "/") else { return nil }
        return Entry(start: position, nameStart: nameStart, nameEnd: nameEnd, mode: blobMode)
    }

    /// The first entry of `range` that ends after byte `limit` (`range.upperBound` when none does):
    /// the entries before it lie within the first `limit` bytes.
    private func firstEntry(endingAfter limit: Int, in range: Range<Int>) -> Int {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].end <= limit { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index of the entry that starts at byte `offset`, if one does.
    private func entryStarting(at offset: Int) -> Int? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            let start = entries[middle].start
            if start == offset { return middle }
            if start < offset { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// How many entries from `positions` on (before `ends`) are the same bytes in every tree of
    /// `trees`: the bytes compared whole (memcmp), then the entries counted that lie within what is
    /// alike. 0 when the first entries differ.
    static func alikeEntries(_ trees: [RawTree], from positions: [Int], before ends: [Int]) -> Int {
        guard let first = trees.first, positions[0] < ends[0], let firstBase = first.bytes.baseAddress else { return 0 }
        let start = first.entries[positions[0]].start
        var alike = first.entries[ends[0] - 1].end - start
        for index in trees.indices.dropFirst() {
            let tree = trees[index]
            guard positions[index] < ends[index], let base = tree.bytes.baseAddress else { return 0 }
            let otherStart = tree.entries[positions[index]].start
            let available = tree.entries[ends[index] - 1].end - otherStart
            alike = commonPrefix(
                UnsafeRawBufferPointer(start: firstBase + start, count: alike),
                UnsafeRawBufferPointer(start: base + otherStart, count: available), limit: min(alike, available))
            if alike == 0 { return 0 }
        }
        // Alike bytes from entry starts parse alike: count the first tree's entries ending within them.
        var count = first.firstEntry(endingAfter: start + alike, in: positions[0]..<ends[0]) - positions[0]
        for index in trees.indices { count = min(count, ends[index] - positions[index]) }
        return count
    }

    /// The mode at `position` and where the name starts after its space; nil unless it is one of
    /// git's five spellings ("100644", "100755", "120000", "160000", "40000").
    private static func parseMode(_ buffer: UnsafeBufferPointer<UInt8>, at position: Int) -> (UInt32, Int)? {
        var value: UInt32 = 0
        var index = position
        while index < buffer.count && index - position < 7 {
            let byte = buffer[index]
            if byte == UInt8(ascii: " ") { break }
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "7") else { return nil }
            value = value << 3 | UInt32(byte - UInt8(ascii: "0"))
            index += 1
        }
        guard index < buffer.count, buffer[index] == UInt8(ascii: " ") else { return nil }
        let digits = index - position
        switch value {
        case treeMode: guard digits == 5 else { return nil }
        case blobMode, executableMode, linkMode, submoduleMode: guard digits == 6 else { return nil }
        default: return nil
        }
        return (value, index + 1)
    }

    /// git's order of two entries (of the same or different trees): names byte by byte, a folder's
    /// name as if it ended with "/". Names hold no "/" and no NUL (checked when parsed).
    static func order(_ left: UnsafeBufferPointer<UInt8>, _ a: Entry, _ right: UnsafeBufferPointer<UInt8>, _ b: Entry)
        -> Int
    {
        guard let x = left.baseAddress, let y = right.baseAddress else { return 0 }
        return order(x, a, y, b)
    }

    /// `order` on the trees' bytes in place.
    static func order(_ left: UnsafePointer<UInt8>, _ a: Entry, _ right: UnsafePointer<UInt8>, _ b: Entry) -> Int {
        let leftCount = a.nameEnd - a.nameStart
        let rightCount = b.nameEnd - b.nameStart
        let common = min(leftCount, rightCount)
        // The first 8 bytes as one big-endian number: names in a card folder differ within them, and
        // this runs for every entry of every folder a merge reads (a memcmp call each took longer).
        if common >= 8 {
            let x = UnsafeRawPointer(left + a.nameStart).loadUnaligned(as: UInt64.self).bigEndian
            let y = UnsafeRawPointer(right + b.nameStart).loadUnaligned(as: UInt64.self).bigEndian
            if x != y { return x < y ? -1 : 1 }
        }
        let compared = memcmp(left + a.nameStart, right + b.nameStart, common)
        if compared != 0 { return compared < 0 ? -1 : 1 }
        let x: UInt8 = leftCount > common ? left[a.nameStart + common] : (a.isTree ? 0x2f : 0)
        let y: UInt8 = rightCount > common ? right[b.nameStart + common] : (b.isTree ? 0x2f : 0)
        if x != y { return x < y ? -1 : 1 }
        // Same name and kind; or one name ends where the other has "/" (never in a parsed tree).
        return leftCount == rightCount ? 0 : (leftCount < rightCount ? -1 : 1)
    }

    /// The entry named `name` that is a folder (`isTree`) or not, found by bisection.
    func find(_ name: [UInt8], isTree: Bool) -> Entry? {
        name.withUnsafeBufferPointer { probeBuffer in
            guard let probe = probeBuffer.baseAddress, let tree = bytes.baseAddress else { return nil }
            let key = Entry(
                start: 0, nameStart: 0, nameEnd: name.count, mode: isTree ? RawTree.treeMode : RawTree.blobMode)
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                let compared = RawTree.order(tree, entries[middle], probe, key)
                if compared == 0 { return entries[middle] }
                if compared < 0 { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    /// Whether two entries point to the same object in the same mode (as git compares them: an
    /// executable bit set or cleared is a change).
    static func sameTarget(_ left: RawTree, _ a: Entry, _ right: RawTree, _ b: Entry) -> Bool {
        guard a.mode == b.mode else { return false }
        guard let x = left.bytes.baseAddress, let y = right.bytes.baseAddress else { return false }
        return memcmp(x + a.idStart, y + b.idStart, 20) == 0
    }

    /// The entry's name.
    func name(_ entry: Entry) -> String {
        String(decoding: bytes[entry.nameStart..<entry.nameEnd], as: UTF8.self)
    }

    /// The entry's id.
    func id(_ entry: Entry) -> ObjectID {
        // `RawTree(canonical:)` checked that every entry's 20 bytes lie within the tree.
        bytes.baseAddress.map { ObjectID(pointer: $0 + entry.idStart) } ?? ObjectID.zero
    }

    /// `prefix` and the entry's name as one path (and a "/" after it for a `folder`), copied from their
    /// bytes once: `prefix + name` made a string for each step.
    func path(_ prefix: String, _ entry: Entry, folder: Bool = false) -> String {
        var prefix = prefix
        let nameCount = entry.nameEnd - entry.nameStart
        return prefix.withUTF8 { head in
            String(unsafeUninitializedCapacity: head.count + nameCount + (folder ? 1 : 0)) { buffer in
                guard let target = buffer.baseAddress, let source = bytes.baseAddress else { return 0 }
                if let start = head.baseAddress { target.update(from: start, count: head.count) }
                (target + head.count).update(from: source + entry.nameStart, count: nameCount)
                if folder { target[head.count + nameCount] = UInt8(ascii: "/") }
                return head.count + nameCount + (folder ? 1 : 0)
            }
        }
    }

    /// The entry as a `TreeEntry` value named `name` (its own name, made once for the versions of one path).
    func treeEntry(_ entry: Entry, named name: String) -> TreeEntry {
        TreeEntry(name: name, id: id(entry), kind: RawTree.kind(entry.mode), mode: entry.mode)
    }

    /// The kind a canonical entry's mode gives, as libgit2 reports it.
    static func kind(_ mode: UInt32) -> TreeEntry.Kind {
        switch mode {
        case RawTree.blobMode, RawTree.executableMode: return .blob
        case RawTree.linkMode: return .symlink
        case RawTree.treeMode: return .tree
        default: return .submodule
        }
    }

    /// The entry as a `TreeEntry` value (what libgit2 reports for a canonical entry).
    func treeEntry(_ entry: Entry) -> TreeEntry {
        treeEntry(entry, named: name(entry))
    }
}

/// A buffer of bytes of its own, freed with the last tree that uses it.
final class OwnedBytes {
    private let storage: UnsafeMutableBufferPointer<UInt8>
    /// The bytes (as many as asked for; the allocation is never empty).
    let bytes: UnsafeMutableBufferPointer<UInt8>

    /// A copy of `source`.
    convenience init(_ source: [UInt8]) {
        self.init(uninitializedCount: source.count)
        _ = bytes.initialize(from: source)
    }

    /// `count` bytes to fill in (the caller initialises them all before any is read).
    init(uninitializedCount count: Int) {
        storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(count, 1))
        bytes = UnsafeMutableBufferPointer(rebasing: storage[0..<count])
    }

    deinit {
        storage.deallocate()
    }
}
