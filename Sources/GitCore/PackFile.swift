import CFastCRC
import CGit2
import Glibc

/// A version-2 pack of whole (undeltified) objects and its version-2 index, built in memory and
/// installed into `objects/pack`.
///
/// libgit2's packbuilder searches deltas among every object and then re-reads the pack it wrote
/// through its indexer to build the index: for the 100,000 small blobs of a big import that was most
/// of the import's time and memory. Card files are small and compress well on their own, so the pack
/// here has no deltas (a later `git gc` may add them), and the index comes from what was written.
struct PackFile {
    private var pack: [UInt8] = []
    private var entries: [(id: git_oid, crc: UInt32, offset: Int)] = []

    /// Starts a pack; `expectedBytes` (the objects' total size) and the stored blocks' framing (~11
    /// bytes an object, 5 more every 64 KB) are reserved up front so the buffer never doubles, which
    /// would briefly hold it twice.
    init(expectedBytes: Int, objects: Int) {
        pack.reserveCapacity(12 + expectedBytes + expectedBytes / 2048 + 24 * objects + 20)
        entries.reserveCapacity(objects)
        // "PACK", version 2, object count (filled in by `install`).
        pack += Array("PACK".utf8) + [0, 0, 0, 2, 0, 0, 0, 0]
    }

    /// `ids` sorted, each once (the objects of a pack).
    static func sortedUnique(_ ids: [git_oid]) -> [git_oid] {
        sortedUnique(ids, by: { $0 })
    }

    /// `items` sorted by their ids, one of each id kept.
    static func sortedUnique<Item>(_ items: [Item], by id: (Item) -> git_oid) -> [Item] {
        let sorted = items.sorted { lhs, rhs in
            var left = id(lhs)
            var right = id(rhs)
            return git_oid_cmp(&left, &right) < 0
        }
        var unique: [Item] = []
        unique.reserveCapacity(sorted.count)
        for item in sorted {
            if let last = unique.last {
                var previous = id(last)
                var current = id(item)
                if git_oid_equal(&previous, &current) != 0 { continue }
            }
            unique.append(item)
        }
        return unique
    }

    /// Appends one object after its type-and-size header as a zlib stream of stored blocks (level 0,
    /// no compression). A folder tree is mostly random object ids and barely compresses, and a merge
    /// reads hundreds of them where they lie in the mapped pack (`PackReader.readTree`); a card blob
    /// then reads as a copy instead of being decoded (a 1000+1000 merge reads ~4,000 of them, `cards
    /// list` every one). What that trades: a deck's packs take ~30 % more room (31 MB instead of 24 MB
    /// for 100,000 cards) until `git gc` compresses them. libgit2's push compresses what it sends;
    /// git serving this repository itself (`git clone` of the deck's folder) sends them as they are.
    mutating func append(id: git_oid, type: git_object_t, data: UnsafeRawBufferPointer) {
        let offset = pack.count
        var size = data.count
        var byte = UInt8(truncatingIfNeeded: (Int(type.rawValue) << 4) | (size & 0x0F))
        size >>= 4
        while size > 0 {
            pack.append(byte | 0x80)
            byte = UInt8(truncatingIfNeeded: size & 0x7F)
            size >>= 7
        }
        pack.append(byte)
        appendStoredStream(data)
        let crc = pack.withUnsafeBufferPointer { buffer -> UInt32 in
            guard let base = buffer.baseAddress else { return 0 }
            return cards_crc32(0, base + offset, buffer.count - offset)
        }
        entries.append((id, crc, offset))
    }

    /// Appends an entry of another pack as it lies there (type-and-size header and zlib stream), with
    /// the CRC-32 its index records for those bytes: what `git repack` does with an object it can
    /// reuse. Only for a whole object: a delta's base is named by where it lay in its own pack.
    mutating func appendEntry(id: git_oid, packed: UnsafeRawBufferPointer, crc: UInt32) {
        entries.append((id, crc, pack.count))
        pack.append(contentsOf: packed)
    }

    /// Appends `data` as the zlib stream level 0 makes (header, stored blocks of at most 65,535
    /// bytes, Adler-32), written here: zlib's `compress2` set up a whole deflate state per object
    /// (~270 KB allocated and its pages faulted in), ~70 µs an object, most of packing a merge's
    /// 30 new trees.
    private mutating func appendStoredStream(_ data: UnsafeRawBufferPointer) {
        // CMF 0x78 (deflate, 32 KB window), FLG 0x01 (fastest level; the pair is a multiple of 31).
        pack += [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let final: UInt8 = offset + length == data.count ? 1 : 0
            let low = UInt8(truncatingIfNeeded: length)
            let high = UInt8(truncatingIfNeeded: length >> 8)
            pack += [final, low, high, ~low, ~high]
            pack.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[offset..<offset + length]))
            offset += length
        } while offset < data.count
        let checksum = UInt32(
            truncatingIfNeeded: adler32_z(1, data.baseAddress?.assumingMemoryBound(to: Bytef.self), data.count))
        pack += [
            UInt8(truncatingIfNeeded: checksum >> 24), UInt8(truncatingIfNeeded: checksum >> 16),
            UInt8(truncatingIfNeeded: checksum >> 8), UInt8(truncatingIfNeeded: checksum),
        ]
    }

    /// Finishes the pack and its index and moves both into `packFolder` as `pack-<checksum>.pack`
    /// and `.idx`, each flushed to disk before it is named (a torn index under its final name would
    /// break every read of the object database), then flushes the folder; returns the new pack's path
    /// without extension. `durable: false` (a deck whose writes are not flushed, `CARDS_FSYNC=0`)
    /// skips the three flushes. The renames happen under the pack folder's lock (`PackFolderLock`,
    /// taken here unless the caller passes the one it holds) and named in the marker
    /// (`PackInstallMarker`): killed between them, a pack would be left without its index, garbage
    /// to git, which the next command then removes.
    @discardableResult
    mutating func install(in packFolder: String, durable: Bool = true, holding heldLock: PackFolderLock? = nil)
        throws(GitError) -> String
    {
        let count = UInt32(entries.count)
        for shift in 0..<4 { pack[8 + shift] = UInt8(truncatingIfNeeded: count >> (24 - 8 * UInt32(shift))) }
        let packChecksum = pack.withUnsafeBytes { SHA1.digest($0) }
        pack += packChecksum
        let index = Self.index(entries, packChecksum: packChecksum)
        let name = packFolder + "/pack-" + ObjectID(bytes: packChecksum).hex
        let temporaryPack = try FileSync.writeTemporary(pack, in: packFolder, prefix: "tmp_cards_pack_", flush: durable)
        let temporaryIndex: String
        do {
            temporaryIndex = try FileSync.writeTemporary(
                index, in: packFolder, prefix: "tmp_cards_pack_", flush: durable)
        } catch {
            unlink(temporaryPack)
            throw error
        }
        func failure(_ what: String) -> GitError {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPack)
            unlink(temporaryIndex)
            return GitError(code: .other(-1), message: "\(what) \(name): \(reason)", function: "pack")
        }
        let lock: PackFolderLock
        do throws(GitError) {
            if let heldLock { lock = heldLock } else { lock = try PackFolderLock.acquire(packFolder: packFolder) }
        } catch {
            unlink(temporaryPack)
            unlink(temporaryIndex)
            throw error
        }
        let marker = PackInstallMarker(packFolder: packFolder)
        do {
            try marker.record([name])
        } catch {
            unlink(temporaryPack)
            unlink(temporaryIndex)
            throw error
        }
        guard rename(temporaryPack, name + ".pack") == 0 else {
            let error = failure("cannot move into place")  // before `clear` changes errno
            marker.clear()
            throw error
        }
        guard rename(temporaryIndex, name + ".idx") == 0 else {
            // The pack stays named in the marker: the next command removes it.
            throw failure("cannot move into place")
        }
        marker.clear()
        withExtendedLifetime(lock) {}
        guard durable else { return name }
        let flushed = FileSync.flush(path: packFolder)
        guard flushed == 0 else {
            throw GitError(
                code: .other(-1),
                message: "cannot flush \(packFolder) (the new pack's names): \(String(cString: strerror(flushed)))",
                function: "pack")
        }
        return name
    }

    /// The version-2 index: fan-out table, sorted ids, CRC-32s, offsets (large ones in a second
    /// table), the pack's checksum and the index's own.
    private static func index(_ unsorted: [(id: git_oid, crc: UInt32, offset: Int)], packChecksum: [UInt8]) -> [UInt8] {
        var entries = unsorted
        entries.sort { lhs, rhs in
            var left = lhs.id
            var right = rhs.id
            return git_oid_cmp(&left, &right) < 0
        }
        var out: [UInt8] = [0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2]
        out.reserveCapacity(8 + 1024 + entries.count * 28 + 40)
        func append32(_ value: UInt32) {
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        var fanout = [UInt32](repeating: 0, count: 256)
        for entry in entries { fanout[Int(entry.id.id.0)] += 1 }
        var running: UInt32 = 0
        for bucket in 0..<256 {
            running += fanout[bucket]
            append32(running)
        }
        for entry in entries {
            withUnsafeBytes(of: entry.id.id) { out.append(contentsOf: $0) }
        }
        for entry in entries { append32(entry.crc) }
        var large: [Int] = []
        for entry in entries {
            if entry.offset < 0x8000_0000 {
                append32(UInt32(entry.offset))
            } else {
                append32(0x8000_0000 | UInt32(large.count))
                large.append(entry.offset)
            }
        }
        for offset in large {
            append32(UInt32(truncatingIfNeeded: offset >> 32))
            append32(UInt32(truncatingIfNeeded: offset))
        }
        out += packChecksum
        out += out.withUnsafeBytes { SHA1.digest($0) }
        return out
    }
}
