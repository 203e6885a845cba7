import Foundation
import Testing

/// Debian's gitolite3 behind OpenSSH's sshd on 127.0.0.1, set up as gitolite's documentation says: the
/// hosting user's HOME gets `gitolite setup -pk admin.pub`; users (their keys) and rules are then pushed
/// through the gitolite-admin repository with `git`, and gitolite writes sshd's authorized keys itself.
/// Each user logs in with a `Host gitolite-USER` alias in the test's ssh config, as gitolite users do.
/// Stopped by its pid when the test drops it.
final class GitoliteServer: @unchecked Sendable {
    /// The hosting user's HOME: `.gitolite.rc`, `.gitolite/`, `repositories/`, `.ssh/authorized_keys`.
    let home: String
    /// Where sshd writes its log.
    let log: String
    private var daemonPID: pid_t?

    /// The programs it needs, or the first one missing.
    static var missingProgram: String? {
        ["/usr/bin/gitolite", "/usr/sbin/sshd", "/usr/bin/ssh-keygen", "/usr/bin/git"].first {
            !FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Sets gitolite up with `users` (each gets an ed25519 key) and `rules` (gitolite.conf lines, added
    /// after the default ones), cancelling the test when gitolite3 or OpenSSH is not installed.
    static func start(in scratch: Scratch, users: [String], rules: String) throws -> GitoliteServer {
        if let missing = GitoliteServer.missingProgram {
            try Test.cancel("\(missing) is not installed; `./dev test` installs gitolite3 and openssh-server")
        }
        return try GitoliteServer(in: scratch, users: users, rules: rules)
    }

    private init(in scratch: Scratch, users: [String], rules: String) throws {
        let root = scratch.path("gitolite")
        home = root + "/home"
        log = root + "/sshd.log"
        let keys = root + "/keys"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        for name in ["hostkey", "admin"] + users {
            let made = try scratch.run(
                "/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", "\(keys)/\(name)"])
            guard made.status == 0 else { throw ServerError("ssh-keygen failed: \(made.stderr)") }
        }
        let setUp = try scratch.run(
            "/usr/bin/gitolite", ["setup", "-pk", "\(keys)/admin.pub"],
            // As on a server: git's own defaults (gitolite-admin on master, the branch gitolite compiles on).
            extraEnvironment: ["HOME": home, "GIT_CONFIG_GLOBAL": home + "/.gitconfig"])
        guard setUp.status == 0 else { throw ServerError("gitolite setup failed: \(setUp.stderr)") }
        let port = try GitServer.freePort()
        // gitolite-shell finds its rc in $HOME: sshd gives the session the hosting user's HOME.
        daemonPID = try GitServer.startSSHD(
            port: port,
            config: """
                HostKey \(keys)/hostkey
                AuthorizedKeysFile \(home)/.ssh/authorized_keys
                SetEnv HOME=\(home)

                """, in: root, log: log, scratch)
        let hostKey = try String(contentsOfFile: keys + "/hostkey.pub", encoding: .utf8)
            .split(separator: " ").prefix(2).joined(separator: " ")
        try scratch.trust(line: "[127.0.0.1]:\(port) \(hostKey)")
        try scratch.addSSHConfig("ServerAliveInterval 15")
        var aliases = ""
        for name in ["admin"] + users {
            aliases += """

                Host gitolite-\(name)
                  HostName 127.0.0.1
                  Port \(port)
                  User \(NSUserName())
                  IdentityFile \(keys)/\(name)

                """
        }
        let config = try String(contentsOfFile: scratch.sshConfig, encoding: .utf8)
        try (config + aliases).write(toFile: scratch.sshConfig, atomically: true, encoding: .utf8)
        scratch.environment["GIT_SSH_COMMAND"] = scratch.sshCommand
        // The administrator adds the users' keys and the rules, as gitolite's documentation has it.
        let admin = root + "/gitolite-admin"
        let cloned = try scratch.git(["clone", "-q", "gitolite-admin:gitolite-admin", admin], in: root)
        guard cloned.status == 0 else { throw ServerError("cloning gitolite-admin failed: \(cloned.stderr)") }
        for name in users {
            try FileManager.default.copyItem(atPath: "\(keys)/\(name).pub", toPath: "\(admin)/keydir/\(name).pub")
        }
        let conf = admin + "/conf/gitolite.conf"
        let old = try String(contentsOfFile: conf, encoding: .utf8)
        try (old + "\n" + rules + "\n").write(toFile: conf, atomically: true, encoding: .utf8)
        for step in [["add", "-A"], ["commit", "-qm", "users and rules"], ["push", "-q", "origin", "HEAD"]] {
            let done = try scratch.git(step, in: admin)
            guard done.status == 0 else { throw ServerError("git \(step[0]) in gitolite-admin failed: \(done.stderr)") }
        }
    }

    /// The URL `user` reaches `repository` by (through its ssh Host alias).
    func url(_ user: String, _ repository: String) -> String { "gitolite-\(user):\(repository)" }

    /// The bare repository gitolite keeps for `name`.
    func repository(_ name: String) -> String { "\(home)/repositories/\(name).git" }

    deinit {
        if let daemonPID { kill(daemonPID, SIGKILL) }
    }
}
