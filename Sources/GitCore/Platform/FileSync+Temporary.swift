import Glibc
import SystemCalls

extension FileSync {
    /// Writes `bytes` to a new read-only file with a unique name (`<folder>/<prefix>XXXXXX`, by
    /// `mkstemp`: a crashed writer's leftover or a second writer never collides), fsynced with
    /// `flush`; returns its path, for the caller to rename into place. Git's objects and packs are
    /// read-only files; nothing is left behind on failure.
    static func writeTemporary(_ bytes: [UInt8], in folder: String, prefix: String, flush: Bool) throws(GitError)
        -> String
    {
        try writeTemporary(in: folder, prefix: prefix, flush: flush) { writeAll($0, bytes) }
    }

    /// `writeTemporary` of what `write` writes to the open file (returning errno, or 0).
    static func writeTemporary(in folder: String, prefix: String, flush: Bool, _ write: (Int32) -> Int32)
        throws(GitError) -> String
    {
        var template = Array("\(folder)/\(prefix)XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            let fd = mkstemp(base)
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return fd
        }
        guard fd >= 0 else {
            throw GitError(
                code: .system(errno),
                message: "cannot create a temporary file in \(folder): \(SystemError.reason(errno))",
                function: "mkstemp")
        }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        _ = fchmod(fd, 0o444)
        var failure = write(fd)
        if failure == 0 && flush && fsync(fd) != 0 { failure = errno }
        close(fd)
        guard failure == 0 else {
            unlink(temporary)
            throw GitError(
                code: .system(failure), message: "cannot write \(temporary): \(SystemError.reason(failure))",
                function: "write")
        }
        return temporary
    }
}
