import Glibc
import SystemCalls

/// Owns the terminal while the interactive session runs: raw mode, the alternate screen, a hidden cursor and
/// mouse reporting. The exact original termios is saved and put back by `restore()`, by `deinit`, at exit, on
/// every signal that ends the process (the handler restores, then re-raises it), and for a stop (Ctrl-Z from
/// a shell: taken again on continue).
public final class RawTerminal {
    /// The descriptor input is read from.
    public let input: Int32
    /// The descriptor output is written to.
    public let output: Int32
    private var restored = false

    /// Enters raw mode and the session's screen modes.
    /// - Throws: `TerminalError.notATerminal` when either descriptor is not a terminal, or a system-call error.
    public init(input: Int32, output: Int32) throws {
        guard isatty(input) == 1, isatty(output) == 1 else { throw TerminalError.notATerminal }
        self.input = input
        self.output = output
        var original = termios()
        guard tcgetattr(input, &original) == 0 else { throw Self.systemError("tcgetattr") }
        var raw = original
        cfmakeraw(&raw)
        // Blocking reads of at least one byte; the event loop polls first, so reads never wait.
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // Copied where a signal handler can write them without touching Swift objects.
        TerminalRestoreState.leaveBytes?.deallocate()
        (TerminalRestoreState.leaveBytes, TerminalRestoreState.leaveCount) = Self.pinned(TerminalModes.leaveAll)
        TerminalRestoreState.enterBytes?.deallocate()
        (TerminalRestoreState.enterBytes, TerminalRestoreState.enterCount) = Self.pinned(TerminalModes.enterAll)
        TerminalRestoreState.rawSettings = raw
        TerminalRestoreState.savedSettings = original
        TerminalRestoreState.inputDescriptor = input
        TerminalRestoreState.outputDescriptor = output
        TerminalRestoreState.installHandlers()
        // TCSANOW keeps keys typed ahead of the session; the restore flushes, so stray mouse reports never reach the shell.
        guard tcsetattr(input, TCSANOW, &raw) == 0 else { throw Self.systemError("tcsetattr") }
        TerminalRestoreState.active = 1
        do {
            try Self.writeAll(output, Array(TerminalModes.enterAll.utf8))
        } catch {
            TerminalRestoreState.restore()
            throw error
        }
    }

    deinit { restore() }

    /// `text`'s bytes in memory of their own (never freed while the session may need them).
    private static func pinned(_ text: String) -> (UnsafeMutablePointer<UInt8>, Int) {
        let bytes = Array(text.utf8)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        buffer.initialize(from: bytes, count: bytes.count)
        return (buffer, bytes.count)
    }

    /// Leaves the screen modes and puts the original termios back. Safe to call more than once.
    public func restore() {
        guard !restored else { return }
        restored = true
        TerminalRestoreState.restore()
    }

    /// The terminal's size from `TIOCGWINSZ`, or nil when the call fails.
    public func size() -> TerminalSize? { Self.size(of: output) }

    /// The largest screen drawn: a bigger terminal (up to 65,535 a side) is drawn in its top-left part,
    /// so a frame never needs more than this many cells.
    public static let largestSize = TerminalSize(columns: 500, rows: 250)

    /// The size of the terminal on a descriptor (at most `largestSize`), or nil.
    public static func size(of descriptor: Int32) -> TerminalSize? {
        var window = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return nil
        }
        return TerminalSize(
            columns: min(Int(window.ws_col), largestSize.columns), rows: min(Int(window.ws_row), largestSize.rows))
    }

    /// Whether a SIGWINCH arrived since the last call (clears the flag).
    public static func takeResize() -> Bool {
        guard TerminalRestoreState.resizePending != 0 else { return false }
        TerminalRestoreState.resizePending = 0
        return true
    }

    /// Writes every byte, retrying on partial writes and EINTR: one frame, one `write` in the normal case.
    public static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws {
        do {
            try FileDescriptor(descriptor).writeAll(bytes)
        } catch {
            throw systemError("write", number: error.code)
        }
    }

    static func systemError(_ call: String, number: Int32 = errno) -> TerminalError {
        let reason = SystemError.reason(number)
        return TerminalError(
            code: .systemCall, message: "terminal \(call) failed: \(reason)", errorNumber: number)
    }
}
