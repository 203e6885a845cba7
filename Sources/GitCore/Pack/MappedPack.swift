import CGit2
import Glibc

/// One pack and its version-2 index, mapped read-only: the index when opened, the pack on first use.
///
/// A one-card commit looks up three trees among a deck's up to 17 packs; mapping every pack (a 31 MB
/// import among them) and unmapping it again cost more than the lookups. Mapping on first use
/// changes the object: a reader shared between threads has every pack mapped first
/// (`PackReader.sibling()`).
final class MappedPack {
    let index: UnsafeRawBufferPointer
    /// Whether the index reads as a version-2 one long enough for its object count.
    let isValidIndex: Bool
    /// The objects the index lists (0 when it is not valid).
    let objectCount: Int
    private let packPath: String
    /// Nil until first use; then the mapping, or nil when the pack could not be mapped (gone since,
    /// unreadable, not a pack).
    private var packMapping: UnsafeRawBufferPointer??

    /// Nil when the index is missing or unreadable (or empty); an index that is not version 2, or too
    /// short for the object count it states, lists nothing (`objectCount` 0).
    init?(index indexPath: String, pack packPath: String) {
        guard let index = MappedPack.map(indexPath) else { return nil }
        self.index = index
        self.packPath = packPath
        let header = 8 + 256 * 4
        var valid = index.count >= header + 40
        if valid {
            valid =
                index[0] == 0xFF && index[1] == 0x74 && index[2] == 0x4F && index[3] == 0x63
                && BigEndian.read32(index, at: 4) == 2
        }
        let count = valid ? Int(BigEndian.read32(index, at: header - 4)) : 0
        // Names, CRCs and 32-bit offsets, then the two checksums (the 64-bit offsets checked on use).
        if valid && index.count < header + count * 28 + 40 { valid = false }
        isValidIndex = valid
        objectCount = valid ? count : 0
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: index.baseAddress), index.count)
        if case .some(.some(let pack)) = packMapping {
            munmap(UnsafeMutableRawPointer(mutating: pack.baseAddress), pack.count)
        }
    }

    /// The pack's bytes, mapped on first use; nil when the file cannot be mapped or is not a pack
    /// (its "PACK" signature, and room for a header and a checksum).
    var pack: UnsafeRawBufferPointer? {
        if let packMapping { return packMapping }
        var mapped = MappedPack.map(packPath)
        if let pack = mapped,
            pack.count < 32 || pack[0] != 0x50 || pack[1] != 0x41 || pack[2] != 0x43 || pack[3] != 0x4B
        {
            munmap(UnsafeMutableRawPointer(mutating: pack.baseAddress), pack.count)
            mapped = nil
        }
        packMapping = .some(mapped)
        return mapped
    }

    /// The offset in the pack of object `id` and the CRC-32 the index records for its packed bytes,
    /// or nil when the index does not list it.
    func offset(of id: git_oid) -> (offset: Int, crc: UInt32)? {
        guard objectCount > 0, let base = index.baseAddress else { return nil }
        var key = id
        return withUnsafeBytes(of: &key.id) { raw -> (offset: Int, crc: UInt32)? in
            guard let keyBase = raw.baseAddress else { return nil }
            let first = Int(raw[0])
            let fanout = 8
            var low = first == 0 ? 0 : Int(BigEndian.read32(index, at: fanout + (first - 1) * 4))
            var high = Int(BigEndian.read32(index, at: fanout + first * 4))
            guard low <= high, high <= objectCount else { return nil }
            let names = fanout + 256 * 4
            // The first 8 bytes as one big-endian number: they settle almost every step, and a memcmp
            // call per step was most of a lookup (a merge looks up thousands of objects, pack by pack).
            let keyHead = keyBase.loadUnaligned(as: UInt64.self).bigEndian
            while low < high {
                let middle = (low + high) / 2
                let name = base + names + middle * 20
                let head = name.loadUnaligned(as: UInt64.self).bigEndian
                let order = head != keyHead ? (head < keyHead ? -1 : 1) : memcmp(name, keyBase, 20)
                if order == 0 {
                    let crc = BigEndian.read32(index, at: names + objectCount * 20 + middle * 4)
                    return entryOffset(middle).map { ($0, crc) }
                }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    private func entryOffset(_ position: Int) -> Int? {
        let offsets = 8 + 256 * 4 + objectCount * 24
        let small = BigEndian.read32(index, at: offsets + position * 4)
        guard small & 0x8000_0000 != 0 else { return Int(small) }
        let large = offsets + objectCount * 4 + Int(small & 0x7FFF_FFFF) * 8
        guard large + 8 <= index.count - 40 else { return nil }
        let value =
            UInt64(BigEndian.read32(index, at: large)) << 32
            | UInt64(BigEndian.read32(index, at: large + 4))
        guard let pack else { return nil }
        return value < UInt64(pack.count) ? Int(value) : nil
    }

    /// An object the index lists: its id, its entry's bytes in the pack (type-and-size header and
    /// zlib stream; valid while this pack lives) and the CRC-32 the index records for them.
    struct ListedEntry {
        let id: git_oid
        let packed: UnsafeRawBufferPointer
        let crc: UInt32
    }

    /// Every object the index lists, in the index's order (by id), its entry ending where the next one
    /// in the pack begins (or at the pack's checksum). Nil when the pack cannot be mapped, or the index
    /// is damaged: its checksum, names out of order, an offset out of the pack, two entries at one place.
    func listedEntries() -> [ListedEntry]? {
        guard objectCount > 0 else { return [] }
        guard let pack else { return nil }
        // The names are trusted from here on (an entry is copied under the id listed for it, and its
        // CRC-32 covers only its bytes): the index must hash to its own checksum, names strictly
        // ascending. A lookup (`offset(of:)`) needs neither: what it finds is checked against the id.
        guard let base = index.baseAddress,
            SHA1.digest(UnsafeRawBufferPointer(start: base, count: index.count - 20)).elementsEqual(index.suffix(20))
        else { return nil }
        let names = 8 + 256 * 4
        for position in 1..<objectCount {
            let name = base + names + position * 20
            if memcmp(name - 20, name, 20) >= 0 { return nil }
        }
        var starts: [Int] = []
        starts.reserveCapacity(objectCount)
        for position in 0..<objectCount {
            guard let start = entryOffset(position), start >= 12, start < pack.count - 20 else { return nil }
            starts.append(start)
        }
        // An entry ends where the next one in the pack begins.
        let sorted = starts.sorted()
        for index in sorted.indices.dropFirst() where sorted[index] == sorted[index - 1] { return nil }
        var listed: [ListedEntry] = []
        listed.reserveCapacity(objectCount)
        for position in 0..<objectCount {
            var id = git_oid()
            withUnsafeMutableBytes(of: &id.id) { raw in
                raw.copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: index[names + position * 20..<names + position * 20 + 20]))
            }
            let start = starts[position]
            var low = 0
            var high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] <= start { low = middle + 1 } else { high = middle }
            }
            let end = low < sorted.count ? sorted[low] : pack.count - 20
            let crc = BigEndian.read32(index, at: names + objectCount * 20 + position * 4)
            listed.append(ListedEntry(id: id, packed: UnsafeRawBufferPointer(rebasing: pack[start..<end]), crc: crc))
        }
        return listed
    }

    /// The whole file at `path`, mapped read-only (private: a pack is never written in place).
    private static func map(_ path: String) -> UnsafeRawBufferPointer? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else { return nil }
        let size = Int(status.st_size)
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else { return nil }
        return UnsafeRawBufferPointer(start: mapped, count: size)
    }
}
