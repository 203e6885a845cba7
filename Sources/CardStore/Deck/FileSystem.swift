import GitCore
import Glibc
import SystemCalls

/// The few file operations the store needs, on plain POSIX calls (no Foundation on the hot path).
package enum FileSystem {
    /// Reads a whole regular file, refusing one larger than `limit` bytes before reading it. A symbolic
    /// link is refused unless `followingLinks` (a file the user names, such as an import's): the deck's
    /// own files are regular files, and a link there could lead anywhere.
    package static func read(
        _ path: String, limit: Int = 64 * 1024 * 1024, followingLinks: Bool = false
    ) throws(StoreError) -> [UInt8] {
        // O_NONBLOCK: a FIFO where a file belongs is refused below, not waited on for a writer that
        // never comes (with the deck's lock held); a regular file reads the same either way.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { throw StoreError(.io, openFailure(path, errno: errno, followingLinks: followingLinks)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError(.io, "cannot read \(path): \(errorText())") }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError(.io, "\(path) is \(kindName(info.st_mode)), not a regular file")
        }
        if Int(info.st_size) > limit {
            throw StoreError(.invalidInput, "\(path) is \(info.st_size) bytes, more than the \(limit) allowed")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                FileDescriptor(fd).read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]))
            }
            if count < 0 { throw StoreError(.io, "cannot read \(path): \(errorText())") }
            if count == 0 { break }
            offset += count
        }
        return Array(bytes[0..<offset])
    }

    /// The temporary file this process writes `path`'s new content to before renaming it into place
    /// (`.<name>.<pid>.tmp` beside it, in `folder`, its parent): hidden, and the recovery of a killed
    /// writer finds its own by the pid.
    static func temporaryPath(for path: String, in folder: String) -> String {
        "\(folder)/.\(basename(of: path)).\(getpid()).tmp"
    }

    /// Writes a file atomically: a temp file beside it, fsync when durable, then rename over it. `mode`:
    /// its permissions from its creation on (less the umask), 0o600 for a secret only its owner may read.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, durable: Bool, mode: mode_t = 0o666)
        throws(StoreError)
    {
        try writeAtomically(bytes, to: path, flush: durable ? .strict : .none, mode: mode)
    }

    /// Writes a file atomically; `flush` says how its data reaches the disk before the rename: fsynced
    /// (`.strict`), or only written out (`.ordered`: the caller's last fsync commits the rename), or not.
    static func writeAtomically(_ bytes: [UInt8], to path: String, flush: FlushMode, mode: mode_t = 0o666)
        throws(StoreError)
    {
        let directory = parent(of: path)
        try makeDirectories(directory)
        let temp = temporaryPath(for: path, in: directory)
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw StoreError(.io, "cannot write \(temp): \(errorText())") }
        var failure = FileSync.writeAll(fd, bytes)
        if failure == 0 { failure = FileSync.flush(fd, flush) }
        close(fd)
        if failure == 0 && rename(temp, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temp)
            throw StoreError(.io, "cannot write \(path): \(SystemError.reason(failure))")
        }
    }

    /// Removes a file; no error when it is already gone. Also removes its folder when that is left empty.
    package static func remove(_ path: String) throws(StoreError) {
        if unlink(path) != 0 && errno != ENOENT {
            throw StoreError(.io, "cannot remove \(path): \(errorText())")
        }
        _ = rmdir(parent(of: path))
    }

    /// Creates a folder and its parents.
    package static func makeDirectories(_ path: String) throws(StoreError) {
        if isDirectory(path) { return }
        let up = parent(of: path)
        if up != path && !up.isEmpty { try makeDirectories(up) }
        if mkdir(path, 0o777) != 0 && errno != EEXIST {
            throw StoreError(.io, "cannot create the folder \(path): \(errorText())")
        }
    }

    /// Whether a path exists (without following a final symlink).
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Whether a path is a folder.
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The folder part of a path.
    package static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The last component of a path.
    package static func basename(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// An absolute form of a path (relative ones are taken from the current folder).
    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let found = buffer.withUnsafeMutableBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) { getcwd($0.baseAddress, $0.count) != nil }
        }
        guard found else { return path }
        let cwd = String(decoding: buffer.prefix(while: { $0 != 0 }), as: UTF8.self)
        if path == "." { return cwd }
        return cwd.hasSuffix("/") ? cwd + path : cwd + "/" + path
    }

    /// One spelling of the place `path` names, for telling whether two paths name the same folder:
    /// absolute, without ".", repeated or trailing slashes, resolved as the kernel resolves it as far
    /// as it exists (each symbolic link followed before a ".." after it); the rest, not there yet, is
    /// taken as written.
    package static func canonical(_ path: String) -> String {
        var resolved = "/"
        var missing: [Substring] = []
        for component in absolute(path).split(separator: "/") where component != "." {
            if !missing.isEmpty {
                if component == ".." { missing.removeLast() } else { missing.append(component) }
            } else if component == ".." {
                resolved = parent(of: resolved)
            } else if let real = realpath((resolved == "/" ? "" : resolved) + "/" + component, nil) {
                resolved = String(cString: real)
                free(real)
            } else {
                missing.append(component)
            }
        }
        guard !missing.isEmpty else { return resolved }
        return (resolved == "/" ? "" : resolved) + "/" + missing.joined(separator: "/")
    }

    /// The entries of a folder (names only, no "." or ".."), sorted.
    package static func list(_ path: String) -> [String] {
        LockFiles.list(path).sorted()
    }

    static func errorText() -> String {
        SystemError.reason(errno)
    }

    /// Why `path` could not be opened for reading (`errno`), said so that a person knows what to fix.
    static func openFailure(_ path: String, errno code: Int32, followingLinks: Bool) -> String {
        switch code {
        case ELOOP where !followingLinks:
            return "\(path) is a symbolic link, which is not followed here; put a regular file there"
        case EACCES:
            return
                "cannot read \(path): permission denied; let yourself read it (`chmod u+r \(ShellWord.quoted(path))`)"
        default:
            return "cannot read \(path): \(SystemError.reason(code))"
        }
    }

    /// Whether `path` (links followed) is a pipe (a FIFO, `/dev/fd/N` of a shell's `<(…)`).
    package static func isPipe(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }

    /// "a folder", "a FIFO" … for a file mode that is not a regular file's.
    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFLNK: return "a symbolic link"
        default: return "not a file"
        }
    }
}

extension FileSystem {
    /// Creates a new private folder under /tmp (or `$TMPDIR`) whose name starts with `prefix`.
    package static func makeTemporaryDirectory(prefix: String) throws(StoreError) -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/\(prefix)XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return mkdtemp(start) != nil
        }
        guard made else { throw StoreError(.io, "cannot create a temporary folder in \(base): \(errorText())") }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The absolute path of the running executable, if the system says.
    package static func executablePath() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBufferPointer { raw -> Int in
            raw.withMemoryRebound(to: CChar.self) { chars -> Int in
                guard let start = chars.baseAddress else { return -1 }
                return readlink("/proc/self/exe", start, chars.count - 1)
            }
        }
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Undoes what a command made at `path`: the folder itself when it did not exist before
    /// (`entriesBefore` nil), else the entries in it that were not among `entriesBefore`.
    static func removeCreated(at path: String, entriesBefore: Set<String>?) {
        guard let entriesBefore else { return removeTree(path) }
        for entry in list(path) where !entriesBefore.contains(entry) { removeTree("\(path)/\(entry)") }
    }

    /// Removes a file or a folder with everything in it, never following symbolic links.
    package static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in list(path) { removeTree("\(path)/\(name)") }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
