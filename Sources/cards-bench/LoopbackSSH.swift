import CardStore
import Glibc

/// OpenSSH's sshd on 127.0.0.1 for the sync rows over ssh: its own host and user keys and config in a
/// folder of the run, the client told of them through the environment for as long as it runs
/// (`GIT_SSH_COMMAND` for git's OpenSSH, `CARDS_SSH_KEY` and `$HOME/.ssh/known_hosts` for libgit2's).
/// Stopped by its pid.
struct LoopbackSSH {
    /// The port it listens on.
    var port: Int
    /// The user the devices log in as: this one.
    var user: String
    var pid: pid_t

    /// Starts it, or says why it cannot run here.
    static func start(in folder: String) -> Result<LoopbackSSH, SetUpFailure> {
        let sshd = "/usr/sbin/sshd"
        guard access(sshd, X_OK) == 0, access("/usr/bin/ssh-keygen", X_OK) == 0 else {
            return .failure(SetUpFailure("openssh-server is not installed"))
        }
        Measure.must("mkdir", ["-p", folder, "/run/sshd"])
        for key in ["hostkey", "userkey"] {
            Measure.must("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", "\(folder)/\(key)"])
        }
        Measure.must("cp", ["\(folder)/userkey.pub", "\(folder)/authorized_keys"])
        guard let port = freePort() else { return .failure(SetUpFailure("no free port on 127.0.0.1")) }
        let config = """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(folder)/hostkey
            AuthorizedKeysFile \(folder)/authorized_keys
            PasswordAuthentication no
            PermitRootLogin prohibit-password
            StrictModes no
            PidFile \(folder)/sshd.pid
            UsePAM no

            """
        let home = getenv("HOME").map { String(cString: $0) } ?? folder
        let hostKey = ((try? FileSystem.read("\(folder)/hostkey.pub")) ?? []).split(separator: UInt8(ascii: " "))
            .prefix(2).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
        let client = """
            Host *
              UserKnownHostsFile \(home)/.ssh/known_hosts
              GlobalKnownHostsFile /dev/null
              StrictHostKeyChecking yes
              BatchMode yes
              IdentitiesOnly yes
              IdentityFile \(folder)/userkey

            """
        do {
            try FileSystem.writeAtomically(Array(config.utf8), to: "\(folder)/sshd_config", durable: false)
            try FileSystem.writeAtomically(Array(client.utf8), to: "\(folder)/ssh_config", durable: false)
            Measure.must("mkdir", ["-p", "\(home)/.ssh"])
            try FileSystem.writeAtomically(
                Array("[127.0.0.1]:\(port) \(hostKey)\n".utf8), to: "\(home)/.ssh/known_hosts", durable: false)
        } catch {
            return .failure(SetUpFailure("could not write sshd's files: \(error)"))
        }
        guard Measure.run(sshd, ["-f", "\(folder)/sshd_config", "-E", "\(folder)/sshd.log"]).run.status == 0 else {
            return .failure(SetUpFailure("sshd did not start; see \(folder)/sshd.log"))
        }
        var pid: pid_t = 0
        for _ in 0..<500 where pid == 0 {
            let text = ((try? FileSystem.read("\(folder)/sshd.pid")) ?? []).filter { $0 != UInt8(ascii: "\n") }
            pid = pid_t(String(decoding: text, as: UTF8.self)) ?? 0
            if pid == 0 { usleep(10_000) }
        }
        guard pid > 0 else { return .failure(SetUpFailure("sshd wrote no pid file; see \(folder)/sshd.log")) }
        setenv("GIT_SSH_COMMAND", "ssh -F '\(folder)/ssh_config'", 1)
        setenv("CARDS_SSH_KEY", "\(folder)/userkey", 1)
        let user = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
        return .success(LoopbackSSH(port: port, user: user, pid: pid))
    }

    /// Stops sshd and takes its settings out of the environment.
    func stop() {
        kill(pid, SIGKILL)
        unsetenv("GIT_SSH_COMMAND")
        unsetenv("CARDS_SSH_KEY")
    }

    /// A port on 127.0.0.1 nothing listens on now (the kernel's choice for a socket bound to port 0).
    static func freePort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}

/// Why a part of the benchmark could not be set up here.
struct SetUpFailure: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
