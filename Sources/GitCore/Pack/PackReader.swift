import CFastCRC
import CGit2
import Glibc
import SystemCalls

/// Reads whole (undeltified) objects straight out of the packs in `objects/pack`, mapped into
/// memory once per operation, for the bulk reads of a merge (hundreds of ~27 KB card folders and
/// thousands of card blobs).
///
/// Through libgit2 each object is found again in each pack, inflated into a buffer of its own, checked
/// by zlib's Adler-32, hashed again (strict verification), then copied into a Swift array; here it is
/// inflated once, straight into the array, or (a tree stored uncompressed) used where it lies. What
/// stands in for zlib's check: the CRC-32 the pack index records for each entry, over the entry's
/// packed bytes (~6 µs for a 27 KB card folder). A blob or a commit is hashed instead (SHA-1 in
/// hardware, a fraction of a microsecond for a card) and refused unless it is the object asked for; a
/// tree is not hashed against its id (libgit2's strict check; git does not hash on read either) and has
/// to parse as a canonical tree (`RawTree`).
///
/// Anything this does not read (a loose object, a delta, a pack added since, a damaged entry, a
/// version-1 index) gives nil, and the caller reads it through libgit2, which reads or explains it.
/// Every offset read from a file is checked against the mapping first: a damaged pack gives nil,
/// never a trap. One reader is for one thread (and, like its repository, not for two at once);
/// `sibling()` gives another thread one that shares the mappings.
package final class PackReader {
    private let packs: MappedPacks
    /// On the heap: zlib keeps a pointer back to the stream and refuses one that moved.
    private let stream: UnsafeMutablePointer<z_stream>
    private var ready = false
    /// The pack the last object came from, asked first next time (objects of one commit sit together).
    private var lastPack = 0
    /// Counts the blobs read here in its `blobsRead`, as its own reads do.
    private weak var counting: Repository?

    /// Maps the packs (each with its index) in `objectsDirectory`/pack; blobs read are counted in
    /// `counting`'s `blobsRead` when given.
    package convenience init(objectsDirectory: String, counting: Repository? = nil) {
        self.init(packs: MappedPacks(folder: objectsDirectory + "pack"), counting: counting)
    }

    private init(packs: MappedPacks, counting: Repository?) {
        self.packs = packs
        self.counting = counting
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if ready { inflateEnd(stream) }
        stream.deallocate()
    }

    /// A reader over the same mappings, for another thread (every pack is mapped first).
    package func sibling() -> PackReader {
        // Mapped now, while one thread has them: mapping on first use changes the packs.
        for pack in packs.all { _ = pack.pack }
        return PackReader(packs: packs, counting: nil)
    }

    /// How many packs the reader has (their indexes mapped; a pack's data when first read).
    package var packCount: Int { packs.all.count }

    /// The content of blob `id` if it is stored whole in a mapped pack, at most `limit` bytes long,
    /// and hashes to `id`; nil otherwise.
    package func readBlob(_ id: ObjectID, limit: Int) -> [UInt8]? {
        let bytes = read(id, type: GIT_OBJECT_BLOB, limit: limit)
        if bytes != nil {
            blobsRead += 1
            counting?.blobsRead += 1
        }
        return bytes
    }

    /// The blobs this reader has read.
    package private(set) var blobsRead = 0
    /// The commits this reader has read (and hashed to their ids).
    package private(set) var commitsRead = 0

    /// Counts the blobs `sibling` read (on another thread, which no repository may count from) in
    /// this reader's repository.
    package func count(blobsReadBy sibling: PackReader) {
        counting?.blobsRead += sibling.blobsRead
    }

    /// The content of object `id` if it is stored whole in a mapped pack, is of `type` and at most
    /// `limit` bytes long, and (for a blob or a commit) hashes to `id`; nil otherwise.
    func read(_ id: ObjectID, type: git_object_t, limit: Int = PackReader.maximumObjectSize) -> [UInt8]? {
        guard let found = locate(id, type: type, limit: limit) else { return nil }
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: found.size) { buffer, initialized in
            if found.size == 0 {
                complete = isEmptyStream(found)
                return
            }
            guard let base = buffer.baseAddress else { return }
            let written = inflateInto(base, capacity: found.size, from: found.bytes, at: found.data, end: found.end)
            complete = written == found.size
            // Whatever was written is initialised; the array is dropped unless complete.
            initialized = complete ? found.size : 0
        }
        guard complete else { return nil }
        // A blob or a commit is checked against its id (which also covers its entry), anything else
        // against the CRC-32 its pack index records.
        if type == GIT_OBJECT_BLOB || type == GIT_OBJECT_COMMIT {
            guard bytes.withUnsafeBytes({ ObjectID.hardwareHash(of: $0, type: type) }) == id else { return nil }
            if type == GIT_OBJECT_COMMIT { commitsRead += 1 }
            return bytes
        }
        return entryIsIntact(found, dataLength: Int(stream.pointee.total_in)) ? bytes : nil
    }

    /// The content of tree `id` if it is stored whole in a mapped pack, without a copy when it is
    /// stored uncompressed in one block (a deck's own packs, `PackFile`): the bytes as they lie in the
    /// mapped pack, kept mapped by `owner`. Otherwise inflated into a buffer of its own; nil as `read`.
    func readTree(_ id: ObjectID) -> (bytes: UnsafeBufferPointer<UInt8>, owner: AnyObject)? {
        guard let found = locate(id, type: GIT_OBJECT_TREE, limit: PackReader.maximumObjectSize) else { return nil }
        let data = found.bytes
        // One final stored block: BFINAL 1, BTYPE 00 (then padding to the byte), LEN and its complement.
        if found.size > 0, found.end - found.data >= 5 + found.size, data[found.data] == 0x01,
            Int(data[found.data + 1]) | Int(data[found.data + 2]) << 8 == found.size,
            Int(data[found.data + 3]) | Int(data[found.data + 4]) << 8 == found.size ^ 0xFFFF,
            let base = data.baseAddress
        {
            guard entryIsIntact(found, dataLength: 5 + found.size) else { return nil }
            let start = (base + found.data + 5).assumingMemoryBound(to: UInt8.self)
            return (UnsafeBufferPointer(start: start, count: found.size), found.pack)
        }
        let owned = OwnedBytes(uninitializedCount: found.size)
        if found.size == 0 {
            return isEmptyStream(found) ? (UnsafeBufferPointer(owned.bytes), owned) : nil
        }
        guard let out = owned.bytes.baseAddress,
            inflateInto(out, capacity: found.size, from: data, at: found.data, end: found.end) == found.size,
            entryIsIntact(found, dataLength: Int(stream.pointee.total_in))
        else { return nil }
        return (UnsafeBufferPointer(owned.bytes), owned)
    }

    /// Where object `id` lies: its pack, where its raw deflate data starts (after the zlib header)
    /// and where the pack's objects end, and its size; nil unless it is stored whole as `type`, at
    /// most `limit` bytes, in a mapped pack. Readies the stream for `inflateInto`.
    private func locate(_ id: ObjectID, type: git_object_t, limit: Int) -> Located? {
        let count = packs.all.count
        guard count > 0 else { return nil }
        let key = id.raw
        for step in 0..<count {
            let index = (lastPack + step) % count
            guard let entry = packs.all[index].offset(of: key) else { continue }
            lastPack = index
            return header(in: packs.all[index], at: entry.offset, crc: entry.crc, type: type, limit: limit)
        }
        return nil
    }

    /// An object found in a mapped pack: where its entry starts, the CRC-32 the index records for the
    /// entry, where its raw deflate data starts (after the zlib header), where the pack's objects end,
    /// and its size.
    private struct Located {
        var pack: MappedPack
        /// The pack's mapped bytes.
        var bytes: UnsafeRawBufferPointer
        var offset: Int
        var crc: UInt32
        var data: Int
        var end: Int
        var size: Int
    }

    /// The largest object read here: a bigger size in a header is damage, never allocated (a card
    /// folder at 100,000 cards is ~27 KB; deflate cannot expand data more than ~1,032 times).
    static let maximumObjectSize = 1 << 28

    /// The object header at `offset` in `pack`, checked as `locate` says.
    private func header(in pack: MappedPack, at offset: Int, crc: UInt32, type: git_object_t, limit: Int)
        -> Located?
    {
        guard let data = pack.pack else { return nil }
        // The last 20 bytes are the pack's checksum, no object's.
        let end = data.count - 20
        guard offset >= 12, offset < end else { return nil }
        var position = offset
        var byte = data[position]
        position += 1
        guard Int32((byte >> 4) & 0x7) == type.rawValue else { return nil }
        var size = Int(byte & 0x0F)
        var shift = 4
        while byte & 0x80 != 0 {
            guard position < end, shift <= 56 else { return nil }
            byte = data[position]
            position += 1
            size |= Int(byte & 0x7F) << shift
            shift += 7
        }
        guard size >= 0, size <= limit, size <= PackReader.maximumObjectSize,
            size <= (end - position) * 1_032 + 64
        else { return nil }
        // The zlib header (deflate, no preset dictionary); the stream after it is inflated raw, which
        // leaves zlib's Adler-32 trailer unread.
        guard end - position >= 2 else { return nil }
        let method = data[position]
        let flags = data[position + 1]
        guard method & 0x0F == 8, method >> 4 <= 7, (Int(method) << 8 | Int(flags)) % 31 == 0, flags & 0x20 == 0
        else { return nil }
        position += 2
        if !ready {
            guard inflateInit2_(stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                return nil
            }
            ready = true
        } else if inflateReset(stream) != Z_OK {
            return nil
        }
        return Located(pack: pack, bytes: data, offset: offset, crc: crc, data: position, end: end, size: size)
    }

    /// Whether the packed entry of `found`, up to the end of its zlib stream (`dataLength` bytes of
    /// deflate data, then the 4-byte Adler-32), has the CRC-32 the index records: the check that
    /// stands in for zlib's own, which a raw inflate (and a tree used in place) skips.
    private func entryIsIntact(_ found: Located, dataLength: Int) -> Bool {
        let length = found.data - found.offset + dataLength + 4
        guard dataLength >= 0, found.offset + length <= found.end, let base = found.bytes.baseAddress else {
            return false
        }
        let start = (base + found.offset).assumingMemoryBound(to: UInt8.self)
        return cards_crc32(0, start, length) == found.crc
    }

    /// Whether an empty object's stream is a complete, empty one.
    private func isEmptyStream(_ found: Located) -> Bool {
        var sink: UInt8 = 0
        return found.size == 0
            && inflateInto(&sink, capacity: 0, from: found.bytes, at: found.data, end: found.end) == 0
            && entryIsIntact(found, dataLength: Int(stream.pointee.total_in))
    }

    /// Inflates the raw deflate stream at `position` into `out`; returns `capacity` when the stream
    /// ends exactly there (a stream longer than the header says fills `out` without ending), else -1.
    private func inflateInto(
        _ out: UnsafeMutablePointer<UInt8>, capacity: Int, from data: UnsafeRawBufferPointer, at position: Int,
        end: Int
    ) -> Int {
        guard let base = data.baseAddress else { return -1 }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self) + position)
        stream.pointee.avail_in = uInt(min(end - position, Int(UInt32.max)))
        stream.pointee.next_out = out
        stream.pointee.avail_out = uInt(capacity)
        guard inflate(stream, Z_FINISH) == Z_STREAM_END, stream.pointee.avail_out == 0 else { return -1 }
        return capacity
    }
}

/// The mapped packs of one folder, shared by the readers of one operation; unmapped with the last.
private final class MappedPacks {
    let all: [MappedPack]

    init(folder: String) {
        var packs: [MappedPack] = []
        for name in LockFiles.list(folder) where name.hasPrefix("pack-") && name.hasSuffix(".idx") {
            let stem = folder + "/" + name.dropLast(4)
            if let pack = MappedPack(index: stem + ".idx", pack: stem + ".pack") { packs.append(pack) }
        }
        // The biggest first: most objects of a deck sit in its import or its combined packs.
        all = packs.sorted { $0.objectCount > $1.objectCount }
    }
}
