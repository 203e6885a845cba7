import Glibc

/// A value (an index or pack checksum) worked out on a thread of its own from the moment this
/// is made, while the caller goes on (hashing a 12 MB index while the same bytes are written out);
/// `wait` gives it. Where no thread can be started, `wait` works it out on the caller's thread.
///
/// The work must only read what the caller leaves untouched until `wait` returns.
package final class BackgroundWork<Value> {
    private let work: () -> Value
    private var result: Value?
    private var thread: pthread_t?

    /// Starts `work` on a new thread, or (`onThread` false: too little work to pay for a thread)
    /// leaves it for `wait` to do on the caller's.
    package init(onThread: Bool = true, _ work: @escaping () -> Value) {
        self.work = work
        guard onThread else { return }
        // The thread holds this object until it is done (a C thread function cannot name a generic type:
        // it runs a closure in a plain box).
        thread = Background.start { self.result = self.work() }
    }

    /// The result, once the thread is done (joined: what it wrote is seen here).
    package func wait() -> Value {
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
        if let result { return result }
        let computed = work()
        result = computed
        return computed
    }
}

/// Values whose last release is handed to another thread (`Background.release`).
package final class Leftovers {
    private let values: Any
    /// Holds `values` (a tuple of them, say) until this object goes.
    package init(_ values: Any) { self.values = values }
}

/// Work handed to other threads.
package enum Background {
    /// A closure for a thread function to run.
    private final class Job {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new joinable thread; nil (nothing started) where no thread can be.
    package static func start(_ body: @escaping () -> Void) -> pthread_t? {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Job(body)).toOpaque()
        let started = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<Job>.fromOpaque(context).takeRetainedValue().body()
                return nil
            }, context)
        guard started == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()
            return nil
        }
        return thread
    }

    /// From this many bytes on, hashing them is worth a thread of its own beside their write (an index
    /// or a pack): fewer hash in less time than a thread takes to start.
    package static let worthAThread = 256 * 1024

    /// Drops `value` on a detached thread of its own, so that whatever its last release frees (a
    /// merge's hundreds of parsed folders, the packs' mappings, whose `munmap`s each interrupt the
    /// other cores) is not freed on the caller's time. Where no thread can be started it is dropped here.
    package static func release(_ value: AnyObject) {
        let context = Unmanaged.passRetained(value).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { context in
                if let context { Unmanaged<AnyObject>.fromOpaque(context).release() }
                return nil
            }, context)
        if started != 0 { Unmanaged<AnyObject>.fromOpaque(context).release() }
    }
}
