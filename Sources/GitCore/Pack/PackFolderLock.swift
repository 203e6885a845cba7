import Glibc
import SystemCalls

/// An exclusive `flock` on `<common git folder>/cards-pack.lock`, held while packs are named,
/// combined or removed.
///
/// The deck lock is per worktree (each linked worktree has its own git folder), but every worktree
/// shares `objects/pack` and the marker: without this lock, a command in one worktree could remove
/// as orphaned the pack another is between naming and indexing, or combine packs another is writing.
package final class PackFolderLock {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// The lock file of the pack folder `packFolder` (`…/objects/pack`).
    static func path(packFolder: String) -> String {
        packFolder + "/../../cards-pack.lock"
    }

    /// Waits for the lock, up to `timeout` seconds (it is held for a few renames, or while a few small
    /// packs are combined); an error names the lock file after that.
    package static func acquire(packFolder: String, timeout: Double = 30) throws(GitError) -> PackFolderLock {
        let lockPath = path(packFolder: packFolder)
        let descriptor = try openLockFile(lockPath)
        let start = MonotonicClock.now()
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let number = errno
                close(descriptor)
                throw GitError(
                    code: .system(number), message: "cannot lock \(lockPath): \(SystemError.reason(number))",
                    function: "flock")
            }
            if MonotonicClock.now() - start > timeout {
                close(descriptor)
                throw GitError(
                    code: .locked,
                    message: "\(lockPath) has been held for \(Int(timeout)) s by "
                        + "\(LockFiles.flockHolder(of: lockPath)?.description ?? "another process") writing packs; "
                        + "try again once it has finished", function: "flock")
            }
            usleep(2_000)
        }
        return PackFolderLock(descriptor: descriptor)
    }

    /// The lock if no other process holds it, else nil (for clean-ups that can wait for a next time).
    package static func acquireIfFree(packFolder: String) -> PackFolderLock? {
        guard let descriptor = try? openLockFile(path(packFolder: packFolder)) else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return PackFolderLock(descriptor: descriptor)
    }

    private static func openLockFile(_ lockPath: String) throws(GitError) -> Int32 {
        // Never through a link, never blocking on a FIFO; only a regular file (`LockFiles.openLock`).
        let descriptor = LockFiles.openLock(lockPath).descriptor
        guard descriptor >= 0 else {
            throw GitError(
                code: .system(errno),
                message: "cannot open \(lockPath): \(SystemError.reason(errno)) (remove it if it is not a file)",
                function: "open")
        }
        return descriptor
    }
}
