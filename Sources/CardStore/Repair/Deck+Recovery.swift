import GitCore
import Glibc
import SystemCalls

/// Finishing what a killed command left, so the next command works without `cards fsck --repair`.
///
/// A write stores its objects, then writes `.git/cards-pending` (its pid and, with a working tree, each
/// path it will touch with the blob it gets), brings the card files and index along under git's
/// `index.lock`, moves `main`, and removes the flag. A command that finds the flag under the deck lock
/// knows the writer died in between: it removes the git locks that writer left (proved stale: the
/// writer is dead, the lock is younger than the flag, and no process has it open), its temp files, puts
/// back what it wrote ahead of a `main` that never moved, and brings the working tree and index in line
/// with `main`, keeping hand edits. Git locks that cannot be proved stale are waited for
/// up to the lock timeout, then named in the error with the process that holds them.
extension Deck {
    /// The flag file of a write in progress.
    var pendingPath: String { "\(gitDirectory)/cards-pending" }

    /// The file naming packs being installed or removed (see `PackInstallMarker`).
    var packMarker: PackInstallMarker { PackInstallMarker(packFolder: repository.packFolder) }

    /// Records that this process is about to bring the working tree and index along to a change and
    /// publish it: each path with the blob it gets (nil: removed), a line `<blob hex or ->\t<path>`; on a
    /// bare deck the pid alone. Not
    /// fsynced: if a crash loses it, the change looks like hand edits (nothing is lost either way).
    /// `handEdits`: the files are the working tree's own, being committed (`cards commit`): a line starts
    /// with `=`, and putting back never touches such a file, only its index entry.
    func markPending(_ files: [(path: String, blob: ObjectID?)], handEdits: Bool = false) throws(StoreError) {
        let mark = handEdits ? "=" : ""
        // A bare deck has no files or index to bring along: its flag names only the writer, which is what
        // proves a main.lock left behind to be ours (the paths of a 2,000-card merge took ~1.5 ms to write).
        let lines = isBare ? [] : files.map { "\(mark)\($0.blob?.hex ?? "-")\t\($0.path)" }
        // The commit the working tree may be behind back to, for the record this write leaves.
        let base = isBare ? nil : baseBeforeWrite().map { ["\(Deck.pendingBasePrefix)\($0.hex)"] }
        let text = (["pid \(getpid())"] + (base ?? []) + lines).joined(separator: "\n") + "\n"
        try FileSystem.writeAtomically(Array(text.utf8), to: pendingPath, durable: false)
    }

    /// One path of an interrupted write: the blob it was to get (nil: removed), when the flag says
    /// (`known`; a flag written by an older version names paths only).
    struct PendingPath {
        var path: String
        var blob: ObjectID?
        var known: Bool
        /// The working tree's own file, being committed: never put back.
        var handEdit = false
    }

    /// A flag line: `[=]<blob hex or ->\t<path>`, or a path alone (older versions).
    static func pendingPath(_ line: String) -> PendingPath {
        let handEdit = line.hasPrefix("=")
        let rest = handEdit ? String(line.dropFirst()) : line
        let bytes = Array(rest.utf8)
        if bytes.count > 41, bytes[40] == UInt8(ascii: "\t"),
            let blob = ObjectID(hex: String(decoding: bytes[..<40], as: UTF8.self))
        {
            let path = String(decoding: bytes[41...], as: UTF8.self)
            return PendingPath(path: path, blob: blob, known: true, handEdit: handEdit)
        }
        if rest.hasPrefix("-\t") {
            return PendingPath(path: String(rest.dropFirst(2)), blob: nil, known: true, handEdit: handEdit)
        }
        return PendingPath(path: line, blob: nil, known: false)
    }

    /// The write is complete: working tree and index follow `main`.
    func clearPending() {
        unlink(pendingPath)
    }

    /// The pid and files (each path with its new blob) of an interrupted write, when its flag is there and its writer is dead. Under
    /// the deck lock (`holdingLock`) the writer, which held it too, is dead whatever runs under its pid
    /// now (a pid used again after a reboot).
    func interruptedWrite(holdingLock: Bool = false) -> (pid: Int32, files: [PendingPath], since: Double)? {
        guard let bytes = try? FileSystem.read(pendingPath, limit: 1 << 24),
            let since = LockFiles.modificationTime(pendingPath)
        else { return nil }
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        guard let first = lines.first, first.hasPrefix("pid "), let pid = Int32(first.dropFirst(4)) else {
            return (0, [], since)
        }
        lines.removeFirst()
        lines.removeAll { $0.hasPrefix(Deck.pendingBasePrefix) }
        if pid == getpid() || (!holdingLock && LockFiles.isAlive(pid)) { return nil }
        return (pid, lines.map(Deck.pendingPath).filter { Deck.isSafeWorkingPath($0.path) }, since)
    }

    /// The paths of an interrupted write that the index and files are to follow main on: every one but
    /// a hand edit being committed, whose file is the user's.
    static func followingPaths(_ files: [PendingPath]) -> [String] {
        files.filter { !$0.handEdit }.map(\.path)
    }

    /// Puts each file of an interrupted write that main does not have as written back as main has it,
    /// in the working tree and in the index: the write was stopped before main moved (it brings them
    /// along first), and what it wrote ahead must not stay as if edited by hand. A file or an index
    /// entry that is neither what the write wrote nor main's is someone's: kept.
    func putBackUnpublished(_ files: [PendingPath], main tree: ObjectID) throws(StoreError) {
        guard let workingDirectory else { return }
        let written = files.filter(\.known)
        guard !written.isEmpty else { return }
        // Read from disk: the repository's index object may be older than the file a patch wrote.
        let index = try withStoreError("reading the index") { () throws(GitError) in
            let index = try repository.index()
            try index.reload(force: true)
            return index
        }
        var indexChanged = false
        // What git keeps out of the working tree: a path the write left skip-worktree, or, in a sparse
        // checkout, one whose entry the write removed (git's patterns decide it at its next checkout).
        let skipped = skipWorktreePaths(among: Set(written.map(\.path)))
        let sparse = isSparseCheckout
        for file in written {
            let main = try withStoreError("reading \(file.path)") { () throws(GitError) in
                try repository.treeEntry(in: tree, path: file.path)
            }
            guard main?.id != file.blob else { continue }  // published: main has it, the index check follows
            let full = try workingFile(file.path) ?? "\(workingDirectory)/\(file.path)"
            let present = workingBlobID(full, path: file.path)
            let outside =
                skipped.contains(file.path) || (sparse && present == nil && index.entryID(path: file.path) == nil)
            if outside {
                if index.entryID(path: file.path) != main?.id || !skipped.contains(file.path) {
                    try withStoreError("putting back \(file.path) in the index") { () throws(GitError) in
                        if let main {
                            try index.stage(path: file.path, id: main.id, mode: main.mode, skipWorktree: true)
                        } else {
                            try index.remove(path: file.path)
                        }
                    }
                    indexChanged = true
                }
                continue
            }
            if !file.handEdit
                && (present != nil && present == file.blob || present == nil && file.blob == nil && main != nil)
            {
                if let main {
                    let bytes = try withStoreError("reading \(file.path)") { () throws(GitError) in
                        try repository.readBlob(main.id)
                    }
                    try FileSystem.writeAtomically(
                        checkoutBytes(bytes, blob: main.id, path: file.path), to: full, durable: durable)
                } else {
                    try FileSystem.remove(full)
                }
            }
            let staged = index.entryID(path: file.path)
            if staged == file.blob && staged != main?.id {
                try withStoreError("putting back \(file.path) in the index") { () throws(GitError) in
                    if let main {
                        try index.stage(path: file.path, id: main.id, mode: main.mode)
                    } else {
                        try index.remove(path: file.path)
                    }
                }
                indexChanged = true
            }
        }
        if indexChanged { try withStoreError("writing the index") { () throws(GitError) in try index.write() } }
    }

    /// Removes the temp files a killed pack write left in `objects/pack` (a sync or merge killed while
    /// it wrote its pack: `cards fsck` named them until `--repair`): those untouched for ten minutes
    /// that no process has open. Both, because a writer closes its temp file before it renames it
    /// into place (ours, libgit2's indexer, git's index-pack), and writers need not hold this deck's
    /// lock (a fetch holds the sync lock; a push from another deck into a bare one holds neither).
    /// One listing of a small folder when there is nothing to remove. In the same listing, a `.keep`
    /// a killed write of ours left on its pack (`PackKeep.isAbandoned`) is removed: it only kept git
    /// from ever repacking that pack.
    func removeStalePackTemporaries() {
        let folder = repository.packFolder
        for name in FileSystem.list(folder) {
            if name.hasSuffix(".keep") && name.hasPrefix("pack-") {
                let path = "\(folder)/\(name)"
                if PackKeep.isAbandoned(path) { unlink(path) }
                continue
            }
            guard Repository.isObjectTemporary(name) else { continue }
            let path = "\(folder)/\(name)"
            guard let written = LockFiles.modificationTime(path), LockFiles.wallClock() - written > Deck.abandonedAge,
                LockFiles.openers(of: path).isEmpty
            else { continue }
            unlink(path)
        }
    }

    /// How long a leftover of a killed writer (a temp pack, another name's half-made clone) stays
    /// untouched before it is taken for abandoned: no writer of ours or git's pauses that long.
    static let abandonedAge: Double = 600

    /// Under the deck lock, before a write: completes a write that a killed command left half done.
    func recoverInterruptedWrite() throws(StoreError) {
        // Before anything is written: a split index could not follow the write, which would stop half done.
        try checkIndexNotSplit()
        try checkIndexNotSparse()
        _ = packMarker.removeOrphans()
        removeStalePackTemporaries()
        guard FileSystem.exists(pendingPath), let interrupted = interruptedWrite(holdingLock: true) else {
            try recoverLostFlag()
            return
        }
        for name in ["\(branch).lock", "index.lock"] { _ = clearStaleGitLock(name) }
        for path in IndexLock.leftovers(of: "\(gitDirectory)/index") { unlink(path) }
        if let workingDirectory {
            for path in interrupted.files.map(\.path) {
                let folder = FileSystem.parent(of: "\(workingDirectory)/\(path)")
                let prefix = ".\(FileSystem.basename(of: path))."
                for name in FileSystem.list(folder) where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
                    unlink("\(folder)/\(name)")
                }
            }
            if let tree = try snapshot().tree {
                try putBackUnpublished(interrupted.files, main: tree)
                var report = CheckReport()
                try checkIndex(tree: tree, &report, repair: true, interrupted: Deck.followingPaths(interrupted.files))
            }
        }
        clearPending()
    }

    /// Where the last write records the index it left and the commit of main it follows
    /// (`<index checksum> <commit>`), and, when the working tree may be behind that commit on paths the
    /// write did not touch, the commit it may be behind back to (`<index checksum> <commit> <base>`).
    var indexRecordPath: String { "\(gitDirectory)/cards-index-tree" }

    /// The flag line that names the base of the write in progress (see `baseBeforeWrite`).
    static let pendingBasePrefix = "base "

    /// After a write brought the index along to `commit`: which index that was (its checksum, its last 20
    /// bytes), and the base its flag names, if any: a write brings along only the paths it changes, so
    /// a working tree behind main before it stays behind on the others. Not flushed: lost or stale, it
    /// only means the check below cannot tell.
    func recordIndexFollows(_ commit: ObjectID) {
        guard let checksum = indexChecksum() else {
            try? FileSystem.remove(indexRecordPath)
            return
        }
        var base: ObjectID?
        if let bytes = try? FileSystem.read(pendingPath, limit: 1 << 24) {
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").prefix(2)
            if let line = lines.first(where: { $0.hasPrefix(Deck.pendingBasePrefix) }) {
                base = ObjectID(hex: String(line.dropFirst(Deck.pendingBasePrefix.count)))
            }
        }
        writeIndexRecord(checksum: checksum, commit: commit, base: base == commit ? nil : base)
    }

    /// Writes the record `indexRecord` reads: the index's checksum, the commit it follows, and its base when
    /// the working tree may be behind back to another commit. Not flushed (see `recordIndexFollows`).
    func writeIndexRecord(checksum: String, commit: ObjectID, base: ObjectID?) {
        let tail = base.map { " \($0.hex)" } ?? ""
        try? FileSystem.writeAtomically(
            Array("\(checksum) \(commit.hex)\(tail)\n".utf8), to: indexRecordPath, durable: false)
    }

    /// The index file's own checksum, in hex; nil when there is no index, or when it has none (git's
    /// `index.skipHash` writes zeros there, which would match any other index written so).
    func indexChecksum() -> String? {
        let descriptor = Glibc.open("\(gitDirectory)/index", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size >= 32 else { return nil }
        var tail = [UInt8](repeating: 0, count: 20)
        guard pread(descriptor, &tail, 20, info.st_size - 20) == 20, tail.contains(where: { $0 != 0 }) else {
            return nil
        }
        return tail.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined()
    }

    /// A write's flag lost in a crash (it is not flushed) after main moved: the index is still the very one
    /// the last write left (same checksum), when main was the recorded commit, and main has moved on from
    /// that commit since (one commit, or a fast-forward of several). Then its files and index are brought
    /// along as for a flag found, instead of every card the write added looking deleted by hand (and a
    /// fast-forward's incoming edits looking reverted by hand). Main moved back (`git reset --soft`) or
    /// elsewhere is not this: nothing is touched.
    func recoverLostFlag() throws(StoreError) {
        guard isIndexLeftBehind, let main = try snapshot().tree else { return }
        var report = CheckReport()
        try checkIndex(tree: main, &report, repair: true)
    }

    /// Whether the index is still the one the last write left, and main has moved on from the commit it
    /// followed (see `recoverLostFlag`).
    var isIndexLeftBehind: Bool {
        guard let (checksum, recorded, _) = indexRecord(), indexChecksum() == checksum, let head = try? headCommit(),
            head != recorded
        else { return false }
        return (try? repository.isDescendant(head, of: recorded)) == true
    }

    /// Whether a write left a record of the index it wrote.
    var hasIndexRecord: Bool { indexRecord() != nil }

    /// Whether the index is still the very file the last write left (its checksum as recorded).
    var isIndexAsRecorded: Bool {
        guard let (checksum, _, _) = indexRecord() else { return false }
        return indexChecksum() == checksum
    }

    /// The commit of main the last write left the index following, when main is it or descends from it:
    /// the index may be behind main since, on the paths that changed after it.
    func indexRecordedCommit() -> ObjectID? {
        guard let (_, recorded, _) = indexRecord(), let head = try? headCommit() else { return nil }
        return head == recorded || (try? repository.isDescendant(head, of: recorded)) == true ? recorded : nil
    }

    /// The commit the working tree may be behind back to, as the last write recorded it (its base, else
    /// the commit it followed), when main is it or descends from it.
    func recordedWorkingBase() -> ObjectID? {
        guard let record = indexRecord(), let head = try? headCommit() else { return nil }
        let base = record.base ?? record.commit
        return head == base || (try? repository.isDescendant(head, of: base)) == true ? base : nil
    }

    /// What `recordIndexFollows` wrote: the index's checksum, the commit of main it followed, and the
    /// base the working tree may be behind back to (nil: none, it followed that commit whole).
    func indexRecord() -> (checksum: String, commit: ObjectID, base: ObjectID?)? {
        guard !isBare, let bytes = try? FileSystem.read(indexRecordPath, limit: 200) else { return nil }
        let parts = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard parts.count == 2 || parts.count == 3, let recorded = ObjectID(hex: String(parts[1])) else { return nil }
        let base = parts.count == 3 ? ObjectID(hex: String(parts[2])) : nil
        if parts.count == 3 && base == nil { return nil }
        return (String(parts[0]), recorded, base)
    }

    /// Whether a `cards` write was interrupted after `main` moved and before the working tree and index
    /// followed (its flag is there, its writer gone): the next write, or `cards fsck --repair`, finishes it.
    package var hasInterruptedWrite: Bool {
        (FileSystem.exists(pendingPath) && interruptedWrite() != nil) || isIndexLeftBehind
    }

    /// Where git's lock file `name` is: a ref's in the folder every worktree shares (in a linked
    /// worktree, not its own git folder), the index's in the git folder.
    func gitLockPath(_ name: String) -> String {
        name.hasPrefix("refs/") ? repository.commonDirectory + name : "\(gitDirectory)/\(name)"
    }

    /// Removes a git lock file (the branch's `refs/heads/NAME.lock`, `index.lock`) left by a dead
    /// `cards` writer: its pending flag names a dead process, the lock was written after the flag,
    /// and no process has the lock open. Returns whether it removed one.
    func clearStaleGitLock(_ name: String) -> Bool {
        let path = gitLockPath(name)
        // Every caller holds the deck lock (a write, `fsck`).
        guard let written = LockFiles.modificationTime(path), let interrupted = interruptedWrite(holdingLock: true),
            written >= interrupted.since - 0.01, LockFiles.openers(of: path).isEmpty
        else { return false }
        return unlink(path) == 0
    }

    /// How long a git lock that no process holds is given to go before it is said to be in the way, in
    /// seconds. git closes its lock file before it renames it into place (`commit_lock_file`, a ref
    /// transaction's `close_ref_gently`) and renames within milliseconds even on a loaded machine: half
    /// a second is a hundred times that, and still said at once to a person. (git itself does not wait
    /// for `index.lock` at all, and 0.1 s for a ref's lock: `core.filesRefLockTimeout`.)
    static let gitLockGrace = 0.5

    /// Waits while another process holds the git lock file `name` (`LockFiles.openers`, or a git command
    /// running in this repository that takes locks: `gitLockHolders`), up to the lock timeout, naming
    /// it through `lockWaitNotice` after a second; removes the lock when a dead writer of ours left it.
    /// A lock nobody holds fails at once (after `gitLockGrace`), naming the file and what to do.
    func waitForGitLock(_ name: String, deadline: Double) throws(StoreError) {
        let path = gitLockPath(name)
        let started = MonotonicClock.now()
        var delay: UInt32 = 1_000
        var told = false
        var lastLook = -Double.infinity
        while FileSystem.exists(path) {
            if clearStaleGitLock(name) { continue }
            let now = MonotonicClock.now()
            let age = LockFiles.modificationTime(path).map { LockFiles.wallClock() - $0 } ?? 0
            // Who holds it: asked once the grace is over (an old lock at once), then every 0.1 s (a walk
            // of /proc, a few ms), never on a write that finds no lock.
            if (now - started >= Deck.gitLockGrace || age >= Deck.gitLockGrace) && now - lastLook >= 0.1 {
                lastLook = now
                let holders = gitLockHolders(path)
                if holders.isEmpty {
                    if FileSystem.exists(path) { throw staleGitLockError(name) }
                    continue
                }
                if !told, now - started >= Deck.lockWaitNoticeDelay, deadline - now >= 1,
                    let notice = Deck.lockWaitNotice
                {
                    told = true
                    notice(
                        "waiting for \(holders.map(\.description).joined(separator: ", ")), which holds \(path), "
                            + "for up to \(Int((deadline - now).rounded())) s more")
                }
            }
            if now >= deadline { throw gitLockError(name) }
            usleep(delay)
            delay = min(delay * 2, 50_000)
        }
    }

    /// git commands that only read: running in the repository, they hold no lock of a writer's (a
    /// pager left open on `git log` must not make a stale lock wait).
    static let readingGitCommands: Set<String> = [
        "log", "show", "diff", "blame", "annotate", "grep", "help", "shortlog", "whatchanged", "cat-file",
        "ls-files", "ls-tree", "rev-list", "rev-parse", "describe", "var", "version", "config", "difftool",
        "instaweb", "daemon", "fsck", "count-objects", "verify-pack", "show-ref", "for-each-ref", "name-rev",
        "archive", "bundle", "format-patch", "request-pull", "cherry", "range-diff",
    ]

    /// Who holds the git lock at `path`: the processes that have it open, else the git commands
    /// running in this repository that take locks (`git commit` holds `index.lock` closed while its
    /// hooks and editor run; git's own message names that case), each with its command.
    func gitLockHolders(_ path: String) -> [LockFiles.Holder] {
        let openers = LockFiles.openers(of: path)
        if !openers.isEmpty { return openers }
        return LockFiles.gitProcesses(workingIn: workingDirectory ?? gitDirectory).compactMap { process in
            let command = LockFiles.gitCommand(of: process.pid)
            guard !Deck.readingGitCommands.contains(command) else { return nil }
            var holder = process
            if !command.isEmpty { holder.name = "git \(command)" }
            return holder
        }
    }

    /// The error for a git lock that nobody holds: said at once, as git says it, with what to do.
    func staleGitLockError(_ name: String) -> StoreError {
        let path = gitLockPath(name)
        return StoreError(
            .locked,
            "\(path) is in the way and no process has it open: another git process seems to be running in this "
                + "repository (an editor opened by `git commit`?), or a git process was interrupted and left it; "
                + "nothing was changed; once no git process is running here, remove the file (`rm "
                + "\(ShellWord.quoted(path))`) or run `cards fsck --repair`, then try again")
    }

    /// The error for a git lock held past the lock timeout: who holds it, or that nobody does.
    func gitLockError(_ name: String) -> StoreError {
        let path = gitLockPath(name)
        let holders = gitLockHolders(path)
        if holders.isEmpty { return staleGitLockError(name) }
        return StoreError(
            .locked,
            "\(path) is held by \(holders.map(\.description).joined(separator: ", ")) for more than "
                + "\(Int(lockTimeout)) s; nothing was changed; wait for it to finish or stop it, then try again")
    }

    /// Sleeps before retrying a lock.
    static func pause(milliseconds: Int) {
        usleep(UInt32(milliseconds * 1_000))
    }

    /// The lock timeout from `CARDS_LOCK_TIMEOUT` (seconds, at most a million: "inf" waits that long),
    /// else 30.
    static var defaultLockTimeout: Double {
        Deck.environment("CARDS_LOCK_TIMEOUT").flatMap(Deck.lockTimeout(from:)) ?? 30
    }

    /// The longest wait for a lock: what "wait for ever" amounts to (11 days), and a number of seconds
    /// every message can say.
    public static let longestLockTimeout: Double = 1_000_000
}
