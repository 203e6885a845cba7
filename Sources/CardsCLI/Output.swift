import CardModel
import Glibc
import SystemCalls

/// Where a command writes: standard output for results, standard error for messages.
/// Tests swap in a capturing sink.
final class Output {
    private(set) var standardOutput: [UInt8] = []
    private(set) var standardError: [UInt8] = []
    private let capture: Bool
    /// Why standard output stopped taking what was written (`errno`: a full disk, a closed descriptor),
    /// or nil; a closed pipe (`cards list | head`) is not a failure. Nothing more is written after one.
    private(set) var standardOutputFailure: Int32?

    init(capture: Bool, standardOutputClosed: Bool = false) {
        self.capture = capture
        if standardOutputClosed { standardOutputFailure = EBADF }
    }

    /// Writes a result line to standard output, its control characters shown (`visible`).
    func print(_ text: String, terminator: String = "\n") {
        write(Array((Output.visible(text) + terminator).utf8), to: 1)
    }

    /// Writes raw bytes to standard output.
    func write(_ bytes: [UInt8]) {
        write(bytes, to: 1)
    }

    /// Writes a message line to standard error, its control characters shown (`visible`).
    func error(_ text: String) {
        write(Array((Output.visible(text) + "\n").utf8), to: 2)
    }

    /// `text` with every control character but newline and tab shown as `\x1B` (C0, DEL and C1):
    /// lines quote commit subjects, file names and messages that may come from a remote, and an
    /// escape sequence in one must not reach the terminal (recolour it, set its title, write the
    /// clipboard, move the cursor over earlier lines). Card fields never hold any (`Card.isControl`).
    static func visible(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }),
            text.unicodeScalars.contains(where: isHidden)
        else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isHidden(scalar) else {
                shown.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            shown.append(contentsOf: ("\\x" + (hex.count < 2 ? "0" : "") + hex).unicodeScalars)
        }
        return String(shown)
    }

    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        Card.isControl(scalar) && scalar != "\n" && scalar != "\t"
    }

    private func write(_ bytes: [UInt8], to fd: Int32) {
        if capture {
            if fd == 1 { standardOutput += bytes } else { standardError += bytes }
            return
        }
        if fd == 1 && standardOutputFailure != nil { return }
        do throws(SystemError) {
            try FileDescriptor(fd).writeAll(bytes)
        } catch {
            // A closed pipe (`cards list | head`): stop writing quietly. Anything else (a full disk
            // under `cards export > backup.json`) must not end as a success with the file cut short.
            if fd == 1 && error.code != EPIPE { standardOutputFailure = error.code }
        }
    }

    /// Whether a file descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
