import Glibc
import SystemCalls

/// The file that names packs being installed or removed (`<common git folder>/cards-pack-pending`),
/// so that a pack a killed writer left without its index can be told from one another program is
/// writing, and removed safely. Written and read under `PackFolderLock`.
package struct PackInstallMarker {
    /// Where the marker is.
    package let path: String
    private let packFolder: String

    /// The marker of the pack folder `packFolder` (`…/objects/pack`).
    package init(packFolder: String) {
        self.packFolder = packFolder
        path = packFolder + "/../../cards-pack-pending"
    }

    /// Names the packs (paths without extension) about to be installed or removed. Not flushed: after
    /// a power loss the leftover is still reported by `cards fsck`, and removed by `--repair` once old.
    func record(_ bases: [String]) throws(GitError) {
        let text = Array(bases.map { $0 + "\n" }.joined().utf8)
        var descriptor = RegularFile.open(path, flags: O_WRONLY | O_CREAT)
        let refused = descriptor < 0 && errno == EACCES
        var info = stat()
        if descriptor < 0 && lstat(path, &info) == 0 && ((info.st_mode & S_IFMT) != S_IFREG || refused) {
            // Not a regular file (a symbolic link, a FIFO): ours to replace, never to follow. One this
            // user may not write (root's, left by a `sudo cards` in an older version): replaced too.
            unlink(path)
            descriptor = RegularFile.open(path, flags: O_WRONLY | O_CREAT)
        }
        // Root in another user's repository: the marker stays for that user's next commit to write.
        if descriptor >= 0 && geteuid() == 0 { LockFiles.giveToFolderOwner(descriptor, path: path) }
        guard descriptor >= 0 else {
            throw GitError(
                code: .system(errno), message: "cannot write \(path): \(SystemError.reason(errno))",
                function: "pack")
        }
        let failure = PackInstallMarker.overwrite(descriptor, with: text)
        close(descriptor)
        guard failure == 0 else {
            clear()
            throw GitError(
                code: .system(failure), message: "cannot write \(path): \(SystemError.reason(failure))",
                function: "pack")
        }
    }

    /// The install or removal is complete. Blanked, not removed: the file stays for the next commit,
    /// which then allocates no new inode (slow on a busy ext4 without a journal).
    func clear() {
        let descriptor = RegularFile.open(path, flags: O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = PackInstallMarker.overwrite(descriptor, with: [])
        close(descriptor)
    }

    /// The longest marker blanked in place (a page: a combination of 16 packs names ~1.6 KB); a longer
    /// one is cut instead, so that blanking and `isMarked` stay one small write and read.
    static let blankedLength = 4096

    /// Writes `text` over the marker open at `descriptor` and turns what is left of the old one into
    /// empty lines (which name nothing): never cut to nothing first. Cutting a file with data to
    /// nothing makes ext4 write the next data out when the file is closed (its guard for
    /// replace-by-truncate), and the next cut waits for that write: the marker's record and clear cost
    /// ~0.35 ms of every commit that way on a disk mounted with `discard`. Returns 0 or an errno.
    static func overwrite(_ descriptor: Int32, with text: [UInt8]) -> Int32 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return errno }
        let oldLength = Int(info.st_size)
        if oldLength > blankedLength || (text.isEmpty && oldLength == 0) {
            if ftruncate(descriptor, 0) != 0 { return errno }
            return FileSync.writeAll(descriptor, text)
        }
        let blanks = [UInt8](repeating: 0x0A, count: max(0, oldLength - text.count))
        return FileSync.writeAll(descriptor, text + blanks)
    }

    /// Whether the marker names anything: any byte but a newline (a blanked marker is only newlines).
    func isMarked() -> Bool {
        let descriptor = RegularFile.open(path, flags: O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var total = 0
        // Up to one byte past what is blanked in place: a longer file (cut at the next clear) counts as marked.
        while total <= PackInstallMarker.blankedLength {
            let count = buffer.withUnsafeMutableBytes { FileDescriptor(descriptor).read(into: $0) }
            guard count > 0 else { return false }
            if buffer[0..<count].contains(where: { $0 != 0x0A }) { return true }
            total += count
        }
        return true
    }

    /// The pack folder's packs without an index (invisible to git and libgit2, and garbage to them),
    /// each with whether the marker names it (left by a killed writer of ours) and its age in seconds.
    /// Call under `PackFolderLock`.
    package func packsWithoutIndex() -> [(path: String, named: Bool, age: Double)] {
        let named = namedBases()
        let names = LockFiles.list(packFolder)
        let indexed = Set(names.filter { $0.hasSuffix(".idx") }.map { $0.dropLast(4) })
        let now = LockFiles.wallClock()
        var found: [(path: String, named: Bool, age: Double)] = []
        for name in names where name.hasPrefix("pack-") && name.hasSuffix(".pack") {
            let stem = name.dropLast(5)
            let path = packFolder + "/" + name
            guard !indexed.contains(stem), let written = LockFiles.modificationTime(path) else { continue }
            found.append((path, named.contains(String(stem)), now - written))
        }
        return found
    }

    /// Removes the packs without an index that the marker names, or (`olderThan`) that are older than
    /// that many seconds, and blanks the marker; returns the files removed. Skipped (nothing removed)
    /// while another process holds the pack folder's lock.
    package func removeOrphans(olderThan: Double? = nil) -> [String] {
        let marked = isMarked()
        guard marked || olderThan != nil, let lock = PackFolderLock.acquireIfFree(packFolder: packFolder) else {
            return []
        }
        defer { withExtendedLifetime(lock) {} }
        let removable = packsWithoutIndex().filter { orphan in
            orphan.named || (olderThan.map { orphan.age > $0 } ?? false)
        }
        let removed = removable.map { $0.path }.filter { unlink($0) == 0 }
        if marked { clear() }
        return removed
    }

    /// The pack names (`pack-<40 hex>`) the marker lists: only names, so a line can never point
    /// outside this folder (the marker is a file anyone with write access to the deck could edit).
    private func namedBases() -> Set<String> {
        let descriptor = RegularFile.open(path, flags: O_RDONLY)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        let bytes = FileDescriptor(descriptor).readToEnd(limit: 1 << 20, chunk: 4096)
        let hex = Set("0123456789abcdef".utf8)
        var names: Set<String> = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let name = line.split(separator: "/").last, name.hasPrefix("pack-"), name.utf8.count == 45,
                name.utf8.dropFirst(5).allSatisfy(hex.contains)
            else { continue }
            names.insert(String(name))
        }
        return names
    }
}
