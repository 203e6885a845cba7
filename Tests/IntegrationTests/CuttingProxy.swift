import Foundation
import Glibc

/// A TCP proxy on 127.0.0.1 in front of a git server that relays bytes both ways and, when armed, cuts
/// one connection (both sockets closed) after a given number of bytes in one direction: a network
/// that drops mid-fetch or mid-push.
final class CuttingProxy: @unchecked Sendable {
    /// Which way the bytes that count flow.
    enum Direction: String {
        /// Client to server (what a push sends).
        case upstream
        /// Server to client (what a fetch receives).
        case downstream
    }

    /// Cut connection number `connection` (0 = the first after arming) once `bytes` have gone `direction`.
    struct Rule {
        var connection: Int
        var direction: Direction
        var bytes: Int
    }

    let port: Int
    private let targetPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var rule: Rule?
    private var accepted = 0
    private var cutCount = 0
    private var stopped = false

    init(targetPort: Int) throws {
        self.targetPort = targetPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = CuttingProxy.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw ServerError("bind/listen: \(String(cString: strerror(errno)))")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: actual.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Arms a cut for the next connections (nil: relay everything), and restarts the connection count.
    func arm(_ rule: Rule?) {
        lock.lock()
        self.rule = rule
        accepted = 0
        lock.unlock()
    }

    /// How many connections were cut so far.
    var cuts: Int {
        lock.lock()
        defer { lock.unlock() }
        return cutCount
    }

    func stop() {
        lock.lock()
        let already = stopped
        stopped = true
        lock.unlock()
        if !already {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = CuttingProxy.loopback(port: targetPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(client)
                close(server)
                continue
            }
            lock.lock()
            let index = accepted
            accepted += 1
            let active = rule.flatMap { $0.connection == index ? $0 : nil }
            lock.unlock()
            let link = Link(client: client, server: server)
            let up = Thread { [self] in
                relay(link, from: client, to: server, limit: active?.direction == .upstream ? active?.bytes : nil)
            }
            let down = Thread { [self] in
                relay(link, from: server, to: client, limit: active?.direction == .downstream ? active?.bytes : nil)
            }
            up.start()
            down.start()
        }
    }

    /// One proxied connection: both sockets, closed once by whichever side ends first.
    final class Link: @unchecked Sendable {
        let client: Int32
        let server: Int32
        private let lock = NSLock()
        private var finished = 0

        init(client: Int32, server: Int32) {
            self.client = client
            self.server = server
        }

        /// Cuts the connection: both sockets stop, both ends see the connection drop.
        func cut() {
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
        }

        /// One relay direction is done; the second one closes the sockets.
        func done() {
            lock.lock()
            finished += 1
            let last = finished == 2
            lock.unlock()
            if last {
                close(client)
                close(server)
            }
        }
    }

    private func relay(_ link: Link, from source: Int32, to destination: Int32, limit: Int?) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var sent = 0
        loop: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            var chunk = count
            var cutting = false
            if let limit, sent + count >= limit {
                chunk = max(0, limit - sent)
                cutting = true
            }
            var offset = 0
            while offset < chunk {
                let written = buffer.withUnsafeBytes { raw -> Int in
                    guard let start = raw.baseAddress else { return -1 }
                    return write(destination, start + offset, chunk - offset)
                }
                if written <= 0 { break loop }
                offset += written
            }
            sent += chunk
            if cutting {
                lock.lock()
                cutCount += 1
                lock.unlock()
                link.cut()
                break
            }
        }
        // The other side learns this direction ended (a half close), as a real network would show it.
        shutdown(destination, Int32(SHUT_WR))
        link.done()
    }
}
