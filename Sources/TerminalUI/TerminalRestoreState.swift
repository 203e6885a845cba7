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
    /// The session's raw settings and the bytes that enter its screen modes, to take the terminal back
    /// after a stop (Ctrl-Z from a shell, SIGTSTP).
    nonisolated(unsafe) static var rawSettings = termios()
    nonisolated(unsafe) static var enterBytes: UnsafeMutablePointer<UInt8>?
    nonisolated(unsafe) static var enterCount = 0
    /// Set while stopped with the terminal given back: SIGCONT takes it again.
    nonisolated(unsafe) static var suspended: Int32 = 0

    /// Signals whose default action ends the process: the terminal is put back first (a runtime trap,
    /// SIGABRT, SIGQUIT, a stray SIGUSR1 or SIGALRM included), then the signal is raised again with its
    /// default action. One the process started with ignored (`nohup`, a script's background job) stays
    /// ignored, as the other commands keep it.
    static let fatalSignals = [
        SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGUSR1, SIGUSR2,
        SIGALRM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGPWR, SIGSYS, SIGIO,
    ]

    /// Whether `signalNumber` is ignored now (SIG_IGN, inherited from the parent).
    static func isIgnored(_ signalNumber: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(signalNumber, nil, &current) == 0, let handler = current.__sigaction_handler.sa_handler
        else { return false }
        return unsafeBitCast(handler, to: Int.self) == 1
    }

    /// SIGTSTP: gives the terminal back, then stops with the default action once the handler returns
    /// (the signal is blocked while it runs).
    static let suspendHandler: @convention(c) (Int32) -> Void = { _ in
        let wasActive = TerminalRestoreState.active
        TerminalRestoreState.restore()
        TerminalRestoreState.suspended = wasActive
        _ = signal(SIGTSTP, SIG_DFL)
        _ = raise(SIGTSTP)
    }

    /// SIGCONT: after a stop, takes the terminal again and asks for a full redraw.
    static let continueHandler: @convention(c) (Int32) -> Void = { _ in
        _ = signal(SIGTSTP, TerminalRestoreState.suspendHandler)
        guard TerminalRestoreState.suspended != 0 else { return }
        TerminalRestoreState.suspended = 0
        if TerminalRestoreState.inputDescriptor >= 0 {
            _ = tcsetattr(TerminalRestoreState.inputDescriptor, TCSANOW, &TerminalRestoreState.rawSettings)
        }
        if let bytes = TerminalRestoreState.enterBytes, TerminalRestoreState.outputDescriptor >= 0 {
            _ = write(TerminalRestoreState.outputDescriptor, bytes, TerminalRestoreState.enterCount)
        }
        TerminalRestoreState.active = 1
        TerminalRestoreState.resizePending = 1
    }

    /// Takes the terminal again when a stop was asked for and never happened: the kernel discards it for
    /// an orphaned process group (a session led by a shell without job control: `ssh host cards swipe`,
    /// `script -c`, setsid) and for a container's first process, so no SIGCONT comes. Called by the
    /// event loop after a signal woke it (by then a stop that happens has happened: the signal is taken
    /// on the handler's return).
    static func resumeIfStopDiscarded() {
        guard suspended != 0 else { return }
        continueHandler(SIGCONT)
    }

    /// Restores the terminal if raw mode is active; safe to call from a signal handler and more than once.
    static func restore() {
        guard active != 0 else { return }
        active = 0
        if let bytes = leaveBytes, outputDescriptor >= 0 { _ = write(outputDescriptor, bytes, leaveCount) }
        if inputDescriptor >= 0 { _ = tcsetattr(inputDescriptor, TCSAFLUSH, &savedSettings) }
    }

    /// Installs handlers that restore then re-raise (`fatalSignals`), give the terminal back on a stop and
    /// take it again on continue, a SIGWINCH flag, and an `atexit` restore.
    static func installHandlers() {
        guard !handlersInstalled else { return }
        handlersInstalled = true
        let fatal: @convention(c) (Int32) -> Void = { signalNumber in
            TerminalRestoreState.restore()
            // Die of the same signal, so the parent shell sees what happened.
            _ = signal(signalNumber, SIG_DFL)
            _ = raise(signalNumber)
        }
        for signalNumber in fatalSignals where !isIgnored(signalNumber) { _ = signal(signalNumber, fatal) }
        _ = signal(SIGTSTP, suspendHandler)
        _ = signal(SIGCONT, continueHandler)
        _ = signal(SIGWINCH) { _ in TerminalRestoreState.resizePending = 1 }
        // Blocked signals are inherited through exec: a launcher that left these blocked (the test
        // runner does, through tmux and bash, which unlike dash does not clear the mask) would leave a
        // stop, a resize or a kill pending, never handled.
        var handled = sigset_t()
        sigemptyset(&handled)
        for signalNumber in fatalSignals + [SIGTSTP, SIGCONT, SIGWINCH] { sigaddset(&handled, signalNumber) }
        _ = pthread_sigmask(SIG_UNBLOCK, &handled, nil)
        _ = atexit { TerminalRestoreState.restore() }
    }
}
