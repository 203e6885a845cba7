/// Reads what `git fetch`/`git push` said: the per-ref status of `--porcelain`, the server's own
/// `remote:` lines, and a failure told in the user's terms (git runs with `LC_ALL=C`, so its words
/// are the English ones matched here).
enum GitReply {
    /// One ref's line of `git push --porcelain`: `<flag>\t<from>:<to>\t<summary> (<reason>)`.
    struct RefStatus: Equatable {
        /// ` ` fast-forward, `*` new, `=` up to date, `!` rejected (and `+`, `-`, never ours).
        var flag: Character
        var reference: String
        /// `[rejected]`, `[remote rejected]`, `[remote failure]`, `[up to date]`, `abc..def`…
        var summary: String
        /// What is in parentheses after the summary: "fetch first", "pre-receive hook declined".
        var reason: String?

        /// Whether the refusal is the remote having moved since our fetch: the one a new fetch and
        /// merge can get past. Everything else the server refused stays refused.
        var remoteMoved: Bool {
            guard flag == "!", let reason else { return false }
            if summary == "[rejected]" {
                return ["fetch first", "non-fast-forward", "stale info", "remote ref updated since checkout"]
                    .contains(reason)
            }
            // receive-pack's compare-and-swap lost to a push that came in meanwhile.
            return summary == "[remote rejected]"
                && (reason.contains("failed to update ref") || reason.contains("cannot lock ref")
                    || reason.contains("failed to lock"))
        }
    }

    /// The ref status lines of `git push --porcelain`'s standard output.
    static func statuses(_ output: [UInt8]) -> [RefStatus] {
        String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { line -> RefStatus? in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 3, let flag = fields[0].first, fields[0].count == 1 else { return nil }
            let reference = String(fields[1].split(separator: ":").last ?? fields[1])
            var summary = String(fields[2])
            var reason: String?
            // "[remote rejected] (pre-receive hook declined)": the reason is from the first " (" on.
            if summary.hasSuffix(")"), let open = summary.firstIndex(of: "("), open > summary.startIndex,
                summary[summary.index(before: open)] == " "
            {
                reason = String(summary[summary.index(after: open)..<summary.index(before: summary.endIndex)])
                summary = String(summary[..<summary.index(before: open)])
            }
            return RefStatus(flag: flag, reference: reference, summary: summary, reason: reason)
        }
    }

    /// Whether a line of git's standard error is progress ("Receiving objects: 45% (9/20)"), its
    /// own or the server's: passed on to a terminal, never kept as a message.
    static func isProgress(_ line: String) -> Bool {
        // On the bytes (git's progress words are ASCII): `hasPrefix` walked characters, and a transfer
        // asks this of each of its ~700 progress updates (~3,000 instructions each).
        var line = line
        return line.withUTF8 { bytes in
            let remote = startsWith(bytes, "remote: ")
            let text = UnsafeBufferPointer(rebasing: bytes[(remote ? 8 : 0)...])
            return progressWords.contains { startsWith(text, $0) }
        }
    }

    /// The first words of git's progress lines.
    private static let progressWords: [StaticString] = [
        "Enumerating objects", "Counting objects", "Compressing objects", "Writing objects", "Receiving objects",
        "Resolving deltas", "Total ", "Unpacking objects", "Finding sources", "Checking connectivity",
    ]

    private static func startsWith(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        for index in 0..<count where bytes[index] != prefix.utf8Start[index] { return false }
        return true
    }

    /// The server's own lines (`remote: …` without the prefix and git's padding), progress left out.
    static func serverMessages(_ lines: [String]) -> [String] {
        lines.compactMap { line in
            guard line.hasPrefix("remote:"), !isProgress(line) else { return nil }
            var text = Substring(line.dropFirst(7))
            if text.hasPrefix(" ") { text = text.dropFirst() }
            while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
            return text.isEmpty ? nil : String(text)
        }
    }

    /// git's own complaint: its lines that are neither progress, the server's, nor advice.
    static func complaint(_ lines: [String]) -> [String] {
        // git's closing advice after any ssh or connection failure: true of every failure, so it says nothing.
        let boilerplate: Set = [
            "fatal: Could not read from remote repository.", "Please make sure you have the correct access rights",
            "and the repository exists.",
        ]
        return lines.compactMap { line in
            guard !boilerplate.contains(line.trimmingTrailingSpaces()) else { return nil }
            let text = line.trimmingTrailingSpaces()
            guard !text.isEmpty, !line.hasPrefix("remote:"), !line.hasPrefix("hint:"), !line.hasPrefix("To "),
                !isProgress(line)
            else { return nil }
            for prefix in ["fatal: ", "error: "] where text.hasPrefix(prefix) {
                return String(text.dropFirst(prefix.count))
            }
            return text
        }
    }

    /// The lines an ssh server's own program wrote before it hung up: those of standard error that are
    /// neither git's (`fatal:`, `error:`, progress, `remote:`) nor OpenSSH's, when git then said it could not
    /// read from the remote (so the connection and the login worked, and the server answered).
    static func sshServerWords(_ lines: [String]) -> [String] {
        guard lines.contains(where: { $0.hasPrefix("fatal: Could not read from remote repository") }) else {
            return []
        }
        // OpenSSH's own messages (and its warnings), which name a connection or login failure, not a refusal.
        let sshPrefixes = [
            "ssh:", "ssh_", "kex_", "Connection ", "Connection,", "Warning:", "Load key", "no such identity",
            "banner exchange", "Received disconnect", "Disconnected from", "Bad owner", "Bad configuration",
            "Permission denied", "Host key", "@@@", "Someone could", "It is also possible", "The fingerprint",
            "Please contact", "Add correct host key", "Offending", "Authenticated", "Transferred", "Bytes per",
            "debug", "channel ", "mux_", "Control", "Enter passphrase", "Identity added", "Unable to negotiate",
            "Timeout, server", "Killed by signal", "Pseudo-terminal", "hostkeys_", "send_pubkey", "sign_and_send",
            "Could not resolve", "Corrupted MAC", "Bad packet", "client_", "percent_expand", "Too many",
        ]
        return lines.compactMap { line in
            let text = line.trimmingTrailingSpaces()
            guard !text.isEmpty, !isProgress(text) else { return nil }
            let gits = [
                "fatal:", "error:", "warning:", "hint:", "remote:", "To ", "Please make sure", "and the repository",
            ]
            guard !gits.contains(where: { text.hasPrefix($0) }), !sshPrefixes.contains(where: { text.hasPrefix($0) })
            else { return nil }
            return text
        }
    }

    /// The failure a git run that did not succeed stands for, in the user's terms; `url` is the one it used
    /// (redacted), `pushing` whether it was a push.
    static func failure(_ outcome: GitProcess.Outcome, url: String, pushing: Bool, timeout: Double) -> GitError {
        let server = serverMessages(outcome.errorLines)
        let said = complaint(outcome.errorLines)
        let function = pushing ? "git push" : "git fetch"
        func error(_ code: GitError.Code, _ message: String) -> GitError {
            GitError(code: code, message: message, function: function, serverMessages: server, url: url)
        }
        if outcome.interrupted { return GitError(code: .interrupted, message: "interrupted", function: "interrupted") }
        if outcome.stalled {
            let seconds = timeout == timeout.rounded() ? "\(Int(timeout))" : "\(timeout)"
            return error(
                .timedOut,
                "gave up after \(seconds) s without a word from \(url); if the server is only slow, allow it more "
                    + "time with CARDS_NETWORK_TIMEOUT=SECONDS (default \(Int(GitProcess.defaultStallTimeout)))")
        }
        let words = said.joined(separator: "; ")
        let lower = words.lowercased()
        let because = words.isEmpty ? "" : " (\(words))"
        func has(_ needles: String...) -> Bool { needles.contains { lower.contains($0) } }
        if has("host key verification failed", "host key is known for", "remote host identification has changed") {
            return error(
                .certificate,
                "ssh could not verify the server's host key\(because): if the key is the server's, add it to "
                    + "~/.ssh/known_hosts (`ssh-keyscan -p PORT HOST >> ~/.ssh/known_hosts`, after checking its "
                    + "fingerprint), or fix the line ssh named there")
        }
        if has("permission denied (publickey", "permission denied (password", "too many authentication failures") {
            return error(
                .authentication,
                "the ssh server did not accept any key offered\(because): load your key into ssh-agent "
                    + "(`ssh-add KEY`) or name it in ~/.ssh/config (IdentityFile), and make sure its .pub is in "
                    + "the server's authorized keys")
        }
        if has(
            "authentication failed", "could not read username", "could not read password",
            "terminal prompts disabled", "returned error: 401")
        {
            return error(
                .authentication,
                "the server asked for a login and none was accepted\(because): give git one through a credential "
                    + "helper (`git config --global credential.helper store`, then one `git \(pushing ? "push" : "fetch")` "
                    + "on a terminal), or use a token the server accepts")
        }
        if has("ssl certificate problem", "certificate verification failed", "unable to get local issuer", "ssl: ") {
            return error(
                .certificate,
                "the server's TLS certificate is not trusted\(because): if it is signed by your own CA, tell git "
                    + "where that CA is (`git config --global http.sslCAInfo CA.pem`, or GIT_SSL_CAINFO)")
        }
        if has("returned error: 403") {
            return error(pushing ? .pushRefused : .remoteFailed, "the server refused access\(because)")
        }
        // A repository on this machine that another user owns: git's upload-pack and receive-pack refuse it
        // (git 2.39.4 on), in words that say what to do; said as git says them.
        let dubious = "detected dubious ownership in repository at"
        if let start = outcome.errorLines.firstIndex(where: { $0.contains(dubious) }) {
            var lines = Array(outcome.errorLines[start...].prefix(5))
            if let end = lines.firstIndex(where: { $0.contains("--add safe.directory") }) {
                lines = Array(lines[...end])
            }
            if lines[0].hasPrefix("fatal: ") { lines[0] = String(lines[0].dropFirst("fatal: ".count)) }
            return error(.owner, lines.joined(separator: "\n"))
        }
        // Over ssh the server's program (gitolite, GitHub's, Gitea's, GitLab's shell) speaks on standard error
        // without a `remote:` prefix, then hangs up; git follows with its "Could not read from remote
        // repository". Its words are the reason: a refusal to this user, or no such repository.
        let refusal = sshServerWords(outcome.errorLines)
        if !refusal.isEmpty {
            return error(
                pushing ? .pushRefused : .remoteFailed,
                (pushing ? "" : "the server refused: ")
                    + "\(refusal.joined(separator: " ")); if you should have access, ask the "
                    + "server's administrator (your key may need to be added, or a rule to allow you), and "
                    + "check the repository's name")
        }
        if !server.isEmpty || has("returned error:", "repository not found", "access denied") {
            return error(.remoteFailed, "the server answered with an error\(because)")
        }
        return error(.other(outcome.status), words.isEmpty ? "git exited with status \(outcome.status)" : words)
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
