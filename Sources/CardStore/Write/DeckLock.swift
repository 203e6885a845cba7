import GitCore
import Glibc
import Synchronization
import SystemCalls

/// An exclusive, process-wide lock on a deck's working tree and index (`.git/cards.lock`, flock).
/// The kernel drops it when the holder dies, so a killed process never leaves it stuck.
final class DeckLock {
    private let descriptor: Int32

    /// Waits up to `timeout` seconds for the lock, then fails naming the lock file and its holder.
    /// `shared`: held beside other shared holders, never beside the one writer (a reader waiting out a
    /// write); a shared holder leaves the holder's record alone.
    init(path: String, timeout: Double, shared: Bool = false) throws(StoreError) {
        let (fd, writable) = LockFiles.openLock(path)
        guard fd >= 0 else {
            throw StoreError(.io, "cannot open the deck lock \(path): \(SystemError.reason(errno))")
        }
        let started = MonotonicClock.now()
        let deadline = started + timeout
        var delay: UInt32 = 1_000
        var told = false
        while flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0 {
            if errno != EWOULDBLOCK && errno != EINTR {
                close(fd)
                throw StoreError(.io, "cannot lock \(path): \(SystemError.reason(errno))")
            }
            // The live holder (`/proc/locks`), else the pid its record names while that one runs.
            func holder() -> String { LockFiles.flockHolder(of: path).map(\.description) ?? DeckLock.holder(fd: fd) }
            if !told, let notice = Deck.lockWaitNotice, MonotonicClock.now() - started >= Deck.lockWaitNoticeDelay,
                timeout > Deck.lockWaitNoticeDelay
            {
                told = true
                notice(
                    "waiting for \(holder()), which holds the deck (lock file \(path)), for up to \(Int(timeout)) s; "
                        + "a stopped process (Ctrl-Z) holds it until it goes on (`fg`) or ends")
            }
            if MonotonicClock.now() >= deadline {
                let holder = holder()
                close(fd)
                throw StoreError(
                    .locked,
                    "the deck is locked by \(holder) (lock file \(path)) for more than \(Int(timeout)) s; "
                        + "wait for it to finish, or stop that process")
            }
            usleep(delay)
            delay = min(delay * 2, 50_000)
        }
        descriptor = fd
        // A lock file this user may not write (another user's) locks all the same, without a record.
        if shared || !writable { return }
        // Record who holds it, so a waiting process can name us: written over the last holder's record,
        // not cut to nothing first (only a file longer than a record is cut, to a record's length).
        // Cutting a file with data to nothing makes ext4 write the next data out when the file is
        // closed (its guard for replace-by-truncate), and cutting it again waits for that write:
        // ~0.2 ms of each command on a disk mounted with `discard`.
        let record = DeckLock.record(pid: getpid())
        var info = stat()
        if fstat(fd, &info) == 0 && Int(info.st_size) > record.count { _ = ftruncate(fd, off_t(record.count)) }
        _ = record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// The holder's record: `pid <n>` padded with spaces to one length (`recordLength`), so that the
    /// next holder's record covers it whole.
    static func record(pid: Int32) -> [UInt8] {
        let text = Array("pid \(pid)".utf8)
        return text + [UInt8](repeating: UInt8(ascii: " "), count: max(0, recordLength - 1 - text.count)) + [0x0A]
    }

    /// The bytes of a record: room for any pid (at most 2^22 on Linux, 7 digits) and then some.
    static let recordLength = 24

    private static func holder(fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = pread(fd, &buffer, 63, 0)
        guard count > 0 else { return "another process" }
        let digits = buffer[0..<count].filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        // The pid a holder recorded may be an earlier, finished holder's: name it only while it lives.
        guard let pid = Int32(String(decoding: digits, as: UTF8.self)), LockFiles.isAlive(pid) else {
            return "another process"
        }
        return "process \(pid)"
    }
}

extension Deck {
    /// Called once when a command has waited `lockWaitNoticeDelay` for another process's deck lock,
    /// with words for a person (who holds it, for how long the command waits); nil: nothing is said.
    /// The `cards` command line sets it to print on a terminal's standard error. Process-wide; safe to
    /// set and read from any thread.
    public static var lockWaitNotice: (@Sendable (String) -> Void)? {
        get { lockWaitNoticeStore.withLock { $0 } }
        set { lockWaitNoticeStore.withLock { $0 = newValue } }
    }

    private static let lockWaitNoticeStore = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// How long a command waits for the deck lock before `lockWaitNotice` is called, in seconds.
    package static let lockWaitNoticeDelay = 1.0
}
