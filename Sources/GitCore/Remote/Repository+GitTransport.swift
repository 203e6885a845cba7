import CGit2
import Glibc
import SystemCalls

/// What a push brought back besides success.
package struct PushResult: Sendable {
    /// The server's own lines (`remote: …` without the prefix), such as a post-receive hook's
    /// "CI started": for the user to see (through libgit2, what its side band brought).
    package var serverMessages: [String] = []
    /// What the push could not do as git would have (a remote's hooks it did not run), for the user to see.
    package var warnings: [String] = []

    /// Creates a result.
    package init(serverMessages: [String] = [], warnings: [String] = []) {
        self.serverMessages = serverMessages
        self.warnings = warnings
    }
}

/// Which client moves objects to and from remotes.
package enum RemoteTransport: String, Sendable {
    /// The `git` executable: the user's own git, ssh and their configuration (the default where git is installed).
    case git
    /// libgit2's built-in transport (the fallback where no git is installed).
    case libgit2
}

extension Repository {
    /// The transport for this repository: `settings.transport` (CARDS_TRANSPORT), else git config
    /// `cards.transport`, else git when a `git` executable is installed, libgit2 when not.
    package func transport(_ settings: RemoteSettings) throws(GitError) -> RemoteTransport {
        try Repository.transport(settings, configured: try? configString("cards.transport"))
    }

    /// The same for a repository not made yet (a clone): the user's global and system git config.
    package static func defaultTransport(_ settings: RemoteSettings) throws(GitError) -> RemoteTransport {
        Libgit2.ensureInitialized()
        var configured: String?
        var config: OpaquePointer?
        if git_config_open_default(&config) == 0 {
            defer { git_config_free(config) }
            var buffer = git_buf()
            if git_config_get_string_buf(&buffer, config, "cards.transport") == 0 {
                configured = buffer.ptr.map { String(cString: $0) }
            }
            git_buf_dispose(&buffer)
        }
        git_error_clear()
        return try transport(settings, configured: configured)
    }

    private static func transport(_ settings: RemoteSettings, configured: String?) throws(GitError) -> RemoteTransport {
        for (value, source) in [(settings.transport, "CARDS_TRANSPORT"), (configured, "git config cards.transport")] {
            guard let value, !value.isEmpty else { continue }
            guard let chosen = RemoteTransport(rawValue: value.lowercased()) else {
                throw GitError(
                    code: .invalidArgument, message: "\(source) is '\(value)': it must be git or libgit2",
                    function: "transport")
            }
            return chosen
        }
        return GitProcess.executable == nil ? .libgit2 : .git
    }

    /// `fetch` through the git executable: each `refs/heads/X:DEST` is fetched into a temporary ref of
    /// ours (git never writes a branch or tracking ref here), read back, then DEST moved by us.
    func fetchThroughGit(_ remote: ResolvedRemote, refspecs: [String]) throws(GitError) -> FetchResult {
        try startFetchThroughGit(remote, refspecs: refspecs).finish()
    }

    /// `fetchThroughGit` started: git runs while the caller does other work, then `finish` (or `abandon`).
    func startFetchThroughGit(_ remote: ResolvedRemote, refspecs: [String]) throws(GitError) -> PendingFetch {
        var pairs: [PendingFetch.Pair] = []
        for (index, spec) in refspecs.enumerated() {
            let parts = (spec.hasPrefix("+") ? String(spec.dropFirst()) : spec)
                .split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, parts[0].hasPrefix("refs/heads/"), !parts[1].isEmpty, !spec.contains("*") else {
                throw GitError(
                    code: .invalidArgument, message: "unsupported fetch refspec '\(spec)'", function: "fetch")
            }
            pairs.append(
                PendingFetch.Pair(
                    source: parts[0], destination: parts[1], temporary: "refs/cards/fetch/\(getpid())/\(index)"))
        }
        removeAbandonedFetchReferences()
        let arguments =
            ["fetch", "--no-tags", "--no-write-fetch-head", "--no-prune", "--no-recurse-submodules", "--progress"]
            + ["--", remote.name] + pairs.map { "+\($0.source):\($0.temporary)" }
        let process = gitProcess(arguments, settings: remote.settings)
        let running = try process.start()
        return PendingFetch(repository: self, remote: remote, pairs: pairs, process: process, running: running)
    }

    /// Deletes the temporary fetch refs (`refs/cards/fetch/PID/N`) of `cards` processes that no longer
    /// run: one killed mid-fetch could not, and its refs would keep what they fetched alive for git's gc.
    func removeAbandonedFetchReferences() {
        guard let names = try? referenceTargets(glob: "refs/cards/fetch/*").keys else { return }
        for name in names {
            let parts = name.split(separator: "/")
            guard parts.count == 5, let pid = Int32(parts[3]), pid != getpid(), !LockFiles.isAlive(pid) else {
                continue
            }
            try? deleteReference(name)
        }
    }

    /// `push` through the git executable: `git push --porcelain`, never forced, its per-ref status read
    /// to tell the remote having moved (`.nonFastForward`) from any other refusal (`.pushRefused`).
    /// `checkedPushable`: `checkPushable` was run for this push already.
    func pushThroughGit(_ remote: ResolvedRemote, refspecs: [String], checkedPushable: Bool) throws(GitError)
        -> PushResult
    {
        // As libgit2's path does: a repository here with a working tree is refused before anything is sent.
        if !checkedPushable {
            try checkPushable(remote, branch: refspecs.first?.split(separator: ":").last.map(String.init) ?? "")
        }
        let url = remote.shownURL(pushing: true)
        // A push killed on this machine left a ref lock in a remote on this disk, which nobody else ever
        // will remove (receive-pack would refuse every push for it): gone first, as `pushLocal` does.
        if let path = remote.localPath, let target = try? Repository.open(at: path) {
            for spec in refspecs {
                guard let destination = spec.split(separator: ":").last else { continue }
                let lock = target.gitDirectory + destination + ".lock"
                if access(lock, F_OK) == 0 { _ = LockFiles.clearIfAbandoned(lock, age: 2) }
            }
        }
        let outcome = try runGit(
            ["push", "--porcelain", "--progress", "--", remote.name] + refspecs, settings: remote.settings)
        let server = GitReply.serverMessages(outcome.errorLines)
        let rejected = GitReply.statuses(outcome.output).filter { $0.flag == "!" }
        if !rejected.isEmpty && !outcome.stalled && !outcome.interrupted {
            let reasons = rejected.map { "\($0.reference) \($0.summary) (\($0.reason ?? "no reason given"))" }
                .joined(separator: "; ")
            if rejected.allSatisfy(\.remoteMoved) {
                throw GitError(
                    code: .nonFastForward, message: "the remote moved since the fetch (\(reasons))",
                    function: "git push", serverMessages: server, url: url)
            }
            throw GitError(
                code: .pushRefused, message: reasons, function: "git push",
                serverMessages: server, url: url)
        }
        guard outcome.status == 0, !outcome.stalled, !outcome.interrupted else {
            throw GitReply.failure(outcome, url: url, pushing: true, timeout: stallTimeout(remote.settings))
        }
        return PushResult(serverMessages: server)
    }

    /// Runs git on this repository for a transfer: in its top folder (where a relative remote path
    /// counts from), with no automatic gc or maintenance of ours (cards packs its own objects).
    func runGit(_ arguments: [String], settings: RemoteSettings) throws(GitError) -> GitProcess.Outcome {
        try gitProcess(arguments, settings: settings).run()
    }

    /// The git of `runGit`, not started.
    func gitProcess(_ arguments: [String], settings: RemoteSettings) -> GitProcess {
        var process = GitProcess(
            arguments: ["-c", "gc.auto=0", "-c", "maintenance.auto=false", "--git-dir=\(gitDirectory)"] + arguments,
            directory: workingDirectory ?? gitDirectory, stallTimeout: stallTimeout(settings))
        process.environment = ["GIT_DIR": nil, "GIT_WORK_TREE": nil, "GIT_INDEX_FILE": nil]
        process.applyCredentials(settings, sshCommandConfigured: (try? configString("core.sshCommand")) != nil)
        process.forwardProgress = settings.progress != nil
        process.isInterrupted = settings.isInterrupted
        return process
    }

    /// Seconds of silence after which a transfer through git is given up.
    func stallTimeout(_ settings: RemoteSettings) -> Double {
        settings.timeout.flatMap { $0.isFinite && $0 > 0 ? min($0, 86_400) : nil } ?? GitProcess.defaultStallTimeout
    }
}

extension GitProcess {
    /// Gives git the credentials `settings` holds, as libgit2's transport uses them (`RemoteCallbacks`),
    /// so a library caller's keys and token work through either transport, not only `cards`'s
    /// environment variables (`fromEnvironment()` puts CARDS_SSH_KEY, CARDS_HTTP_USER and
    /// CARDS_HTTP_TOKEN in the same fields):
    /// - ssh keys someone chose become `ssh -i KEY…` (and a known-hosts file someone chose,
    ///   `-o UserKnownHostsFile=`), unless git was told how to run ssh (GIT_SSH_COMMAND, GIT_SSH,
    ///   core.sshCommand): the user's own command wins. Default key files are left to ssh, which offers
    ///   them itself (and reads its known_hosts from the passwd home, not `$HOME`).
    /// - an http token becomes a credential helper after the user's own, reading the user and token
    ///   from its environment when git asks: never written into a command line or a config file.
    mutating func applyCredentials(_ settings: RemoteSettings, sshCommandConfigured: @autoclosure () -> Bool) {
        let keys = settings.sshKeysAreDefaults ? [] : settings.sshKeys.filter { !$0.isEmpty }
        let knownHosts =
            settings.knownHostsPathIsDefault ? nil : settings.knownHostsPath.flatMap { $0.isEmpty ? nil : $0 }
        if !keys.isEmpty || knownHosts != nil, RemoteSettings.environment("GIT_SSH_COMMAND") == nil,
            RemoteSettings.environment("GIT_SSH") == nil, !sshCommandConfigured()
        {
            var words = ["ssh"]
            for key in keys { words += ["-i", ShellWord.singleQuoted(key)] }
            if let knownHosts { words += ["-o", ShellWord.singleQuoted("UserKnownHostsFile=" + knownHosts)] }
            environment["GIT_SSH_COMMAND"] = words.joined(separator: " ")
        }
        if let token = settings.httpToken, !token.isEmpty {
            arguments.insert(contentsOf: ["-c", "credential.helper=" + Self.tokenHelper], at: 0)
            environment["CARDS_HTTP_TOKEN"] = token
            environment["CARDS_HTTP_USER"] = settings.httpUser.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// A git credential helper (run by git's shell) that answers `get` with CARDS_HTTP_USER, when set,
    /// and CARDS_HTTP_TOKEN, as they are in its environment when git runs it.
    static let tokenHelper =
        #"!f() { test "$1" = get || return 0; test -z "$CARDS_HTTP_USER" || echo "username=$CARDS_HTTP_USER"; "#
        + #"echo "password=$CARDS_HTTP_TOKEN"; }; f"#
}

/// A fetch through git that is under way (`Repository.startFetch`): git transfers while the caller
/// does other work on the repository (git writes only objects and refs of ours under
/// `refs/cards/fetch/`); `finish` then reads it to the end and moves the destination refs, or `abandon`
/// stops it and leaves every ref as it was. One of the two is called once.
package final class PendingFetch {
    /// One `refs/heads/X:DEST` of the fetch (`source`, `destination`), and the temporary ref git writes
    /// it to.
    struct Pair {
        let source: String
        let destination: String
        let temporary: String
    }

    /// The repository fetched into.
    let repository: Repository
    /// The remote fetched from, as resolved when the fetch started.
    let remote: ResolvedRemote
    /// What is fetched where.
    let pairs: [Pair]
    /// The git run (its settings: stall timeout, progress, interruption).
    let process: GitProcess
    /// The git under way, until `finish` or `abandon` takes it.
    private var running: GitProcess.Running?

    init(
        repository: Repository, remote: ResolvedRemote, pairs: [Pair], process: GitProcess,
        running: GitProcess.Running
    ) {
        self.repository = repository
        self.remote = remote
        self.pairs = pairs
        self.process = process
        self.running = running
    }

    /// Reads git to the end, then moves each destination ref to what was fetched (the remote's branch
    /// missing is an empty answer, not a failure).
    package func finish() throws(GitError) -> FetchResult {
        guard let running else {
            throw GitError(code: .invalidArgument, message: "the fetch was already ended", function: "fetch")
        }
        self.running = nil
        defer { deleteTemporaryReferences() }
        var outcome = process.watch(running)
        // Interrupted while the caller worked (git, in the same process group, died of the same signal
        // before `watch` began to ask): said as an interruption, not as git's exit status.
        if outcome.status != 0 && process.isInterrupted?() == true { outcome.interrupted = true }
        let url = remote.shownURL(pushing: false)
        guard outcome.status == 0, !outcome.stalled, !outcome.interrupted else {
            // The remote has no such branch (an empty repository): not a failure, an answer.
            if !outcome.stalled && !outcome.interrupted
                && GitReply.complaint(outcome.errorLines).contains(where: { $0.hasPrefix("couldn't find remote ref") })
            {
                return FetchResult(heads: [:], receivedObjects: 0, receivedBytes: 0)
            }
            throw GitReply.failure(
                outcome, url: url, pushing: false, timeout: repository.stallTimeout(remote.settings))
        }
        var heads: [String: ObjectID] = [:]
        for pair in pairs {
            guard let id = try repository.referenceTarget(pair.temporary) else { continue }
            heads[pair.source] = id
            try repository.setReference(pair.destination, to: id, logMessage: "cards: fetch \(remote.name)")
        }
        return FetchResult(heads: heads, receivedObjects: 0, receivedBytes: 0)
    }

    /// Stops git (if still running) and deletes its temporary refs: no ref of the repository moved.
    package func abandon() {
        guard let running else { return }
        self.running = nil
        GitProcess.stop(running)
        deleteTemporaryReferences()
    }

    /// The refs git fetched into (`refs/cards/fetch/PID/N`), gone however the fetch ended.
    private func deleteTemporaryReferences() {
        for pair in pairs { try? repository.deleteReference(pair.temporary) }
    }

    deinit { abandon() }
}
