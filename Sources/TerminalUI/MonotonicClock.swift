import Glibc

/// Seconds on the monotonic clock: the session's and the gesture engine's time base.
enum MonotonicClock {
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
