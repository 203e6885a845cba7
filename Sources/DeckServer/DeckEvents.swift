import SystemCalls

/// The deck's change counter, which event streams wait on: bumped when `main` moves, whoever moved it
/// (this server's swipe, another command, a sync).
final class DeckChanges: @unchecked Sendable {
    private let monitor = Monitor()
    private var version: UInt64 = 0
    private var stopping = false

    /// Notes a change and wakes every stream.
    func bump() {
        monitor.locked {
            version &+= 1
            monitor.broadcast()
        }
    }

    /// Ends every stream (their next read returns nil) and wakes the watcher.
    func stop() {
        monitor.locked {
            stopping = true
            monitor.broadcast()
        }
    }

    /// Whether `stop` was called.
    var isStopping: Bool { monitor.locked { stopping } }

    /// The current version.
    var current: UInt64 { monitor.locked { version } }

    /// Waits until the version differs from `seen`, `stop`, or `seconds` pass; returns the version then, or
    /// nil once stopping.
    func wait(after seen: UInt64, seconds: Double) -> UInt64? {
        monitor.locked {
            let deadline = MonotonicClock.now() + seconds
            while !stopping && version == seen {
                let left = deadline - MonotonicClock.now()
                if left <= 0 { break }
                monitor.wait(seconds: left)
            }
            return stopping ? nil : version
        }
    }

    /// Sleeps `seconds` unless stopped first; returns false once stopping.
    func pause(seconds: Double) -> Bool {
        monitor.locked {
            if !stopping { monitor.wait(seconds: seconds) }
            return !stopping
        }
    }
}

/// One page's event stream (server-sent events): a `deck` event at once and whenever the deck changes, a
/// comment every 5 s so proxies, the browser and the server's idle timeout keep the connection open.
final class DeckEventStream: HTTPStream, @unchecked Sendable {
    private let changes: DeckChanges
    private var seen: UInt64?
    /// Seconds between keep-alive comments: well under the server's idle timeout (`HTTPServer.Limits`).
    static let keepAlive = 5.0

    init(changes: DeckChanges) {
        self.changes = changes
    }

    func next(capacity: Int) -> [UInt8]? {
        // Only the connection's own thread reads a stream, so `seen` needs no lock.
        let text: String
        if let seen {
            guard let version = changes.wait(after: seen, seconds: Self.keepAlive) else { return nil }
            if version == seen {
                text = ": keep-alive\n\n"
            } else {
                self.seen = version
                text = "event: deck\ndata: \(version)\n\n"
            }
        } else {
            guard !changes.isStopping else { return nil }
            let version = changes.current
            seen = version
            // `retry`: a page whose server restarted reconnects within a second.
            text = "retry: 1000\nevent: deck\ndata: \(version)\n\n"
        }
        let bytes = Array(text.utf8)
        return bytes.count <= capacity ? bytes : Array(bytes.prefix(capacity))
    }
}
