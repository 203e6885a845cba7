import CFastCRC
import CGit2
import Glibc
import SystemCalls

/// A version-2 pack of whole (undeltified) objects and its version-2 index, described in memory and
/// installed into `objects/pack`.
///
/// libgit2's packbuilder searches deltas among every object and then re-reads the pack it wrote
/// through its indexer to build the index: for the 100,000 small blobs of a big import that was most
/// of the import's time and memory. Card files are small and compress well on their own, so the pack
/// here has no deltas (a later `git gc` may add them), and the index comes from what was written.
///
/// The pack is held as pieces: bytes of its own (the header, each entry's framing, objects copied
/// in) and the bodies of objects kept as the arrays they came in (`append(id:type:keeping:checksums:)`: a
/// merge's ~250 new 27 KB card folders at 100,000 cards), which go to the SHA-1 and to `writev` from
/// where they lie, never copied into one new 7 MB buffer (fresh memory is dear: its page faults and
/// the copy were ~5 ms of such a merge).
struct PackFile {
    /// One run of the pack's bytes.
    private enum Piece {
        /// Bytes of `own`.
        case own(Range<Int>)
        /// Bytes of `kept[index]`.
        case kept(index: Int, Range<Int>)
    }

    /// The pack's bytes that are not kept objects' bodies, in order.
    private var own: [UInt8] = []
    /// The kept objects' bodies.
    private var kept: [[UInt8]] = []
    /// The pack, in order.
    private var pieces: [Piece] = []
    /// The pack's length so far.
    private var length = 0
    private var entries: [(id: git_oid, crc: UInt32, offset: Int)] = []

    /// An entry's checksums: the zlib stream's Adler-32 of the object and the CRC-32 of the whole
    /// entry, which the pack index records.
    struct Checksums: Equatable {
        var adler: UInt32
        var crc: UInt32
    }

    /// Starts a pack; `expectedBytes` (the total size of the objects that will be copied in) and the
    /// stored blocks' framing (~11 bytes an object, 5 more every 64 KB) are reserved up front so the
    /// buffer never doubles, which would briefly hold it twice.
    init(expectedBytes: Int, objects: Int) {
        own.reserveCapacity(12 + expectedBytes + expectedBytes / 2048 + 24 * objects)
        entries.reserveCapacity(objects)
        // "PACK", version 2, object count (filled in by `install`).
        appendOwn(Array("PACK".utf8) + [0, 0, 0, 2, 0, 0, 0, 0])
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

    /// Appends one object, copied in, after its type-and-size header as a zlib stream of stored
    /// blocks (level 0, no compression). A folder tree is mostly random object ids and barely
    /// compresses, and a merge reads hundreds of them where they lie in the mapped pack
    /// (`PackReader.readTree`); a card blob then reads as a copy instead of being decoded (a
    /// 1000+1000 merge reads ~4,000 of them, `cards list` every one). What that trades: a deck's
    /// packs take ~30 % more room (31 MB instead of 24 MB for 100,000 cards) until `git gc`
    /// compresses them. libgit2's push compresses what it sends; git serving this repository itself
    /// (`git clone` of the deck's folder) sends them as they are.
    mutating func append(id: git_oid, type: git_object_t, data: UnsafeRawBufferPointer) {
        let checksums = Self.checksums(type: type, data: data)
        appendEntry(id: id, type: type, size: data.count, checksums: checksums) { pack, block in
            pack.appendOwn(UnsafeRawBufferPointer(rebasing: data[block]))
        }
    }

    /// Appends one object as `append(id:type:data:)` does, its body kept as the array it is (not
    /// copied) and written from there by `install`. `checksums` must be `PackFile.checksums` of the
    /// same type and bytes (worked out ahead, on whichever thread).
    mutating func append(id: git_oid, type: git_object_t, keeping body: [UInt8], checksums: Checksums) {
        // Worked out elsewhere, on other threads: a wrong CRC-32 would pass every read and `git
        // verify-pack` (only an index rebuilt from the pack shows it), so debug builds check it here.
        assert(checksums == body.withUnsafeBytes { Self.checksums(type: type, data: $0) }, "wrong checksums")
        let index = kept.count
        kept.append(body)
        appendEntry(id: id, type: type, size: body.count, checksums: checksums) { pack, block in
            pack.pieces.append(.kept(index: index, block))
            pack.length += block.count
        }
    }

    /// The checksums of the entry `append` makes of an object of `type` holding `data`.
    static func checksums(type: git_object_t, data: UnsafeRawBufferPointer) -> Checksums {
        let adler = UInt32(
            truncatingIfNeeded: adler32_z(1, data.baseAddress?.assumingMemoryBound(to: Bytef.self), data.count))
        var crc: UInt32 = 0
        func add(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            crc = cards_crc32(crc, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        (entryHeader(type: type, size: data.count) + zlibHeader).withUnsafeBytes { add($0) }
        forEachStoredBlock(count: data.count) { block, final in
            blockHeader(count: block.count, final: final).withUnsafeBytes { add($0) }
            add(UnsafeRawBufferPointer(rebasing: data[block]))
        }
        BigEndian.bytes(adler).withUnsafeBytes { add($0) }
        return Checksums(adler: adler, crc: crc)
    }

    /// Appends an entry of another pack as it lies there (type-and-size header and zlib stream), with
    /// the CRC-32 its index records for those bytes: what `git repack` does with an object it can
    /// reuse. Only for a whole object: a delta's base is named by where it lay in its own pack.
    mutating func appendEntry(id: git_oid, packed: UnsafeRawBufferPointer, crc: UInt32) {
        entries.append((id, crc, length))
        appendOwn(packed)
    }

    /// Appends an entry's framing around its body, which `body` appends block by block: the zlib
    /// stream level 0 makes (header, stored blocks of at most 65,535 bytes, Adler-32), written here:
    /// zlib's `compress2` set up a whole deflate state per object (~270 KB allocated and its pages
    /// faulted in), ~70 µs an object, most of packing a merge's 30 new trees.
    private mutating func appendEntry(
        id: git_oid, type: git_object_t, size: Int, checksums: Checksums, body: (inout PackFile, Range<Int>) -> Void
    ) {
        entries.append((id, checksums.crc, length))
        appendOwn(Self.entryHeader(type: type, size: size) + Self.zlibHeader)
        Self.forEachStoredBlock(count: size) { block, final in
            appendOwn(Self.blockHeader(count: block.count, final: final))
            body(&self, block)
        }
        appendOwn(BigEndian.bytes(checksums.adler))
    }

    /// The type-and-size header of a pack entry: type in bits 4–6 of the first byte, the size in
    /// its low 4 bits and then 7 bits a byte, least significant first.
    private static func entryHeader(type: git_object_t, size: Int) -> [UInt8] {
        var header: [UInt8] = []
        var size = size
        var byte = UInt8(truncatingIfNeeded: (Int(type.rawValue) << 4) | (size & 0x0F))
        size >>= 4
        while size > 0 {
            header.append(byte | 0x80)
            byte = UInt8(truncatingIfNeeded: size & 0x7F)
            size >>= 7
        }
        header.append(byte)
        return header
    }

    /// CMF 0x78 (deflate, 32 KB window), FLG 0x01 (fastest level; the pair is a multiple of 31).
    private static let zlibHeader: [UInt8] = [0x78, 0x01]

    /// The ranges of the stored blocks of `count` bytes (one empty block for none), and whether each
    /// is the last.
    private static func forEachStoredBlock(count: Int, _ body: (Range<Int>, Bool) -> Void) {
        var offset = 0
        repeat {
            let length = min(65_535, count - offset)
            body(offset..<offset + length, offset + length == count)
            offset += length
        } while offset < count
    }

    /// A stored block's header: BFINAL, then LEN and its complement, little-endian.
    private static func blockHeader(count: Int, final: Bool) -> [UInt8] {
        let low = UInt8(truncatingIfNeeded: count)
        let high = UInt8(truncatingIfNeeded: count >> 8)
        return [final ? 1 : 0, low, high, ~low, ~high]
    }

    private mutating func appendOwn(_ bytes: some Collection<UInt8>) {
        guard !bytes.isEmpty else { return }
        let start = own.count
        own.append(contentsOf: bytes)
        if case .own(let last) = pieces.last, last.upperBound == start {
            pieces[pieces.count - 1] = .own(last.lowerBound..<own.count)
        } else {
            pieces.append(.own(start..<own.count))
        }
        length += own.count - start
    }

    /// Calls `body` with the pack's bytes in order, as runs of `iovec`s: a run holds the pieces of at
    /// most one kept body (whose pointers are valid only during that call) with the own bytes before
    /// and after it up to the next kept body, so a merge's pack goes out in one `writev` a kept folder;
    /// the last run may be own bytes only. Stops at and returns the first nonzero result, else 0.
    private func forEachRun(_ body: (UnsafeMutableBufferPointer<iovec>) -> Int32) -> Int32 {
        own.withUnsafeBytes { own in
            var run: [iovec] = []
            var position = 0
            func vector(_ bytes: UnsafeRawBufferPointer) -> iovec {
                iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
            }
            while position < pieces.count {
                switch pieces[position] {
                case .own(let range):
                    run.append(vector(UnsafeRawBufferPointer(rebasing: own[range])))
                    position += 1
                case .kept(let index, _):
                    let result = kept[index].withUnsafeBytes { keptBytes -> Int32 in
                        // This body's pieces, and the own bytes between and after them (its blocks'
                        // headers, its Adler-32, the next entry's header).
                        while position < pieces.count {
                            if case .own(let range) = pieces[position] {
                                run.append(vector(UnsafeRawBufferPointer(rebasing: own[range])))
                            } else if case .kept(let other, let range) = pieces[position], other == index {
                                run.append(vector(UnsafeRawBufferPointer(rebasing: keptBytes[range])))
                            } else {
                                break
                            }
                            position += 1
                        }
                        let result = run.withUnsafeMutableBufferPointer { body($0) }
                        run.removeAll(keepingCapacity: true)
                        return result
                    }
                    if result != 0 { return result }
                }
            }
            return run.isEmpty ? 0 : run.withUnsafeMutableBufferPointer { body($0) }
        }
    }

    /// Finishes the pack and its index and moves both into `packFolder` as `pack-<checksum>.pack`
    /// and `.idx`, each flushed to disk before it is named (a torn index under its final name would
    /// break every read of the object database), then flushes the folder; returns the new pack's path
    /// without extension. `durable: false` (a deck whose writes are not flushed, `CARDS_FSYNC=0`)
    /// skips the three flushes. The renames happen under the pack folder's lock (`PackFolderLock`,
    /// taken here unless the caller passes the one it holds) and named in the marker
    /// (`PackInstallMarker`): killed between them, a pack would be left without its index, garbage
    /// to git, which the next command then removes.
    ///
    /// `keeping`: a `pack-<checksum>.keep` is made before the pack is named and handed back (`PackKeep`),
    /// for the caller to release once the ref that reaches the pack's objects is written: until then
    /// they are unreachable, and `git repack -a -d` running meanwhile would delete them. A name that was
    /// there before the `.keep` is not taken: the pack gets one of its own (`appendSalt`).
    @discardableResult
    mutating func install(
        in packFolder: String, durable: Bool = true, holding heldLock: PackFolderLock? = nil, keeping: Bool = false
    ) throws(GitError) -> (name: String, keep: PackKeep?) {
        var salts = 0
        while true {
            let installed = try installOnce(in: packFolder, durable: durable, holding: heldLock, keeping: keeping)
            guard let keep = installed.keep, !keep.keptSinceBeforeNaming else { return installed }
            // The pack's name was there before our `.keep` (the same objects packed by an attempt that
            // gave up, or by another writer): a `git repack` may have listed that file as not kept and
            // deletes it when it finishes, after our ref is written (MaintenanceRaceTests lost commits
            // so). A blob of its own gives this pack a name nobody can have listed.
            keep.release()
            salts += 1
            guard salts <= 3 else {
                throw GitError(
                    code: .damaged,
                    message: "cannot give a new pack a name of its own in \(packFolder): a pack of that name is "
                        + "there each time; run `git fsck` there",
                    function: "pack")
            }
            try appendSalt(salts)
        }
    }

    /// Appends a blob nobody else writes (this process, the time, `serial`): it changes the pack's
    /// checksum, and so its name. Reached by no ref, `git gc` drops it in time as any unreachable object.
    private mutating func appendSalt(_ serial: Int) throws(GitError) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let text =
            "cards: these objects were already in a pack of the same name, which git may have been removing; "
            + "this blob gives their new pack a name of its own (see PackKeep)\n"
            + "\(getpid()) \(now.tv_sec).\(now.tv_nsec) \(serial)\n"
        let bytes = Array(text.utf8)
        let id = try ObjectID.hash(of: bytes, type: GIT_OBJECT_BLOB)
        bytes.withUnsafeBytes { append(id: id.raw, type: GIT_OBJECT_BLOB, data: $0) }
    }

    /// `install` once, under the name the pack's bytes give it now; when a `.keep` cannot be made before
    /// that name exists, nothing is named and the `.keep` comes back for `install` to try another name.
    private mutating func installOnce(
        in packFolder: String, durable: Bool = true, holding heldLock: PackFolderLock? = nil, keeping: Bool = false
    ) throws(GitError) -> (name: String, keep: PackKeep?) {
        let count = UInt32(entries.count)
        own.replaceSubrange(8..<12, with: BigEndian.bytes(count))
        // The checksum hashed on a second thread while the same bytes are written (a merge's 7 MB
        // pack: ~3.5 ms of SHA-1); a small pack hashes in less time than a thread takes to start.
        let image = self
        let digest = BackgroundWork(onThread: length >= Background.worthAThread) { image.digest() }
        // Joined on every way out: the thread reads this pack's buffers.
        defer { _ = digest.wait() }
        var packChecksum: [UInt8] = []
        let prefix = Repository.ownPackTemporaryPrefix
        let temporaryPack = try FileSync.writeTemporary(in: packFolder, prefix: prefix, flush: durable) { fd in
            var failure = forEachRun { FileSync.writeAll(fd, $0) }
            // Only a head start for the flush that follows.
            if failure == 0 && durable { _ = FileSync.startWriteOut(fd) }
            packChecksum = digest.wait()
            if failure == 0 { failure = FileSync.writeAll(fd, packChecksum) }
            return failure
        }
        let index = Self.index(entries, packChecksum: packChecksum)
        let name = packFolder + "/pack-" + ObjectID(bytes: packChecksum).hex
        let temporaryIndex: String
        do {
            temporaryIndex = try FileSync.writeTemporary(
                index, in: packFolder, prefix: prefix, flush: durable)
        } catch {
            unlink(temporaryPack)
            throw error
        }
        func failure(_ what: String) -> GitError {
            let reason = SystemError.reason(errno)
            unlink(temporaryPack)
            unlink(temporaryIndex)
            return GitError(code: .damaged, message: "\(what) \(name): \(reason)", function: "pack")
        }
        let keep: PackKeep?
        let lock: PackFolderLock
        do throws(GitError) {
            // Before the pack is named: a repack that lists it then sees it kept.
            keep = keeping ? try PackKeep.create(base: name) : nil
            if let keep, !keep.keptSinceBeforeNaming {
                // Not named over a pack a repack may be deleting: `install` gives this one a name of its own.
                unlink(temporaryPack)
                unlink(temporaryIndex)
                return (name, keep)
            }
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
        guard durable else { return (name, keep) }
        let flushed = FileSync.flush(path: packFolder)
        guard flushed == 0 else {
            throw GitError(
                code: .system(flushed),
                message: "cannot flush \(packFolder) (the new pack's names): \(SystemError.reason(flushed))",
                function: "pack")
        }
        return (name, keep)
    }

    /// The SHA-1 of the pack's bytes (its trailing checksum).
    private func digest() -> [UInt8] {
        var hasher = SHA1.Hasher()
        _ = forEachRun { vectors in
            for vector in vectors {
                hasher.update(UnsafeRawBufferPointer(start: vector.iov_base, count: vector.iov_len))
            }
            return 0
        }
        return hasher.finalize()
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
        func append32(_ value: UInt32) { out += BigEndian.bytes(value) }
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
