import Glibc

/// What a signal handler or `atexit` needs to put the terminal back: the original termios and the bytes that
/// leave the alternate screen. Plain globals written before the handlers are installed, read by
/// async-signal-safe code only (`write`, `tcsetattr`); `nonisolated(unsafe)` because a signal handler cannot take
/// a lock.
enum TerminalRestoreState {
    nonisolated(unsafe) static var savedSettings = termios()
    nonisolated(unsafe) static var inputDescriptor: Int32 = -1
    nonisolated(unsafe) static var outputDescriptor: Int32 = -1
    nonisolated(unsafe) static var active: Int32 = 0
    nonisolated(unsafe) static var leaveBytes: UnsafeMutablePointer<UInt8>?
    nonisolated(unsafe) static var leaveCount = 0
    nonisolated(unsafe) static var resizePending: Int32 = 0
    nonisolated(unsafe) static var handlersInstalled = false

    /// Restores the terminal if raw mode is active; safe to call from a signal handler and more than once.
    static func restore() {
        guard active != 0 else { return }
        active = 0
        if let bytes = leaveBytes, outputDescriptor >= 0 { _ = write(outputDescriptor, bytes, leaveCount) }
        if inputDescriptor >= 0 { _ = tcsetattr(inputDescriptor, TCSAFLUSH, &savedSettings) }
    }

    /// Installs SIGINT/SIGTERM handlers that restore then re-raise, a SIGWINCH flag, and an `atexit` restore.
    static func installHandlers() {
        guard !handlersInstalled else { return }
        handlersInstalled = true
        let fatal: @convention(c) (Int32) -> Void = { signalNumber in
            TerminalRestoreState.restore()
            // Die of the same signal, so the parent shell sees what happened.
            _ = signal(signalNumber, SIG_DFL)
            _ = raise(signalNumber)
        }
        _ = signal(SIGINT, fatal)
        _ = signal(SIGTERM, fatal)
        _ = signal(SIGHUP, fatal)
        _ = signal(SIGWINCH) { _ in TerminalRestoreState.resizePending = 1 }
        _ = atexit { TerminalRestoreState.restore() }
    }
}
