import CGit2

extension Repository {
    /// The branch a remote's HEAD names (`refs/heads/master`, say), as `git clone` takes it: nil when
    /// its HEAD names no branch (an empty repository) or the server does not say. Through git's own
    /// client (`git ls-remote --symref`) or libgit2's, as `transport(settings)` chooses.
    package func remoteHeadBranch(_ remote: String, settings: RemoteSettings) throws(GitError) -> String? {
        let configured = try remoteURL(remote)
        if let path = localRemotePath(configured ?? remote) {
            // On this machine: read its HEAD, without a transfer.
            return (try? Repository.open(at: path))?.headReferenceName().flatMap {
                $0.hasPrefix("refs/heads/") ? $0 : nil
            }
        }
        if try transport(settings) == .git {
            let outcome = try runGit(["ls-remote", "--symref", "--", remote, "HEAD"], settings: settings)
            guard outcome.status == 0, !outcome.stalled, !outcome.interrupted else {
                let url = RemoteURL(try displayURL(of: remote, push: false))?.redacted ?? remote
                throw GitReply.failure(outcome, url: url, pushing: false, timeout: stallTimeout(settings))
            }
            for line in String(decoding: outcome.output, as: UTF8.self).split(separator: "\n")
            where line.hasPrefix("ref: ") && line.hasSuffix("\tHEAD") {
                let target = line.dropFirst(5).dropLast(5)
                if target.hasPrefix("refs/heads/") { return String(target) }
            }
            return nil
        }
        let (handle, url) = try openRemote(remote)
        defer { git_remote_free(handle) }
        let state = RemoteCallbackState(settings: settings, url: url)
        var callbacks = git_remote_callbacks()
        try check(
            git_remote_init_callbacks(&callbacks, UInt32(GIT_REMOTE_CALLBACKS_VERSION)), "git_remote_init_callbacks")
        state.install(into: &callbacks)
        let connected = withExtendedLifetime(state) {
            state.run { git_remote_connect(handle, GIT_DIRECTION_FETCH, &callbacks, nil, nil) }
        }
        try state.rethrow(connected, "git_remote_connect")
        defer { git_remote_disconnect(handle) }
        var name = git_buf()
        defer { git_buf_dispose(&name) }
        let found = git_remote_default_branch(&name, handle)
        guard found == 0, let pointer = name.ptr else {
            git_error_clear()
            return nil
        }
        let branch = String(cString: pointer)
        return branch.hasPrefix("refs/heads/") ? branch : nil
    }
}
