import Glibc

/// Who holds a lock file, and whether a git lock file (`refs/heads/main.lock`, `index.lock`) was left
/// behind by a process that died. Linux only: reads `/proc/locks` and `/proc/<pid>/fd`. Called only
/// when a lock is found in the way, never on the normal write path.
package enum LockFiles {
    /// A process that has a lock file open.
    package struct Holder: Equatable, CustomStringConvertible, Sendable {
        /// Its process id.
        package var pid: Int32
        /// Its command name (`/proc/<pid>/comm`), or "" when unknown.
        package var name: String

        /// "process 42 (git)".
        package var description: String { name.isEmpty ? "process \(pid)" : "process \(pid) (\(name))" }
    }

    /// A descriptor for `flock` on a lock file that stays in the git folder between commands
    /// (`cards.lock`, `cards-sync.lock`, `cards-pack.lock`), made when missing; -1 with `errno` set
    /// when it cannot be opened. `writable` is false when it could be opened for reading only: a lock
    /// another user left (root, say) that this user may not write still locks (`flock` needs no write
    /// access), so it never keeps the deck's owner out.
    ///
    /// Root working in a repository another user owns (which `safe.directory` allowed) gives the lock
    /// file it made to the owner of its folder: git's own lock files go when the command ends, and
    /// this one, left root's, would stop the owner's next `cards` from opening it to write its record.
    ///
    /// Only a regular file, never through a symbolic link, never blocking on a FIFO (`RegularFile`):
    /// a link planted as `.git/cards.lock` must not lead root to open, and give away, another file;
    /// anything else fails with `EINVAL`.
    package static func openLock(_ path: String) -> (descriptor: Int32, writable: Bool) {
        var descriptor = RegularFile.open(path, flags: O_RDWR | O_CREAT)
        if descriptor < 0 && errno == EACCES {
            descriptor = RegularFile.open(path, flags: O_RDONLY)
            return (descriptor, false)
        }
        if descriptor >= 0 && geteuid() == 0 { giveToFolderOwner(descriptor, path: path) }
        return (descriptor, descriptor >= 0)
    }

    /// Gives the root-owned file open as `descriptor` to the owner (and group) of the folder that holds
    /// `path`, when that is another user: what root makes among another user's files stays usable by them.
    /// Only a regular file with one name: a hard link to a file elsewhere is never given away.
    package static func giveToFolderOwner(_ descriptor: Int32, path: String) {
        var file = stat()
        guard fstat(descriptor, &file) == 0, file.st_uid == 0, (file.st_mode & S_IFMT) == S_IFREG, file.st_nlink == 1
        else { return }
        var folder = stat()
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        guard stat(parent.isEmpty ? "/" : parent, &folder) == 0, folder.st_uid != 0 else { return }
        _ = fchown(descriptor, folder.st_uid, folder.st_gid)
    }

    /// The processes other than this one that have `path` open (found through `/proc/*/fd`).
    package static func openers(of path: String) -> [Holder] {
        var target = stat()
        guard stat(path, &target) == 0 else { return [] }
        var holders: [Holder] = []
        let me = getpid()
        for entry in list("/proc") {
            guard let pid = Int32(entry), pid != me else { continue }
            let folder = "/proc/\(entry)/fd"
            for fd in list(folder) {
                var info = stat()
                if stat("\(folder)/\(fd)", &info) == 0 && info.st_dev == target.st_dev && info.st_ino == target.st_ino {
                    holders.append(Holder(pid: pid, name: processName(pid)))
                    break
                }
            }
        }
        return holders
    }

    /// The process holding a `flock` on `path`, from `/proc/locks` (nil when none, or not on Linux).
    package static func flockHolder(of path: String) -> Holder? {
        var target = stat()
        guard stat(path, &target) == 0, let bytes = readProcFile("/proc/locks") else { return nil }
        let me = getpid()
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            // "1: FLOCK  ADVISORY  WRITE 30065 fe:00:16222691 0 EOF"
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]), pid != me,
                let inode = fields[5].split(separator: ":").last, UInt64(inode) == UInt64(target.st_ino)
            else { continue }
            // Same inode number: confirm the process really has this file open (another device may reuse it).
            var folder = stat()
            let hasFolder = stat("/proc/\(pid)/fd", &folder) == 0
            if openers(of: path).contains(where: { $0.pid == pid }) || !hasFolder {
                return Holder(pid: pid, name: processName(pid))
            }
        }
        return nil
    }

    /// The command name of a process, or "" when it is gone.
    package static func processName(_ pid: Int32) -> String {
        guard let bytes = readProcFile("/proc/\(pid)/comm") else { return "" }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: "\n")
    }

    /// Reads a /proc file to its end (they report a size of 0, so `FileSystem.read` cannot be used).
    package static func readProcFile(_ path: String, limit: Int = 1 << 22) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return FileDescriptor(fd).readToEnd(limit: limit)
    }

    /// Whether a process with this id is alive.
    package static func isAlive(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }

    /// The modification time of a file in seconds since the epoch, or nil when it is missing.
    package static func modificationTime(_ path: String) -> Double? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }

    /// Seconds since the epoch, from the same clock as file times.
    package static func wallClock() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

extension LockFiles {
    /// Removes a git lock file that no process on this machine has open once it is at least
    /// `age` seconds old, waiting for that (a killed writer leaves a lock nobody will ever remove; a
    /// live writer holds it open, or for a moment only). Returns whether the lock is gone.
    package static func clearIfAbandoned(_ path: String, age: Double) -> Bool {
        while let written = modificationTime(path) {
            if !openers(of: path).isEmpty { return false }
            if wallClock() - written >= age { return unlink(path) == 0 || modificationTime(path) == nil }
            usleep(50_000)
        }
        return true
    }

    /// The git processes (by command name) working in `folder` or below it (by their current folder).
    package static func gitProcesses(workingIn folder: String) -> [Holder] {
        guard let real = realpath(folder, nil) else { return [] }
        let root = String(cString: real)
        free(real)
        let me = getpid()
        var found: [Holder] = []
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        for entry in list("/proc") {
            guard let pid = Int32(entry), pid != me else { continue }
            let count = readlink("/proc/\(entry)/cwd", &target, target.count - 1)
            guard count > 0 else { continue }
            let cwd = String(decoding: target[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard cwd == root || cwd.hasPrefix(root == "/" ? "/" : root + "/") else { continue }
            let name = processName(pid)
            if name.hasPrefix("git") { found.append(Holder(pid: pid, name: name)) }
        }
        return found
    }

    /// The git command a process runs (`commit` for `git -c x=y commit -m …`), from its command line;
    /// "" when it has none or cannot be read.
    package static func gitCommand(of pid: Int32) -> String {
        guard let bytes = readProcFile("/proc/\(pid)/cmdline", limit: 1 << 16) else { return "" }
        let words = bytes.split(separator: 0, omittingEmptySubsequences: false).dropFirst().map {
            String(decoding: $0, as: UTF8.self)
        }
        var index = 0
        while index < words.count {
            let word = words[index]
            // The options before the command; -C and -c take the next word.
            if word == "-C" || word == "-c" {
                index += 2
                continue
            }
            if word.hasPrefix("-") {
                index += 1
                continue
            }
            return word
        }
        return ""
    }

    /// Waits until no git process works in `folder` (up to `patience` seconds), then kills those left.
    /// A `git fetch` killed with its caller dies at once, but its helpers (`index-pack`,
    /// `unpack-objects`) live until they read the end of their input, and write objects meanwhile:
    /// a folder is removed only once they are gone, or they would make part of it again.
    package static func awaitGitProcesses(workingIn folder: String, patience: Double = 5) {
        let start = wallClock()
        var left = gitProcesses(workingIn: folder)
        while !left.isEmpty && wallClock() - start < patience {
            usleep(20_000)
            left = gitProcesses(workingIn: folder)
        }
        for holder in left { kill(holder.pid, SIGKILL) }
        while !gitProcesses(workingIn: folder).isEmpty && wallClock() - start < patience + 2 { usleep(20_000) }
    }

    /// The entries of a folder (names only, no "." or "..", in directory order).
    package static func list(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let last = text.last, set.contains(last) { text.removeLast() }
        while let first = text.first, set.contains(first) { text.removeFirst() }
        return String(text)
    }
}
