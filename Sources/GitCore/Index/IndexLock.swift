import Glibc
import SystemCalls

/// git's `index.lock`, held by this process: created exclusively, as git does, and kept while a
/// commit of ours brings the index along and then moves `main`.
///
/// `git commit` reads `HEAD`, then the index (without the lock), then takes this lock, commits what
/// it read and moves the branch only if it is still the `HEAD` it read. So the index is changed
/// first and `main` moved after, under the lock: a `git commit` that read `main` after it moved read
/// an index that already had our change, and one that read it before finds the branch moved, or
/// the lock taken, and fails; it can never put an index without our change on top of our commit.
package final class IndexLock {
    /// The lock file's path (`<index>.lock`).
    package let path: String
    /// The lock file, open for writing: a new index can be written into it and renamed over the index.
    let descriptor: Int32
    private var held = true

    /// Takes the lock of the index at `indexPath`: `.locked` when another process holds it.
    package init(indexPath: String) throws(GitError) {
        path = indexPath + ".lock"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            if errno == EEXIST {
                throw GitError(
                    code: .locked, message: "\(path) exists: another git process is writing the index",
                    function: "IndexLock")
            }
            throw GitError(
                code: .system(errno), message: "cannot create \(path): \(SystemError.reason(errno))",
                function: "IndexLock")
        }
        descriptor = fd
    }

    /// Whether this process still holds the lock.
    package var isHeld: Bool { held }

    /// Where a new index is written while the lock is held by a caller that keeps holding it.
    package static func newIndexPath(for indexPath: String) -> String { indexPath + ".cards-new" }

    /// The files a writer killed while holding the lock can leave beside the index at `indexPath`: the new
    /// index and libgit2's lock on it.
    package static func leftovers(of indexPath: String) -> [String] {
        [newIndexPath(for: indexPath), newIndexPath(for: indexPath) + ".lock"]
    }

    /// Gives the lock up: the lock file closed and removed. Idempotent.
    package func release() {
        guard held else { return }
        held = false
        close(descriptor)
        unlink(path)
    }

    /// The lock file became the index (renamed over it): closed, with nothing left to remove.
    func renamedOverIndex() {
        guard held else { return }
        held = false
        close(descriptor)
    }

    deinit {
        release()
    }
}
