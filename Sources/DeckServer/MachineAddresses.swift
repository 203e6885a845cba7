import Glibc

/// The addresses and names this machine answers to: what `cards serve` prints as the page's URL(s), puts
/// in its QR code, and accepts as Host.
public struct MachineAddresses: Sendable, Equatable {
    /// IPv4 addresses of the interfaces that are up, loopback excluded, in the order to offer them: private
    /// networks first (a phone on the same Wi-Fi reaches those), then the others.
    public var ipv4: [String]
    /// IPv6 addresses that are up, loopback and link-local excluded (a browser cannot take a link-local
    /// address's zone in a URL).
    public var ipv6: [String]
    /// The host name (`gethostname`), if any.
    public var hostName: String?

    /// Creates a set of addresses (tests; `current()` reads the machine's).
    public init(ipv4: [String], ipv6: [String], hostName: String?) {
        self.ipv4 = ipv4
        self.ipv6 = ipv6
        self.hostName = hostName
    }

    /// This machine's addresses and name, now (getifaddrs, gethostname).
    public static func current() -> MachineAddresses {
        var v4: [String] = []
        var v6: [String] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        if getifaddrs(&list) == 0 {
            var entry = list
            while let current = entry {
                defer { entry = current.pointee.ifa_next }
                let flags = Int32(bitPattern: current.pointee.ifa_flags)
                guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                    let address = current.pointee.ifa_addr
                else { continue }
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                        var bytes = inet.pointee.sin_addr
                        _ = inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count))
                    }
                    v4.append(Self.string(text))
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet in
                        var bytes = inet.pointee.sin6_addr
                        _ = inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count))
                    }
                    v6.append(Self.string(text))
                default: continue
                }
            }
            freeifaddrs(list)
        }
        var name = [CChar](repeating: 0, count: 256)
        let hostName = gethostname(&name, name.count - 1) == 0 ? Self.string(name) : nil
        return MachineAddresses(ipv4: v4, ipv6: v6, hostName: hostName).ordered()
    }

    /// The text of a C buffer, up to its first NUL.
    static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Without duplicates, loopback or link-local addresses, private IPv4 networks first.
    func ordered() -> MachineAddresses {
        func rank(_ address: String) -> Int {
            guard let bytes = IPLiteral.v4(address) else { return 9 }
            switch (bytes[0], bytes[1]) {
            case (192, 168): return 0
            case (10, _): return 1
            case (172, 16...31): return 2
            case (127, _), (169, 254): return 9
            default: return 3
            }
        }
        var seen = Set<String>()
        let v4 = ipv4.filter { rank($0) < 9 && seen.insert($0).inserted }.enumerated()
            .sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
        let v6 = ipv6.filter {
            let lowered = $0.lowercased()
            return lowered != "::1" && !lowered.hasPrefix("fe80:") && seen.insert(lowered).inserted
        }
        return MachineAddresses(ipv4: v4, ipv6: v6, hostName: hostName?.isEmpty == false ? hostName : nil)
    }

    /// The addresses a page on `listen` is reached at from another machine, best first: for `0.0.0.0`
    /// every IPv4 address, for `::` every address, for a loopback address none, else `listen` itself.
    public func reachable(listening listen: String) -> [String] {
        switch listen {
        case "0.0.0.0": return ipv4
        case "::": return ipv4 + ipv6
        default: return RequestGuard.isLoopback(listen) ? [] : [listen]
        }
    }

    /// The names accepted as Host besides IP literals and `localhost`: the host name, `hostname.local`
    /// (mDNS, how a phone on the network finds a laptop by name), and every address.
    public var hostNames: [String] {
        var names: [String] = []
        if let hostName {
            let short = hostName.split(separator: ".").first.map(String.init) ?? hostName
            names += [hostName, short, short + ".local"]
        }
        return names + ipv4 + ipv6
    }

    /// `http://HOST:PORT/PATH` with an IPv6 address in brackets, and `?token=…` when given.
    public static func url(host: String, port: UInt16, token: String?, path: String = "") -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/\(path)" + (token.map { "?token=\($0)" } ?? "")
    }
}
