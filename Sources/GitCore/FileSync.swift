import CGit2
import Glibc

/// Flushing many written files at once.
public enum FileSync {
    /// Flushes every pending write of the file system holding `folder` (`syncfs`): one call where a
    /// bulk write would otherwise fsync each file. Returns errno on failure, 0 on success.
    public static func syncFileSystem(holding folder: String) -> Int32 {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        return cgit2_syncfs(fd) == 0 ? 0 : errno
    }
}
