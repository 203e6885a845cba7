import Glibc
import SystemCalls

/// A `.keep` file held on a pack of ours from before the pack is named until the ref that reaches its
/// objects has been written: git's own protection of a pack it receives (index-pack and fetch write
/// `pack-<hash>.keep` first and remove it after the ref update). `git repack -a -d` (and so `git gc`)
/// never deletes a kept pack nor drops its objects, and `git multi-pack-index expire` never expires
/// one; without it, a repack that read the refs between our pack being named and `main` moving finds
/// the new objects unreachable and deletes them, and `main` then names a commit that is gone.
///
/// The `.keep` is a hard link to one file kept for the purpose (`<common git folder>/cards-pack-keep`,
/// made on first use): a link costs ~10 µs where a new file costs up to a millisecond on a busy ext4
/// (a new inode each commit). Not flushed: a `.keep` only ever protects. One a killed writer left
/// (a link to that file, on a pack whose index is older than `abandonedAge`) is removed by the next write's recovery
/// and by `cards fsck --repair` (`isAbandoned`); left alone, it would only keep its pack from ever
/// being repacked. (Removed early from under a write that waits longer than that for a lock, its pack
/// is only unprotected: the ref update's check, `TargetCheck.pack`, still refuses a commit gone.)
package final class PackKeep {
    /// The pack's path without its extension (`…/objects/pack/pack-<hash>`).
    package let base: String
    /// Whether this process made the file, and so removes it (a `.keep` already there is another's).
    private var owned: Bool
    /// Whether this `.keep` was made here before the pack was named: only then did no `git repack`
    /// ever see the pack without it. A pack of that name already there (the same objects packed
    /// before), or a `.keep` already there (another's, which it removes when it likes), may have been
    /// listed by a repack as not kept, and that repack deletes it whatever `.keep` it has since.
    package let keptSinceBeforeNaming: Bool

    private init(base: String, owned: Bool) {
        self.base = base
        self.owned = owned
        keptSinceBeforeNaming = owned && access(base + ".pack", F_OK) != 0
    }

    deinit { release() }

    /// What the kept file says, for a person who finds a `.keep` and wonders (git reads nothing in it).
    static let reason = "cards: a pack being published (its ref is written next); see PackKeep\n"

    /// The file every `.keep` of ours is a link to: `<common git folder>/cards-pack-keep`, for the pack
    /// folder `packFolder` (`…/objects/pack`).
    static func linkedFile(packFolder: String) -> String {
        packFolder + "/../../cards-pack-keep"
    }

    /// How old a kept pack of ours is before its `.keep` is taken for a killed writer's, in seconds: no
    /// write takes that long between naming its pack and writing its ref, unless it waits that long
    /// for a lock.
    static let abandonedAge: Double = 600

    /// Creates `<base>.keep` (before `<base>.pack` is named). A `.keep` already there (the same pack
    /// made again, kept by the user or another writer) protects it as well and is left as it is.
    static func create(base: String) throws(GitError) -> PackKeep {
        let path = base + ".keep"
        let folder = String(base[..<(base.lastIndex(of: "/") ?? base.endIndex)])
        let linked = linkedFile(packFolder: folder)
        if link(linked, path) == 0 { return PackKeep(base: base, owned: true) }
        if errno == EEXIST { return PackKeep(base: base, owned: false) }
        // The file to link to is made on first use (or again, if removed or not a regular file); a
        // folder that cannot hold a link (another file system) gets a file of its own.
        if errno == ENOENT || errno == EPERM || errno == EXDEV {
            if errno == ENOENT { makeLinkedFile(linked) }
            if link(linked, path) == 0 { return PackKeep(base: base, owned: true) }
            if errno == EEXIST { return PackKeep(base: base, owned: false) }
        }
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            if errno == EEXIST { return PackKeep(base: base, owned: false) }
            throw GitError(
                code: .system(errno), message: "cannot write \(path): \(SystemError.reason(errno))",
                function: "pack")
        }
        _ = FileSync.writeAll(descriptor, Array(reason.utf8))
        close(descriptor)
        return PackKeep(base: base, owned: true)
    }

    /// Writes the file `.keep`s link to, through a temp file renamed into place.
    private static func makeLinkedFile(_ path: String) {
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { return }
        let failure = FileSync.writeAll(descriptor, Array(reason.utf8))
        close(descriptor)
        if failure != 0 || rename(temporary, path) != 0 { unlink(temporary) }
    }

    /// Whether the pack and its index are still in place: two `access` calls, checked before a ref is
    /// moved to a commit in it.
    package var isPresent: Bool {
        access(base + ".idx", F_OK) == 0 && access(base + ".pack", F_OK) == 0
    }

    /// Removes the `.keep` (once the ref that reaches the pack is written, or the write gave up); the
    /// pack is then git's like any other. Idempotent.
    package func release() {
        guard owned else { return }
        owned = false
        unlink(base + ".keep")
    }

    /// Whether a `.keep` file (`path`) was left by a killed `cards` write: it is a link to the file
    /// ours link to (or a file saying `reason`), and its pack's index is missing or older than `abandonedAge`.
    /// Anything else (the user's, git's, a write in progress) is not ours to remove.
    package static func isAbandoned(_ path: String) -> Bool {
        guard path.hasSuffix(".keep"), let slash = path.lastIndex(of: "/") else { return false }
        var keep = stat()
        guard lstat(path, &keep) == 0, (keep.st_mode & S_IFMT) == S_IFREG else { return false }
        var linked = stat()
        let folder = String(path[..<slash])
        let isLink =
            stat(linkedFile(packFolder: folder), &linked) == 0 && linked.st_ino == keep.st_ino
            && linked.st_dev == keep.st_dev
        if !isLink {
            guard let bytes = Repository.readSmallFile(path, limit: 512, followingLinks: false),
                bytes == Array(reason.utf8)
            else { return false }
        }
        // The index's time: git and libgit2 touch a pack (not its index) when they find an object they
        // were to write already in it.
        guard let written = LockFiles.modificationTime(String(path.dropLast(5)) + ".idx") else { return true }
        return LockFiles.wallClock() - written > abandonedAge
    }

    /// The `.keep` files in `packFolder` that `isAbandoned` says a killed `cards` write left.
    package static func abandoned(in packFolder: String) -> [String] {
        LockFiles.list(packFolder).filter { $0.hasPrefix("pack-") && $0.hasSuffix(".keep") }
            .map { packFolder + "/" + $0 }.filter(isAbandoned)
    }
}
