import GitCore
import Glibc
import SystemCalls

/// One flush for all the objects of a commit: libgit2's per-object fsync (an object file and its
/// folder, ~10 fsyncs for a one-card commit, far more for a merge) is turned off while they are
/// written, then one `syncfs` makes them durable before `main` may point at them (git's
/// `core.fsyncMethod=batch` does the same). The reference update, the card file and the index keep
/// their own fsync. libgit2's switch is process-wide: the deck withdraws its claim on it
/// (`Libgit2.claimFsync`) for the write, and it stays on while another deck in the process claims it.
final class ObjectsFlush {
    /// Whether this write flushes its objects in one go (and so withdrew the deck's claim).
    private let durable: Bool
    private var restored = false

    /// From this many files on, one `syncfs` beats an fsync per object; below, the per-object fsyncs
    /// are few and cost nothing for other files' dirty data (which `syncfs` flushes too).
    static let threshold = 16

    /// A small change keeps libgit2's fsync of each object as the deck has it; a big one turns it off
    /// until `restore`.
    init(durable: Bool, files: Int) {
        self.durable = durable && files >= ObjectsFlush.threshold
        if self.durable { Libgit2.releaseFsync() }
    }

    /// Makes the objects written so far durable, and turns libgit2's fsync back on: once (objects
    /// written after it, such as a commit after its hooks, get libgit2's own fsync).
    func flush(_ gitDirectory: String) throws(StoreError) {
        guard durable, !restored else { return }
        restore()
        let failure = FileSync.syncFileSystem(holding: gitDirectory)
        if failure != 0 {
            throw StoreError(.io, "cannot flush the new objects to disk: \(SystemError.reason(failure))")
        }
    }

    /// Gives the deck its claim on libgit2's fsync back (idempotent).
    func restore() {
        guard !restored else { return }
        restored = true
        if durable { Libgit2.claimFsync() }
    }
}
