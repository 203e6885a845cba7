import Foundation
import Testing

/// Apache httpd from Debian (`apache2`) serving `git http-backend` as CGI, started by the test with a
/// config file of its own (`-f`, `-DFOREGROUND`) on a free port of 127.0.0.1, stopped by its pid.
/// Apache rather than nginx: git-http-backend(1) documents Apache's set-up (nginx needs fcgiwrap as a
/// second daemon to run a CGI), and mod_cgi runs it with nothing else started.
///
/// Its "auth only for push" recipe: fetches are anonymous, the receive-pack POST asks for a basic login
/// (`alice`, `s3cret`). With `tls`, https with a certificate for the IP 127.0.0.1 signed by a CA made
/// here with openssl (`caFile`), which no trust store holds.
final class ApacheServer: @unchecked Sendable {
    static let user = "alice"
    static let password = "s3cret"
    /// The programs it needs: missing ones fail the test (CI installs them: `./dev test`), never skip it.
    static let programs = [
        "/usr/sbin/apache2", "/usr/bin/htpasswd", "/usr/bin/openssl", "/usr/lib/git-core/git-http-backend",
    ]

    let url: String
    let repository: String
    /// The CA that signed the server's certificate (tls only).
    let caFile: String
    let log: String
    private let process: Process
    private let folder: String

    init(in scratch: Scratch, tls: Bool = false) throws {
        for program in Self.programs where !FileManager.default.isExecutableFile(atPath: program) {
            throw ServerError("\(program) is not installed: `./dev test` installs apache2 and openssl (dev's PACKAGES)")
        }
        folder = scratch.path("apache")
        let repos = folder + "/repos"
        repository = repos + "/deck.git"
        try FileManager.default.createDirectory(atPath: repos, withIntermediateDirectories: true)
        guard try scratch.git(["init", "-q", "--bare", "-b", "main", repository], in: scratch.root).status == 0 else {
            throw ServerError("git init --bare failed")
        }
        let seed = try scratch.sampleDeck("apache-seed")
        guard try scratch.git(["push", "-q", repository, "main"], in: seed).status == 0 else {
            throw ServerError("seeding the server failed")
        }
        // Apache's children run as www-data when started by root: they must reach and write the repository.
        for path in [scratch.root, folder] { chmod(path, 0o755) }
        guard try scratch.run("/bin/chmod", ["-R", "a+rwX", repos]).status == 0,
            try scratch.run(
                "/usr/bin/htpasswd", ["-cb", folder + "/htpasswd", Self.user, Self.password]
            ).status == 0
        else { throw ServerError("could not prepare \(folder)") }
        caFile = folder + "/ca.pem"
        if tls { try Self.makeCertificates(in: folder, scratch) }
        let port = try GitServer.freePort()
        url = "\(tls ? "https" : "http")://127.0.0.1:\(port)/git/deck.git"
        log = folder + "/error.log"
        let modules = "/usr/lib/apache2/modules"
        var config = """
            ServerRoot "\(folder)"
            ServerName 127.0.0.1
            Listen 127.0.0.1:\(port)
            PidFile "\(folder)/httpd.pid"
            DefaultRuntimeDir "\(folder)"
            ErrorLog "\(log)"
            LogLevel warn
            LoadModule mpm_prefork_module \(modules)/mod_mpm_prefork.so
            LoadModule authz_core_module \(modules)/mod_authz_core.so
            LoadModule authz_user_module \(modules)/mod_authz_user.so
            LoadModule authn_core_module \(modules)/mod_authn_core.so
            LoadModule authn_file_module \(modules)/mod_authn_file.so
            LoadModule auth_basic_module \(modules)/mod_auth_basic.so
            LoadModule alias_module \(modules)/mod_alias.so
            LoadModule cgi_module \(modules)/mod_cgi.so
            LoadModule env_module \(modules)/mod_env.so
            StartServers 2
            \(getuid() == 0 ? "User www-data\nGroup www-data" : "")
            SetEnv GIT_PROJECT_ROOT "\(repos)"
            SetEnv GIT_HTTP_EXPORT_ALL 1
            SetEnv GIT_CONFIG_COUNT 1
            SetEnv GIT_CONFIG_KEY_0 safe.directory
            SetEnv GIT_CONFIG_VALUE_0 *
            ScriptAlias /git/ /usr/lib/git-core/git-http-backend/
            <Directory "/usr/lib/git-core">
                Options +ExecCGI
                Require all granted
            </Directory>
            # git-http-backend(1)'s "auth only for push", in Apache 2.4's words: the receive-pack
            # advertisement and POST need a login, everything else does not.
            <LocationMatch "^/git/">
                AuthType Basic
                AuthName "Git Access"
                AuthUserFile "\(folder)/htpasswd"
                <If "%{QUERY_STRING} =~ /service=git-receive-pack/ || %{REQUEST_URI} =~ m#/git-receive-pack$#">
                    Require valid-user
                </If>
                <Else>
                    Require all granted
                </Else>
            </LocationMatch>

            """
        if tls {
            config += """
                LoadModule ssl_module \(modules)/mod_ssl.so
                SSLEngine on
                SSLCertificateFile "\(folder)/server.pem"
                SSLCertificateKeyFile "\(folder)/server.key"

                """
        }
        try config.write(toFile: folder + "/httpd.conf", atomically: true, encoding: .utf8)
        // Started through python, which clears the signal mask a test runner's thread would pass on
        // (then Apache could not be stopped with SIGTERM) and execs Apache in its place.
        guard let python = GitServer.python else { throw ServerError("python3 is not installed") }
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-c",
            "import os,signal,sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
            "/usr/sbin/apache2", "-f", folder + "/httpd.conf", "-DFOREGROUND",
        ]
        var environment = scratch.environment
        environment["APACHE_RUN_DIR"] = folder
        process.environment = environment
        let output = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while !GitServer.canConnect(port) {
            guard Date() < deadline, process.isRunning else {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                stop()
                throw ServerError("apache2 did not listen on 127.0.0.1:\(port): \(text)")
            }
            usleep(20_000)
        }
    }

    /// A CA, and a server certificate for the IP address 127.0.0.1 signed by it.
    static func makeCertificates(in folder: String, _ scratch: Scratch) throws {
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(folder)/ca.key", "-out",
                "\(folder)/ca.pem", "-days", "2", "-subj", "/CN=Cards Test CA", "-addext",
                "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(folder)/server.key", "-out",
                "\(folder)/server.csr", "-subj", "/CN=127.0.0.1",
            ],
            [
                "x509", "-req", "-in", "\(folder)/server.csr", "-CA", "\(folder)/ca.pem", "-CAkey",
                "\(folder)/ca.key", "-CAcreateserial", "-out", "\(folder)/server.pem", "-days", "2", "-extfile",
                "\(folder)/server.ext",
            ],
        ]
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n".write(
            toFile: "\(folder)/server.ext", atomically: true, encoding: .utf8)
        for step in steps {
            let made = try scratch.run("/usr/bin/openssl", step)
            guard made.status == 0 else { throw ServerError("openssl \(step[0]) failed: \(made.stderr)") }
        }
    }

    deinit { stop() }

    /// SIGTERM to Apache's parent, which stops its children; SIGKILL to what is left after 5 s.
    func stop() {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            for child in SilentServer.processes(mentioning: folder + "/httpd.conf") {
                if let number = pid_t(child) { kill(number, SIGKILL) }
            }
        }
        process.waitUntilExit()
    }

    /// `git rev-parse main` in the served repository.
    func main(_ scratch: Scratch) throws -> String {
        try scratch.git(["--git-dir", repository, "rev-parse", "main"], in: scratch.root).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
