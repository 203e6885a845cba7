import Glibc

/// Seconds on the monotonic clock, as a `Double`: the time base of lock waits, transfer timeouts, the
/// swipe session and the gesture engine. Only differences between two readings mean anything.
package enum MonotonicClock {
    /// The clock's reading now, in seconds.
    package static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
