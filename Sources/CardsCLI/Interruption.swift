import Glibc

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP caught while a command does what it can undo, such as a clone:
/// the first one is noted for the command to stop at its next step, undo its work and die of that
/// signal; a second one kills at once, as the default would. A signal the process was started with
/// ignored (`nohup`, a background job of a script) stays ignored.
enum Interruption {
    /// The signal caught, or 0. A plain global read and written by a signal handler (no lock can be taken there).
    nonisolated(unsafe) static var caught: Int32 = 0
    /// The actions in place before `begin()`, put back by `end()`.
    nonisolated(unsafe) static var previous: [Int32: sigaction] = [:]

    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// How many `begin()`s are not yet ended: a command run inside another (the demo's clone) leaves
    /// the outer one's catching and its signal to it.
    nonisolated(unsafe) static var depth = 0

    /// Catches the signals until `end()`.
    static func begin() {
        depth += 1
        guard depth == 1 else { return }
        caught = 0
        previous = [:]
        for number in signals {
            var old = sigaction()
            guard sigaction(number, nil, &old) == 0 else { continue }
            previous[number] = old
            // SIG_IGN is the handler whose address is 1 (signal.h).
            if let handler = old.__sigaction_handler.sa_handler, unsafeBitCast(handler, to: Int.self) == 1 { continue }
            var action = sigaction()
            sigemptyset(&action.sa_mask)
            // No SA_RESTART: a read waiting on a stalled remote returns, and the transfer sees the flag.
            // SA_RESETHAND: the next one is not caught, so a second Ctrl-C stops everything at once.
            action.sa_flags = Int32(bitPattern: UInt32(SA_RESETHAND))
            action.__sigaction_handler.sa_handler = { number in Interruption.caught = number }
            _ = sigaction(number, &action, nil)
        }
    }

    /// Whether a signal was caught since `begin()`.
    static var isInterrupted: Bool { caught != 0 }

    /// Puts back the actions from before `begin()`. When a signal was caught and the command stopped for
    /// it (`stopped`), dies of it, so that the shell sees what happened; one that came after the work was
    /// done is let go.
    static func end(stopped: Bool) {
        depth = max(0, depth - 1)
        guard depth == 0 else { return }
        for (number, old) in previous {
            var action = old
            _ = sigaction(number, &action, nil)
        }
        if stopped && caught != 0 {
            _ = signal(caught, SIG_DFL)
            _ = raise(caught)
        }
    }
}
