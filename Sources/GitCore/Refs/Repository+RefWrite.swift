import CGit2
import Glibc
import SystemCalls

extension Repository {
    /// Moves a branch by compare-and-swap the way git and libgit2 do (`<ref>.lock` created exclusively,
    /// the current value checked under it, reflog lines appended, the lock renamed over the ref), made
    /// durable as `flush` says:
    /// - `.ordered`: each file's data written out (`FileSync.writeOut`) before the rename, and no fsync:
    ///   the caller fsyncs the last file it renames and so commits this too. libgit2 can only fsync the
    ///   lock, the ref's folder and each reflog and its folder (6 fsyncs).
    /// - `.strict`: each file fsynced instead, and so is a folder that gains an entry (the ref's, on the
    ///   rename; a new reflog's): libgit2 also fsyncs the folder of a reflog it appends to, which
    ///   changes nothing in it.
    /// - `.none`: nothing flushed. libgit2's own update would also look the target up in the object
    ///   database, rescanning the pack folder for a commit just written into a new pack (a `cards merge`
    ///   process ~0.6–1.0 ms longer with 15 packs); `check` says what is checked instead.
    ///
    /// A reflog line names the committer given (the commit's), where libgit2's names `user.name` and
    /// `user.email` at the time of the update.
    ///
    /// Returns false, having changed nothing, where it does not apply (a symbolic or unreadable ref, a
    /// lock file that cannot be created but for an existing one): use `updateReference` then. Throws
    /// `.referenceChanged` or `.locked` like it.
    ///
    /// `check`: under the lock, before anything is written, the target is checked to be readable
    /// (`TargetCheck`); `.targetRemoved` when it is gone.
    package func updateReferenceWrittenOut(
        _ name: String, to target: ObjectID, expected: ObjectID?, logMessage: String, committer: Signature,
        flush: FlushMode, check readable: TargetCheck = .none
    ) throws(GitError) -> Bool {
        let common = commonDirectory
        let path = common + name
        let lockPath = path + ".lock"
        let fd = Glibc.open(lockPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            if errno == EEXIST {
                throw GitError(code: .locked, message: "\(lockPath) exists", function: "updateReferenceWrittenOut")
            }
            return false
        }
        var renamed = false
        defer {
            close(fd)
            if !renamed { unlink(lockPath) }
        }
        guard let current = Repository.looseOrPackedTarget(path: path, name: name, common: common) else {
            return false
        }
        if current != expected {
            throw GitError(
                code: .referenceChanged, message: "\(name) was moved by another writer",
                function: "updateReferenceWrittenOut")
        }
        try checkReadable(target, readable, for: name)
        // The reflogs first, as libgit2 does: a ref never moves without its line.
        let line = try Repository.reflogLine(old: expected, new: target, committer: committer, message: logMessage)
        var logs: [String] = []
        if wantsReflog(path: "\(common)logs/\(name)") { logs.append("\(common)logs/\(name)") }
        if headReferenceName() == name && wantsReflog(path: "\(gitDirectory)logs/HEAD") {
            logs.append("\(gitDirectory)logs/HEAD")
        }
        for log in logs { try Repository.append(line, to: log, flush: flush) }
        let text = Array("\(target.hex)\n".utf8)
        var failure = FileSync.writeAll(fd, text)
        switch flush {
        case .none: break
        case .strict: if failure == 0 && fsync(fd) != 0 { failure = errno }
        case .ordered:
            // The reflogs' writes were started as they were appended: wait for all in one round trip.
            if failure == 0 { failure = FileSync.startWriteOut(fd) }
            if failure == 0 { failure = FileSync.writeOut(paths: logs) }
            if failure == 0 { failure = FileSync.writeOut(fd) }
        }
        if failure == 0 && rename(lockPath, path) != 0 { failure = errno }
        if flush == .strict && failure == 0 { failure = Repository.flushFolder(of: path) }
        guard failure == 0 else {
            throw GitError(
                code: .system(failure),
                message: "cannot write \(path): \(SystemError.reason(failure)); \(name) was not moved: "
                    + "check the disk, then try again",
                function: "updateReferenceWrittenOut")
        }
        renamed = true
        return true
    }

    /// What `name` points to: its loose file, else its line in `packed-refs`; `.some(nil)` when it
    /// does not exist, nil when it cannot be read as a plain id (symbolic, corrupt).
    static func looseOrPackedTarget(path: String, name: String, common: String) -> ObjectID?? {
        if let bytes = readSmallFile(path) {
            let text = String(decoding: bytes.prefix(40), as: UTF8.self)
            guard let id = ObjectID(hex: text) else { return nil }
            return .some(id)
        }
        guard errno == ENOENT else { return nil }
        guard let packed = readSmallFile("\(common)packed-refs", limit: 1 << 26) else {
            return errno == ENOENT ? .some(nil) : nil
        }
        let suffix = " \(name)"
        for line in String(decoding: packed, as: UTF8.self).split(separator: "\n") {
            guard line.count == 40 + suffix.count, line.hasSuffix(suffix) else { continue }
            guard let id = ObjectID(hex: String(line.prefix(40))) else { return nil }
            return .some(id)
        }
        return .some(nil)
    }

    /// Whether a reflog is kept: the file exists, or `core.logAllRefUpdates` asks for one (by default
    /// in repositories with a working tree, as git and libgit2 decide): `always`, or any boolean git
    /// reads as true (`on`, a number other than 0, the key with no value).
    func wantsReflog(path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return true }
        if ((try? configString("core.logAllRefUpdates")) ?? nil)?.lowercased() == "always" { return true }
        return configBool("core.logAllRefUpdates") ?? !isBare
    }

    /// A reflog line as git writes it: old and new ids, who and when (as the commit's committer line
    /// gives them, trimmed as libgit2 trims a signature), a tab and the message on one line.
    /// Fails, as the commit did, for a signature git cannot write.
    static func reflogLine(old: ObjectID?, new: ObjectID, committer: Signature, message: String) throws(GitError)
        -> [UInt8]
    {
        let oldHex = old?.hex ?? String(repeating: "0", count: 40)
        var line = Array("\(oldHex) \(new.hex) ".utf8) + (try committer.commitText()) + [UInt8(ascii: "\t")]
        // The message on one line: every line feed and carriage return a space (a "\r\n" pair is one
        // Character, which a per-Character test let through and split the reflog line).
        line += message.utf8.map { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") ? UInt8(ascii: " ") : $0 }
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// fsync of the folder holding `path`: errno, or 0.
    static func flushFolder(of path: String) -> Int32 {
        guard let slash = path.lastIndex(of: "/") else { return 0 }
        return FileSync.flush(path: String(path[..<slash]))
    }

    /// Appends to a reflog (creating it and its folders): `.ordered` starts writing the data out,
    /// `.strict` fsyncs it and the folders that gained an entry, `.none` leaves it to the page cache.
    static func append(_ line: [UInt8], to path: String, flush: FlushMode) throws(GitError) {
        var folder = path
        var missing: [String] = []
        while let slash = folder.lastIndex(of: "/") {
            folder = String(folder[..<slash])
            var info = stat()
            if folder.isEmpty || stat(folder, &info) == 0 { break }
            missing.append(folder)
        }
        for created in missing.reversed() { _ = mkdir(created, 0o777) }
        var existing = stat()
        let isNew = stat(path, &existing) != 0
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw GitError(
                code: .system(errno), message: "cannot write \(path): \(SystemError.reason(errno))",
                function: "updateReferenceWrittenOut")
        }
        defer { close(fd) }
        var failure = FileSync.writeAll(fd, line)
        if failure == 0 && flush == .strict && fsync(fd) != 0 { failure = errno }
        if failure == 0 && flush == .ordered { failure = FileSync.startWriteOut(fd) }
        if flush == .strict && failure == 0 && isNew {
            // The new file's entry, and each new folder's in its parent.
            for entry in [path] + missing where failure == 0 { failure = flushFolder(of: entry) }
        }
        guard failure == 0 else {
            throw GitError(
                code: .system(failure), message: "cannot write \(path): \(SystemError.reason(failure))",
                function: "updateReferenceWrittenOut")
        }
    }

    /// A whole small regular file, or nil (errno says why); never waits on a FIFO, and with
    /// `followingLinks` false refuses a symbolic link.
    static func readSmallFile(_ path: String, limit: Int = 4096, followingLinks: Bool = true) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            errno = EINVAL
            return nil
        }
        guard Int(info.st_size) <= limit else {
            errno = EFBIG
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count == bytes.count else {
            errno = EIO
            return nil
        }
        return bytes
    }
}
