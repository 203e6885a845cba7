import Glibc

/// A failed Linux call: its errno, the call, and the path it was made on. Each layer wraps it in its own
/// error (`GitError`, `StoreError`, `TerminalError`) with the words that say what was being done; the
/// system's reason is put in words here only (`reason`), so every message says it the same way.
package struct SystemError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The errno the call set.
    package var code: Int32
    /// The call that failed (`open`, `write`, `flock`…).
    package var call: String
    /// The file or folder it was made on; "" when it was made on a descriptor whose path is not known.
    package var path: String

    /// The failure of `call` on `path`, with `code` (by default the errno the call just set).
    package init(_ call: String, path: String = "", code: Int32 = errno) {
        self.code = code
        self.call = call
        self.path = path
    }

    /// The system's words for `code` ("No such file or directory").
    package var reason: String { Self.reason(code) }

    /// "open cards/ab/x.json: No such file or directory" (the call alone when there is no path).
    package var description: String { path.isEmpty ? "\(call): \(reason)" : "\(call) \(path): \(reason)" }

    /// The system's words for the errno `code`, or "error <code>" when it has none.
    package static func reason(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}
