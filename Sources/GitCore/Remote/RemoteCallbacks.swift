import CGit2
import Glibc
import SystemCalls

#if CARDS_STATIC_LINK
    import CLazySSH2
#endif

/// The payload every remote callback gets: settings, what was tried, and the first Swift error a
/// callback raised (libgit2 only sees `GIT_EUSER`; the caller rethrows this).
final class RemoteCallbackState {
    let settings: RemoteSettings
    let url: RemoteURL?
    let started = MonotonicClock.now()
    /// The error a callback stored; rethrown after the libgit2 call returns.
    var error: GitError?
    /// Credential methods already offered, so a rejected one fails instead of looping.
    var offeredUsername = false
    var offeredAgent = false
    var offeredKeys: [String] = []
    var offeredPassword = false
    /// Refs the server refused in a push, with its reason.
    var rejected: [(reference: String, status: String)] = []
    /// What the server sent on its side band (progress and hooks' messages), as bytes.
    var sideband: [UInt8] = []

    /// The server's messages in `sideband`, progress left out (as `GitReply.serverMessages` reads git's).
    var serverMessages: [String] {
        var splitter = LineSplitter()
        let lines = splitter.feed(sideband[...]).map(\.text) + (splitter.rest.map { [$0] } ?? [])
        return GitReply.serverMessages(lines.map { "remote: " + $0 })
    }

    /// Made just before libgit2 connects: runs the network set-up a process may have deferred
    /// (`Libgit2.deferNetworkSetUp`), so every fetch, push and clone over a connection has it.
    init(settings: RemoteSettings, url: String) {
        Libgit2.runDeferredNetworkSetUp()
        self.settings = settings
        self.url = RemoteURL(url)
    }

    /// Records the first error and returns `GIT_EUSER` for libgit2.
    func fail(_ error: GitError) -> Int32 {
        if self.error == nil { self.error = error }
        return GIT_EUSER.rawValue
    }

    /// Rethrows a stored callback error in place of libgit2's `GIT_EUSER` (or a network error it caused).
    func rethrow(_ result: Int32, _ function: String) throws(GitError) {
        guard result < 0 else { return }
        let libgit2Error = GitError.last(result, function: function)
        if let error { throw error }
        // libssh2 is loaded only when an SSH session is made (Sources/CLazySSH2): without it libgit2
        // can only say the session failed.
        if url?.transport == .ssh && cards_ssh2_available() == 0 {
            throw GitError(
                code: libgit2Error.code,
                message: "SSH remotes need the system's libssh2 (libssh2.so.1), which could not be loaded: install "
                    + "it (`sudo apt-get install libssh2-1`), then try again", function: function)
        }
        throw libgit2Error
    }

    /// Runs the libgit2 call `body` under `settings.timeout` (see `StallTimer`); a call cut short by the
    /// timer fails with the timeout's message.
    func run(_ body: () -> Int32) -> Int32 {
        guard let timeout else { return body() }
        // SSH: libssh2 goes back to a read a signal interrupted; its sessions get the timeout themselves.
        cards_ssh2_set_timeout(max(1, Int(timeout * 1000)))
        defer { cards_ssh2_set_timeout(0) }
        let (result, timedOut) = StallTimer.run(after: timeout, body)
        if timedOut && result < 0 && error == nil { _ = fail(timeoutError(timeout)) }
        return result
    }

    /// `settings.timeout` when it is a usable number of seconds (a day at most, as the timer and the message
    /// take it); nil for none.
    var timeout: Double? {
        settings.timeout.flatMap { $0.isFinite && $0 > 0 ? min($0, 86_400) : nil }
    }

    func timeoutError(_ timeout: Double) -> GitError {
        GitError(
            code: .timedOut,
            message:
                "gave up after \(Int(timeout)) s talking to \(url?.redacted ?? "the remote") (CARDS_NETWORK_TIMEOUT)",
            function: "timeout")
    }

    /// Fails when the caller says it was interrupted, or with a timeout once `settings.timeout` has passed.
    func checkDeadline() -> Int32 {
        if settings.isInterrupted?() == true {
            return fail(GitError(code: .interrupted, message: "interrupted", function: "interrupted"))
        }
        guard let timeout, MonotonicClock.now() - started > timeout else { return 0 }
        return fail(timeoutError(timeout))
    }

    /// Fills libgit2's callback table with our trampolines and `self` as the payload. The caller
    /// keeps `self` alive across the libgit2 call (`withExtendedLifetime`).
    func install(into callbacks: inout git_remote_callbacks) {
        callbacks.payload = Unmanaged.passUnretained(self).toOpaque()
        callbacks.credentials = { out, url, usernameFromURL, allowedTypes, payload in
            guard let out, let payload else { return GIT_EUSER.rawValue }
            let state = Unmanaged<RemoteCallbackState>.fromOpaque(payload).takeUnretainedValue()
            return state.credential(
                out, url: url.map { String(cString: $0) } ?? "", user: usernameFromURL.map { String(cString: $0) },
                allowed: allowedTypes)
        }
        callbacks.certificate_check = { cert, valid, host, payload in
            guard let payload else { return GIT_EUSER.rawValue }
            let state = Unmanaged<RemoteCallbackState>.fromOpaque(payload).takeUnretainedValue()
            return state.checkCertificate(cert, valid: valid != 0, host: host.map { String(cString: $0) } ?? "")
        }
        callbacks.transfer_progress = { stats, payload in
            guard let payload else { return 0 }
            let state = Unmanaged<RemoteCallbackState>.fromOpaque(payload).takeUnretainedValue()
            if let stats, let progress = state.settings.progress {
                let s = stats.pointee
                if s.received_objects < s.total_objects || s.total_deltas == 0 {
                    progress(
                        TransferProgress(
                            phase: .receiving, objects: Int(s.received_objects), totalObjects: Int(s.total_objects),
                            bytes: Int(s.received_bytes)))
                } else {
                    progress(
                        TransferProgress(
                            phase: .resolving, objects: Int(s.indexed_deltas), totalObjects: Int(s.total_deltas),
                            bytes: Int(s.received_bytes)))
                }
            }
            return state.checkDeadline()
        }
        callbacks.sideband_progress = { text, length, payload in
            guard let payload else { return 0 }
            let state = Unmanaged<RemoteCallbackState>.fromOpaque(payload).takeUnretainedValue()
            // The server's own words (a hook's), kept as git shows them: a bounded amount.
            if let text, length > 0, state.sideband.count < 65_536 {
                state.sideband += UnsafeRawBufferPointer(start: text, count: Int(length))
            }
            return state.checkDeadline()
        }
        callbacks.push_transfer_progress = { current, total, bytes, payload in
            guard let payload else { return 0 }
            let state = Unmanaged<RemoteCallbackState>.fromOpaque(payload).takeUnretainedValue()
            state.settings.progress?(
                TransferProgress(phase: .sending, objects: Int(current), totalObjects: Int(total), bytes: Int(bytes)))
            return state.checkDeadline()
        }
        callbacks.push_update_reference = { reference, status, payload in
            guard let payload else { return 0 }
            let state = Unmanaged<RemoteCallbackState>.fromOpaque(payload).takeUnretainedValue()
            // A non-NULL status is the server refusing this ref even though the push call succeeds.
            if let status {
                state.rejected.append((reference.map { String(cString: $0) } ?? "?", String(cString: status)))
            }
            return 0
        }
    }
}

extension RemoteCallbackState {
    /// Offers each credential method once, only of a type libgit2 allows: ssh agent, then key
    /// files, for ssh; user and token for http. A second request for the same method means it was
    /// refused: fail with a clear message instead of letting libgit2 ask forever.
    func credential(
        _ out: UnsafeMutablePointer<OpaquePointer?>, url: String, user: String?, allowed: UInt32
    ) -> Int32 {
        let place = self.url.map(\.host).flatMap { $0.isEmpty ? nil : $0 } ?? url
        if allowed & GIT_CREDENTIAL_USERNAME.rawValue != 0 {
            guard !offeredUsername, let name = user ?? settings.sshUser else {
                return fail(authenticationError("no user name for \(place): put one in the URL (ssh://USER@host/path)"))
            }
            offeredUsername = true
            return checkCredential(git_credential_username_new(out, name), "git_credential_username_new")
        }
        if allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 {
            let name = user ?? settings.sshUser ?? "git"
            if settings.useSSHAgent && !offeredAgent {
                offeredAgent = true
                return checkCredential(
                    git_credential_ssh_key_from_agent(out, name), "git_credential_ssh_key_from_agent")
            }
            if let key = settings.sshKeys.first(where: { !offeredKeys.contains($0) }) {
                offeredKeys.append(key)
                guard access(key, R_OK) == 0 else {
                    return fail(
                        authenticationError(
                            "cannot read the ssh key \(key) (CARDS_SSH_KEY): \(SystemError.reason(errno))"))
                }
                let publicKey = access(key + ".pub", R_OK) == 0 ? key + ".pub" : nil
                return checkCredential(
                    git_credential_ssh_key_new(out, name, publicKey, key, nil), "git_credential_ssh_key_new")
            }
            var tried: [String] = []
            if offeredAgent { tried.append("the ssh agent") }
            tried += offeredKeys
            if tried.isEmpty {
                return fail(
                    authenticationError(
                        "no ssh key to log in to \(place) as \(name): start ssh-agent, or set CARDS_SSH_KEY to a private key file "
                            + "(or create ~/.ssh/id_ed25519)"))
            }
            return fail(
                authenticationError(
                    "ssh authentication to \(place) as \(name) failed with \(tried.joined(separator: ", then ")); "
                        + "check that the key's public half is in the server's authorized_keys, or set CARDS_SSH_KEY to another key"
                ))
        }
        if allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0 {
            let name = settings.httpUser ?? user
            guard !offeredPassword else {
                return fail(
                    authenticationError(
                        "\(place) refused the user and token given (\(name ?? "no user")); check CARDS_HTTP_USER and CARDS_HTTP_TOKEN "
                            + "or the user:token in the URL"))
            }
            // libgit2 offers the URL's own user:token first and asks here only once the server refused it.
            if settings.httpToken == nil, self.url?.hasPassword == true {
                return fail(
                    authenticationError(
                        "\(place) refused the user and token in the URL (\(name ?? "no user")); check them, or set "
                            + "CARDS_HTTP_USER and CARDS_HTTP_TOKEN"))
            }
            guard let token = settings.httpToken, let name else {
                return fail(
                    authenticationError(
                        "\(place) asks for a login: set CARDS_HTTP_USER and CARDS_HTTP_TOKEN (or put user:token in the URL)"
                    ))
            }
            offeredPassword = true
            return checkCredential(
                git_credential_userpass_plaintext_new(out, name, token), "git_credential_userpass_plaintext_new")
        }
        return fail(
            authenticationError(
                "\(place) asks for a kind of login cards cannot give (types \(allowed)); use an ssh key or a token"))
    }

    private func checkCredential(_ result: Int32, _ function: String) -> Int32 {
        if result < 0 { return fail(GitError.last(result, function: function)) }
        return 0
    }

    private func authenticationError(_ message: String) -> GitError {
        GitError(code: .authentication, message: message, function: "credentials")
    }

    /// Accepts an ssh host key only when `known_hosts` lists it for this host (and port); TLS
    /// certificates keep libgit2's own verdict.
    func checkCertificate(_ cert: UnsafeMutablePointer<git_cert>?, valid: Bool, host: String) -> Int32 {
        guard let cert, cert.pointee.cert_type == GIT_CERT_HOSTKEY_LIBSSH2 else {
            return GIT_PASSTHROUGH.rawValue
        }
        let hostKey = UnsafeMutableRawPointer(cert).assumingMemoryBound(to: git_cert_hostkey.self).pointee
        let port = url?.effectivePort ?? 22
        let name = port == 22 ? host : "[\(host)]:\(port)"
        let file = settings.knownHostsPath ?? "~/.ssh/known_hosts"
        let keyscan = port == 22 ? "ssh-keyscan \(host)" : "ssh-keyscan -p \(port) \(host)"
        var fingerprint = ""
        if hostKey.type.rawValue & GIT_CERT_SSH_SHA256.rawValue != 0 {
            let digest = withUnsafeBytes(of: hostKey.hash_sha256) { Array($0) }
            fingerprint = " (SHA256:\(Base64.encode(digest, padding: false)))"
        }
        guard hostKey.type.rawValue & GIT_CERT_SSH_RAW.rawValue != 0, let raw = hostKey.hostkey else {
            if valid { return 0 }
            return fail(
                GitError(
                    code: .certificate, message: "cannot check the ssh host key of \(name): libssh2 gave no raw key",
                    function: "certificate_check"))
        }
        let key = Array(UnsafeRawBufferPointer(start: raw, count: hostKey.hostkey_len))
        let knownHosts = settings.knownHostsPath.map { KnownHosts(path: $0) } ?? KnownHosts(text: "")
        switch knownHosts.verdict(host: name, key: key) {
        case .match:
            return 0
        case .unknown where valid:
            // libssh2 matched it in the same file (a form we do not parse): trust its check.
            return 0
        case .unknown:
            return fail(
                GitError(
                    code: .certificate,
                    message: "unknown ssh host \(name): its host key\(fingerprint) is not in \(file); "
                        + "if you trust it, add it with `\(keyscan) >> ~/.ssh/known_hosts` and try again",
                    function: "certificate_check"))
        case .mismatch:
            return fail(
                GitError(
                    code: .certificate,
                    message:
                        "the ssh host key of \(name)\(fingerprint) does not match the one in \(file): the key changed, "
                        + "or someone is between you and the server; if the change is expected, remove the old line with "
                        + "`ssh-keygen -R \(ShellWord.singleQuoted(name))` and add the new one with `\(keyscan) >> ~/.ssh/known_hosts`",
                    function: "certificate_check"))
        case .revoked:
            return fail(
                GitError(
                    code: .certificate,
                    message: "the ssh host key of \(name)\(fingerprint) is marked @revoked in \(file)",
                    function: "certificate_check"))
        }
    }
}
