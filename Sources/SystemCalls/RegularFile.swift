import Glibc

/// Opening the small files of the pack folder's bookkeeping safely: never through a symbolic link,
/// never blocking on a FIFO, and only a regular file (a deck can come from an archive or a stranger).
package enum RegularFile {
    /// A descriptor for the regular file at `path`, or -1 with `errno` set.
    package static func open(_ path: String, flags: Int32) -> Int32 {
        let descriptor = Glibc.open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return -1 }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            errno = EINVAL
            return -1
        }
        return descriptor
    }
}
