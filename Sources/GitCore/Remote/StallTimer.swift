import CLinux
import Glibc

#if CARDS_STATIC_LINK
    import CLazySSH2
#endif

/// `CARDS_NETWORK_TIMEOUT` for a server that accepts the connection and then sends nothing: libgit2 1.5
/// has no network timeout, and our callbacks only run as data moves. A timer sends SIGALRM to the thread
/// that runs the transfer once the time is up (and every half second after), with a handler installed
/// without `SA_RESTART`, so that the read it is blocked in returns and libgit2 fails the transfer; the
/// caller then says it gave up. Only while a transfer with a timeout runs.
enum StallTimer {
    /// Set by the handler. A plain global (no lock can be taken in a signal handler).
    nonisolated(unsafe) static var fired: Int32 = 0

    /// Runs `body` with the timer armed for `seconds`; returns its result and whether the time ran out.
    static func run(after seconds: Double, _ body: () -> Int32) -> (result: Int32, timedOut: Bool) {
        fired = 0
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        action.__sigaction_handler.sa_handler = { _ in
            StallTimer.fired = 1
            cards_ssh2_set_stalled(1)
        }
        var previous = sigaction()
        guard sigaction(SIGALRM, &action, &previous) == 0 else { return (body(), false) }
        // A parent may have started this process with SIGALRM blocked (a test runner's thread does): it
        // must reach this thread. Put back after the timer is gone, so none is left pending.
        var alarm = sigset_t()
        sigemptyset(&alarm)
        sigaddset(&alarm, SIGALRM)
        var mask = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &alarm, &mask)
        var timer: timer_t?
        let armed = clinux_thread_timer_start(&timer, SIGALRM, max(seconds, 0.001), 0.5) == 0
        let result = body()
        if armed, let timer { timer_delete(timer) }
        pthread_sigmask(SIG_SETMASK, &mask, nil)
        _ = sigaction(SIGALRM, &previous, nil)
        cards_ssh2_set_stalled(0)
        return (result, fired != 0)
    }
}
