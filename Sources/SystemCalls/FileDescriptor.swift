import Glibc

/// An open file's descriptor, with the reads and writes made whole: each call is made again when a
/// signal interrupts it (`EINTR`), and a write goes on until every byte is written. It does not own the
/// descriptor: whoever opened it closes it.
package struct FileDescriptor: Hashable, Sendable {
    /// The descriptor number.
    package let rawValue: Int32

    /// The descriptor `rawValue`, opened by the caller.
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// `read(2)` into `buffer`, made again after a signal: the number of bytes read (0 at the end of
    /// the file), or -1 with `errno` set.
    package func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = Glibc.read(rawValue, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    /// The file's bytes from where it stands to its end, read `chunk` bytes at a time until at least
    /// `limit` are in (a /proc file, which reports a size of 0); a failed read ends it like the end of
    /// the file.
    package func readToEnd(limit: Int, chunk: Int = 16_384) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while bytes.count < limit {
            let count = buffer.withUnsafeMutableBytes { read(into: $0) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    /// Writes all of `bytes`, going on after signals and short writes.
    package func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        let failure = FileSync.writeAll(rawValue, bytes)
        if failure != 0 { throw SystemError("write", code: failure) }
    }

    /// Writes all of `bytes` at `offset` in the file (`pwrite(2)`: the file's position is left where
    /// it was), going on after signals and short writes.
    package func writeAll(_ bytes: [UInt8], at offset: Int) throws(SystemError) {
        let failure = bytes.withUnsafeBytes { buffer -> SystemError? in
            var done = 0
            while done < buffer.count {
                let start = buffer.baseAddress.map { $0 + done }
                let count = pwrite(rawValue, start, buffer.count - done, off_t(offset + done))
                if count < 0 && errno == EINTR { continue }
                if count < 0 { return SystemError("pwrite") }
                // No progress on a regular file means the device takes no more: stop rather than spin.
                if count == 0 { return SystemError("pwrite", code: EIO) }
                done += count
            }
            return nil
        }
        if let failure { throw failure }
    }
}
