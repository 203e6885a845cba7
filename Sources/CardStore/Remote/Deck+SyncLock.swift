import GitCore
import Glibc
import SystemCalls

/// Syncs of one deck take turns (`.git/cards-sync.lock`, flock), so two never race on the
/// remote-tracking ref. Local writes keep their own lock and go on during a sync's network time.
/// Under this lock a lock file that only a fetch writes (`refs/remotes/…/*.lock`, `FETCH_HEAD.lock`)
/// and that no process has open was left by a killed sync: it is removed once it is a second old, so
/// the next sync works without `cards fsck --repair`.
extension Deck {
    /// How old a fetch's lock file with no process holding it must be before a sync removes it.
    static let staleFetchLockAge = 1.0

    /// Takes the sync lock and clears what a killed sync left; keep the result alive for the sync.
    func acquireSyncLock() throws(StoreError) -> AnyObject {
        let lock = try DeckLock(path: "\(gitDirectory)/cards-sync.lock", timeout: lockTimeout)
        let deadline = MonotonicClock.now() + lockTimeout
        for path in fetchLockFiles() {
            // One held open by a live git fetch: wait for it (bounded); the fetch then reports it if it stays.
            while !LockFiles.clearIfAbandoned(path, age: Deck.staleFetchLockAge) && MonotonicClock.now() < deadline {
                Deck.pause(milliseconds: 50)
            }
        }
        return lock
    }

    /// The lock files a fetch may leave: under `refs/remotes/`, and `FETCH_HEAD.lock`.
    func fetchLockFiles() -> [String] {
        var found: [String] = []
        func walk(_ folder: String) {
            for name in FileSystem.list(folder) {
                let path = "\(folder)/\(name)"
                if name.hasSuffix(".lock") {
                    found.append(path)
                } else if FileSystem.isDirectory(path) {
                    walk(path)
                }
            }
        }
        walk("\(gitDirectory)/refs/remotes")
        if FileSystem.exists("\(gitDirectory)/FETCH_HEAD.lock") { found.append("\(gitDirectory)/FETCH_HEAD.lock") }
        return found
    }
}
