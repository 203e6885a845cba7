import Glibc
import SystemCalls
import Testing

/// The descriptor's reads and writes made whole: a signal caught without `SA_RESTART` makes a blocked
/// `read` or `write` on a pipe fail with `EINTR` (or a `write` return short), which the descriptor
/// must go through.
@Suite("FileDescriptor: reads and writes go on through signals and short writes")
struct FileDescriptorTests {
    /// A new pipe's two ends, for the caller to close.
    static func pipeEnds() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    /// A thread running `body` with SIGURG unblocked and caught by a handler without `SA_RESTART`
    /// (SIGURG is ignored by default, and nothing else in the package catches it).
    final class InterruptibleThread: @unchecked Sendable {
        private var thread = pthread_t()
        private let body: () -> Void

        init(_ body: @escaping () -> Void) throws {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            try #require(sigaction(SIGURG, &action, nil) == 0)
            self.body = body
            let context = Unmanaged.passRetained(self).toOpaque()
            let started = pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    let me = Unmanaged<InterruptibleThread>.fromOpaque(context).takeRetainedValue()
                    var urgent = sigset_t()
                    sigemptyset(&urgent)
                    sigaddset(&urgent, SIGURG)
                    pthread_sigmask(SIG_UNBLOCK, &urgent, nil)
                    me.body()
                    return nil
                }, context)
            try #require(started == 0)
        }

        /// Sends SIGURG to the thread `times` times, `gap` microseconds apart.
        func interrupt(times: Int, gap: UInt32 = 20_000) {
            for _ in 0..<times {
                usleep(gap)
                pthread_kill(thread, SIGURG)
            }
        }

        func join() { pthread_join(thread, nil) }
    }

    /// What a reading thread got.
    final class Outcome: @unchecked Sendable {
        var count = 0
        var error: Int32 = 0
        var bytes: [UInt8] = []
    }

    /// What `read` gave on a thread blocked in it on an empty pipe while signals came, "late" written
    /// to the pipe only after them: its count, its errno, the bytes it read.
    static func readThroughSignals(_ read: @escaping (Int32, UnsafeMutableRawBufferPointer) -> Int) throws
        -> Outcome
    {
        let ends = try Self.pipeEnds()
        defer {
            close(ends.read)
            close(ends.write)
        }
        let outcome = Outcome()
        let reader = try InterruptibleThread {
            var buffer = [UInt8](repeating: 0, count: 8)
            outcome.count = buffer.withUnsafeMutableBytes { read(ends.read, $0) }
            outcome.error = errno
            outcome.bytes = Array(buffer.prefix(max(outcome.count, 0)))
        }
        reader.interrupt(times: 5)
        _ = Glibc.write(ends.write, "late", 4)
        reader.join()
        return outcome
    }

    @Test("the signal really interrupts a blocked read here: a plain read(2) fails with EINTR")
    func plainReadIsInterrupted() throws {
        let outcome = try Self.readThroughSignals { Glibc.read($0, $1.baseAddress, $1.count) }
        #expect(outcome.count == -1 && outcome.error == EINTR)
    }

    @Test("a read interrupted by signals goes on and returns the bytes written after them")
    func readRetriesAfterSignals() throws {
        let outcome = try Self.readThroughSignals { FileDescriptor($0).read(into: $1) }
        #expect(outcome.count == 4 && outcome.bytes == Array("late".utf8))
    }

    @Test("a write interrupted by signals while the pipe is full writes every byte, in order")
    func writeAllThroughSignals() throws {
        let ends = try Self.pipeEnds()
        // The writer closes its end (the reader's end of file); only the read end is left to close here:
        // closing a number twice could close another test's descriptor that took it meanwhile.
        defer { Glibc.close(ends.read) }
        // Far more than a pipe holds (64 KiB): the write blocks, and each signal ends a part of it early.
        let sent = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let outcome = Outcome()
        let writer = try InterruptibleThread {
            do {
                try FileDescriptor(ends.write).writeAll(sent)
            } catch {
                outcome.error = (error as? SystemError)?.code ?? -1
            }
            Glibc.close(ends.write)
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var reads = 0
        while true {
            // Reading slowly keeps the writer blocked while the signals come.
            reads += 1
            if reads % 16 == 0 { writer.interrupt(times: 1, gap: 2_000) }
            let count = buffer.withUnsafeMutableBytes { FileDescriptor(ends.read).read(into: $0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        writer.join()
        #expect(outcome.error == 0)
        #expect(received.count == sent.count)
        #expect(received.elementsEqual(sent), "the bytes read differ from those written")
    }

    @Test("pwrite of all bytes at an offset leaves the file's position where it was")
    func positionedWrite() throws {
        var template = Array("/tmp/descriptor-test-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        try #require(fd >= 0)
        defer {
            close(fd)
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }
        let descriptor = FileDescriptor(fd)
        try descriptor.writeAll(Array("hello world".utf8))
        try descriptor.writeAll(Array("WORLD".utf8), at: 6)
        try descriptor.writeAll(Array("!".utf8))
        #expect(lseek(fd, 0, SEEK_SET) == 0)
        #expect(descriptor.readToEnd(limit: 1 << 10) == Array("hello WORLD!".utf8))
    }

    @Test("a system error says its call, its path and the system's words once, in one form")
    func errorWords() {
        let missing = SystemError("open", path: "cards/ab/x.json", code: ENOENT)
        #expect(missing.description == "open cards/ab/x.json: No such file or directory")
        #expect(SystemError("write", code: EPIPE).description == "write: Broken pipe")
        #expect(SystemError.reason(EACCES) == "Permission denied")
    }
}
