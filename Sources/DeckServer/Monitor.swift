import GitCore
import Glibc
import SystemCalls

/// A mutex and a condition variable that wait on the monotonic clock: what the server's threads share
/// (the deck, the change counter), and what a waiting event stream sleeps on.
///
/// Not `Synchronization.Mutex`: an event stream must wait for a change with a timeout, which needs a
/// condition variable beside the lock.
final class Monitor: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // The wall clock can jump (NTP, a suspended laptop): a timed wait measures elapsed time.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// With the lock held (inside `locked`): releases it until `broadcast` or `seconds` pass, then retakes it.
    func wait(seconds: Double) {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let whole = Int(seconds)
        deadline.tv_sec += whole
        deadline.tv_nsec += Int((seconds - Double(whole)) * 1e9)
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        _ = pthread_cond_timedwait(condition, mutex, &deadline)
    }

    /// Wakes every waiter (call with the lock held).
    func broadcast() {
        pthread_cond_broadcast(condition)
    }
}

/// A thread running a closure, joined by `join()`.
final class WorkerThread: @unchecked Sendable {
    private var thread = pthread_t()
    private var started = false

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () -> Void) throws(ServeError) {
        guard let thread = Background.start(body) else {
            throw ServeError("could not start a thread; free some memory or processes and try again")
        }
        self.thread = thread
        started = true
    }

    /// Waits for the closure to return.
    func join() {
        guard started else { return }
        started = false
        pthread_join(thread, nil)
    }
}
