import Glibc

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

    /// Writes a result line (or bytes) to standard output.
    func print(_ text: String, terminator: String = "\n") {
        write(Array((text + terminator).utf8), to: 1)
    }

    /// Writes raw bytes to standard output.
    func write(_ bytes: [UInt8]) {
        write(bytes, to: 1)
    }

    /// Writes a message line to standard error.
    func error(_ text: String) {
        write(Array((text + "\n").utf8), to: 2)
    }

    private func write(_ bytes: [UInt8], to fd: Int32) {
        if capture {
            if fd == 1 { standardOutput += bytes } else { standardError += bytes }
            return
        }
        if fd == 1 && standardOutputFailure != nil { return }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                // A closed pipe (`cards list | head`): stop writing quietly. Anything else (a full disk
                // under `cards export > backup.json`) must not end as a success with the file cut short.
                let failure = count < 0 ? errno : ENOSPC
                if fd == 1 && failure != EPIPE { standardOutputFailure = failure }
                return
            }
            offset += count
        }
    }

    /// Whether a file descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
