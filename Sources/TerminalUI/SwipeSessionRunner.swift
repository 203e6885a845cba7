import Glibc
import SwipeEngine
import SystemCalls

/// Runs the interactive swipe session on a terminal: raw mode, the event loop, and the terminal put back on
/// quit, Ctrl-C, SIGTERM and errors.
public enum SwipeSessionRunner {
    /// Seconds a lone Esc waits for the rest of a sequence before it counts as the Esc key (and a
    /// sequence cut off is dropped): vim's `ttimeoutlen`, long enough for a sequence split by a slow
    /// ssh link, short enough that Esc still feels immediate.
    static let escapeTimeout = 0.1
    /// Milliseconds between animation frames.
    static let frameInterval: Int32 = 16

    /// Runs the session until the user quits; the deck's deletes and restores happen as the user swipes.
    ///
    /// - Parameters:
    ///   - deck: the cards; left swipes delete through it, undo restores through it.
    ///   - preset: the gesture parameters (`stack` by default).
    ///   - input: the terminal's input descriptor (standard input by default).
    ///   - output: the terminal's output descriptor (standard output by default).
    /// - Throws: `TerminalError.notATerminal` (its message points to the scripted `cards swipe ID --drag …`
    ///   form) when either descriptor is not a terminal, or a system-call error; the terminal is restored first.
    public static func run<Deck: SwipeDeck>(
        deck: inout Deck, preset: SwipeConfiguration = .stack, input: Int32 = STDIN_FILENO,
        output: Int32 = STDOUT_FILENO
    ) throws {
        let terminal = try RawTerminal(input: input, output: output)
        defer { terminal.restore() }
        var session = SwipeSession(
            deck: deck, configuration: preset, size: terminal.size() ?? TerminalSize(columns: 80, rows: 24))
        defer { deck = session.deck }
        // NO_COLOR (no-color.org): any value, even empty, turns colour off.
        var renderer = ScreenRenderer(
            monochrome: getenv("NO_COLOR") != nil,
            colorDepth: ColorDepth.announced(
                colorTerm: getenv("COLORTERM").map { String(cString: $0) },
                term: getenv("TERM").map { String(cString: $0) }
            ))
        var parser = InputParser()
        var lastByteTime = MonotonicClock.now()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if RawTerminal.takeResize(), let size = terminal.size() {
                session.resize(to: size)
                renderer.invalidate()
            }
            session.tick(at: MonotonicClock.now())
            let bytes = renderer.render(session.render())
            if !bytes.isEmpty { try RawTerminal.writeAll(output, bytes) }
            if session.isFinished { return }

            let timeout: Int32 =
                session.isAnimating ? frameInterval : parser.hasPendingInput ? Int32(escapeTimeout * 1000) : 1000
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, timeout)
            if ready < 0 {
                if errno == EINTR {
                    // SIGWINCH: redraw at the new size; SIGTSTP: take the terminal again if no stop came.
                    TerminalRestoreState.resumeIfStopDiscarded()
                    continue
                }
                throw RawTerminal.systemError("poll")
            }
            let now = MonotonicClock.now()
            if ready > 0 {
                let count = read(input, &buffer, buffer.count)
                if count < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw RawTerminal.systemError("read")
                }
                if count == 0 { return }  // the terminal went away
                lastByteTime = now
                for event in parser.feed(buffer[0..<count]) { session.handle(event, at: now) }
            } else if parser.hasPendingInput, now - lastByteTime >= escapeTimeout {
                for event in parser.flush() { session.handle(event, at: now) }
            }
        }
    }
}
