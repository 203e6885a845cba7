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

    /// Starts a pack; `expectedBytes` (the objects' total size, an upper bound for what they take
    /// compressed) is reserved up front so the buffer never doubles, which would briefly hold it twice.
    init(expectedBytes: Int, objects: Int) {
        pack.reserveCapacity(12 + expectedBytes + expectedBytes / 2048 + 24 * objects + 20)
        entries.reserveCapacity(objects)
        // "PACK", version 2, object count (filled in by `install`).
        pack += Array("PACK".utf8) + [0, 0, 0, 2, 0, 0, 0, 0]
    }

    /// Number of objects appended so far.
    var count: Int { entries.count }

    /// Appends one object, zlib-compressed, after its type-and-size header. Trees are stored (zlib
    /// level 0): a folder tree is mostly random object ids and barely compresses, and a merge reads
    /// hundreds of them, each inflated in a copy instead of decoded.
    mutating func append(id: git_oid, type: git_object_t, data: UnsafeRawBufferPointer) throws(GitError) {
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
        var compressedSize = compressBound(uLong(data.count))
        let start = pack.count
        pack.append(contentsOf: repeatElement(0, count: Int(compressedSize)))
        let result = pack.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return Z_BUF_ERROR }
            return compress2(
                base + start, &compressedSize, data.baseAddress?.assumingMemoryBound(to: Bytef.self),
                uLong(data.count), type == GIT_OBJECT_TREE ? 0 : 1)
        }
        guard result == Z_OK else {
            throw GitError(code: .other(-1), message: "zlib could not compress an object", function: "compress2")
        }
        pack.removeLast(pack.count - start - Int(compressedSize))
        let crc = pack.withUnsafeBufferPointer { buffer -> uLong in
            guard let base = buffer.baseAddress else { return 0 }
            return crc32(0, base + offset, uInt(buffer.count - offset))
        }
        entries.append((id, UInt32(truncatingIfNeeded: crc), offset))
    }

    /// Finishes the pack and its index and moves both into `packFolder` as `pack-<checksum>.pack`
    /// and `.idx`, each flushed to disk before it is named (a torn index under its final name would
    /// break every read of the object database), then flushes the folder. `durable: false` (a deck
    /// whose writes are not flushed, `CARDS_FSYNC=0`) skips the three flushes.
    mutating func install(in packFolder: String, durable: Bool = true) throws(GitError) {
        let count = UInt32(entries.count)
        for shift in 0..<4 { pack[8 + shift] = UInt8(truncatingIfNeeded: count >> (24 - 8 * UInt32(shift))) }
        let packChecksum = pack.withUnsafeBytes { SHA1.digest($0) }
        pack += packChecksum
        let index = Self.index(entries, packChecksum: packChecksum)
        let name = packFolder + "/pack-" + packChecksum.map { Self.hexDigits($0) }.joined()
        // Killed between the two renames, a pack would be left without its index: garbage to git. The
        // marker names it so the next command (or `cards fsck --repair`) removes it.
        let marker = PackInstallMarker(packFolder: packFolder)
        try marker.record([name])
        try Self.writeDurably(pack, to: name + ".pack", in: packFolder, flush: durable)
        try Self.writeDurably(index, to: name + ".idx", in: packFolder, flush: durable)
        defer { marker.clear() }
        guard durable else { return }
        let folder = open(packFolder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0, fsync(folder) == 0 else {
            let reason = String(cString: strerror(errno))
            if folder >= 0 { close(folder) }
            throw GitError(
                code: .other(-1), message: "cannot flush \(packFolder) (the new pack's names): \(reason)",
                function: "pack")
        }
        close(folder)
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

    /// Writes `bytes` to a new temp file in `folder` (a unique name: a crashed import's leftover or a
    /// second writer never collides), flushes it (unless `flush` is false), then renames it to `path`.
    private static func writeDurably(_ bytes: [UInt8], to path: String, in folder: String, flush: Bool)
        throws(GitError)
    {
        var template = Array("\(folder)/tmp_cards_pack_XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            let fd = mkstemp(base)
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return fd
        }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        func failure(_ what: String) -> GitError {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return GitError(code: .other(-1), message: "\(what) \(path): \(reason)", function: "pack")
        }
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw GitError(
                code: .other(-1), message: "cannot create a temporary file in \(folder): \(reason)", function: "pack")
        }
        // Read-only, as git leaves its packs.
        _ = fchmod(fd, 0o444)
        let written = FileSync.writeAll(fd, bytes)
        guard written == 0 else {
            close(fd)
            errno = written
            throw failure("cannot write")
        }
        guard !flush || fsync(fd) == 0 else {
            close(fd)
            throw failure("cannot flush")
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw failure("cannot move into place") }
    }

    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
    }
}

/// The file that names packs being installed or removed (`<common git folder>/cards-pack-pending`),
/// so that a pack left without its index by a killed writer can be told from one being written by
/// another program and removed safely.
public struct PackInstallMarker {
    /// Where the marker is.
    public let path: String

    /// The marker of the pack folder `packFolder` (`…/objects/pack`).
    public init(packFolder: String) {
        path = packFolder + "/../../cards-pack-pending"
    }

    /// Names the packs (paths without extension) about to be installed or removed. Not flushed: after
    /// a power loss the leftover is still reported by `cards fsck`, only not removed on its own.
    func record(_ bases: [String]) throws(GitError) {
        let text = Array(bases.map { $0 + "\n" }.joined().utf8)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw GitError(
                code: .other(-1), message: "cannot write \(path): \(String(cString: strerror(errno)))",
                function: "pack")
        }
        let failure = FileSync.writeAll(fd, text)
        close(fd)
        guard failure == 0 else {
            clear()
            throw GitError(
                code: .other(-1), message: "cannot write \(path): \(String(cString: strerror(failure)))",
                function: "pack")
        }
    }

    /// The install or removal is complete. Emptied, not removed: the file stays for the next commit,
    /// which then allocates no new inode (slow on a busy ext4 without a journal).
    func clear() {
        truncate(path, 0)
    }

    /// Packs an interrupted install or removal left without their index: the marker's packs whose
    /// `.idx` is missing. Only meaningful while no writer of ours runs (under the deck lock).
    public func orphanedPacks() -> [String] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        let folder = String(path.dropLast("/../../cards-pack-pending".count))
        let hex = Set("0123456789abcdef".utf8)
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            // Only a pack of this folder, by its own name: the marker is a file anyone could write.
            guard let name = line.split(separator: "/").last, name.hasPrefix("pack-"), name.utf8.count == 45,
                name.utf8.dropFirst(5).allSatisfy(hex.contains)
            else { return nil }
            let base = folder + "/" + name
            return access(base + ".idx", F_OK) != 0 && access(base + ".pack", F_OK) == 0 ? base + ".pack" : nil
        }
    }

    /// Removes the orphaned packs and empties the marker; returns the files removed.
    public func removeOrphans() -> [String] {
        var info = stat()
        guard stat(path, &info) == 0, info.st_size > 0 else { return [] }
        let removed = orphanedPacks().filter { unlink($0) == 0 }
        clear()
        return removed
    }
}
