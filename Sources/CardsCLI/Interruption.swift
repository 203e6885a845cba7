import Glibc

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP caught while a command does what it can undo, such as a clone:
/// the first one is noted for the command to stop at its next step, undo its work and die of that
/// signal; a second one kills at once, as the default would.
enum Interruption {
    /// The signal caught, or 0. A plain global read and written by a signal handler (no lock can be taken there).
    nonisolated(unsafe) static var caught: Int32 = 0

    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Catches the signals until `end()`.
    static func begin() {
        caught = 0
        for number in signals {
            _ = signal(number) { number in
                Interruption.caught = number
                // The next one is not caught: a second Ctrl-C stops everything at once.
                for other in Interruption.signals { _ = signal(other, SIG_DFL) }
            }
        }
    }

    /// Whether a signal was caught since `begin()`.
    static var isInterrupted: Bool { caught != 0 }

    /// Stops catching. When a signal was caught and the command stopped for it (`stopped`), dies of it,
    /// so that the shell sees what happened; one that came after the work was done is let go.
    static func end(stopped: Bool) {
        for number in signals { _ = signal(number, SIG_DFL) }
        if stopped && caught != 0 { _ = raise(caught) }
    }
}
