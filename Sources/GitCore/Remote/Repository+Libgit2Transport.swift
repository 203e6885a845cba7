import CGit2
import Glibc

/// libgit2's network transport: the only one where no `git` executable exists (an app embedding
/// CardStore). It takes the same `ResolvedRemote` as git's (`Repository+GitTransport`); a remote on
/// this machine is fetched from and pushed to by hand (`Repository+RemoteLocal`).
extension Repository {
    /// `fetch` through libgit2.
    func fetchThroughLibgit2(_ remote: ResolvedRemote, refspecs: [String]) throws(GitError) -> FetchResult {
        let handle = try openRemote(remote)
        defer { git_remote_free(handle) }
        if let path = remote.localPath {
            // As git's upload-pack refuses a repository on this machine that another user owns.
            try RepositoryOwnership.checkRemote(at: path)
            if let fetched = try fetchLocal(path: path, refspecs: refspecs, logMessage: "cards: fetch \(remote.name)") {
                return fetched
            }
        }
        let state = RemoteCallbackState(settings: remote.settings, url: remote.url)
        var options = git_fetch_options()
        try check(git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)), "git_fetch_options_init")
        state.install(into: &options.callbacks)
        options.update_fetchhead = 0
        options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
        options.prune = GIT_FETCH_NO_PRUNE
        let result = withExtendedLifetime(state) {
            state.run {
                withStringArray(refspecs) { array in
                    git_remote_fetch(handle, &array, &options, "cards: fetch \(remote.name)")
                }
            }
        }
        try state.rethrow(result, "git_remote_fetch")
        var fetched = FetchResult(heads: try advertisedHeads(handle), receivedObjects: 0, receivedBytes: 0)
        if let stats = git_remote_stats(handle) {
            fetched.receivedObjects = Int(stats.pointee.received_objects)
            fetched.receivedBytes = Int(stats.pointee.received_bytes)
        }
        return fetched
    }

    /// `push` through libgit2; to a repository on this machine by hand (`pushLocal`), which refuses
    /// one that cannot take the push itself.
    func pushThroughLibgit2(_ remote: ResolvedRemote, refspecs: [String]) throws(GitError) -> PushResult {
        let handle = try openRemote(remote)
        defer { git_remote_free(handle) }
        if let path = remote.localPath {
            // As git's receive-pack refuses a repository on this machine that another user owns.
            try RepositoryOwnership.checkRemote(at: path)
            // libgit2's local transport does not compare-and-swap the ref: push by hand (see pushLocal).
            return PushResult(warnings: try pushLocal(path: path, url: remote.url, refspecs: refspecs))
        }
        let state = RemoteCallbackState(settings: remote.settings, url: remote.url)
        var options = git_push_options()
        try check(git_push_options_init(&options, UInt32(GIT_PUSH_OPTIONS_VERSION)), "git_push_options_init")
        state.install(into: &options.callbacks)
        let result = withExtendedLifetime(state) {
            state.run { withStringArray(refspecs) { array in git_remote_push(handle, &array, &options) } }
        }
        if result == GIT_ENONFASTFORWARD.rawValue {
            let error = GitError.last(result, function: "git_remote_push")
            throw GitError(
                code: .nonFastForward, message: "the remote moved since the fetch (\(error.message))",
                function: "git_remote_push")
        }
        try state.rethrow(result, "git_remote_push")
        if !state.rejected.isEmpty {
            let reasons = state.rejected.map { "\($0.reference): \($0.status)" }.joined(separator: "; ")
            // Only a server that lost a race (its compare-and-swap failed) or found us behind asks for a new
            // fetch; a hook, a rule or a permission would refuse the next attempt as it did this one.
            let moved = state.rejected.allSatisfy { rejected in
                ["non-fast-forward", "fetch first", "failed to update ref", "cannot lock ref", "failed to lock"]
                    .contains { rejected.status.contains($0) }
            }
            if moved {
                throw GitError(
                    code: .nonFastForward, message: "the remote moved since the fetch (\(reasons))",
                    function: "push_update_reference")
            }
            throw GitError(
                code: .pushRefused, message: reasons, function: "push_update_reference",
                serverMessages: state.serverMessages)
        }
        return PushResult(serverMessages: state.serverMessages)
    }

    /// The branch the remote's HEAD names, asked through libgit2 (`remoteHeadBranch`).
    func remoteHeadBranchThroughLibgit2(_ remote: ResolvedRemote) throws(GitError) -> String? {
        let handle = try openRemote(remote)
        defer { git_remote_free(handle) }
        let state = RemoteCallbackState(settings: remote.settings, url: remote.url)
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

    /// libgit2's handle on `remote`, for one transfer: the configured remote by name (with its config:
    /// push URL, refspecs, proxy), else an anonymous one for the URL or path.
    func openRemote(_ remote: ResolvedRemote) throws(GitError) -> OpaquePointer {
        var handle: OpaquePointer?
        let result = git_remote_lookup(&handle, pointer, remote.name)
        if result == 0, let handle {
            // libgit2 would take a relative path from the current folder; git, and we, from the deck's.
            if remote.isConfigured, let path = remote.localPath, path != remote.url {
                let set = git_remote_set_instance_url(handle, path)
                guard set == 0 else {
                    git_remote_free(handle)
                    throw GitError.last(set, function: "git_remote_set_instance_url")
                }
            }
            return handle
        }
        guard result == GIT_ENOTFOUND.rawValue || result == GIT_EINVALIDSPEC.rawValue else {
            throw GitError.last(result, function: "git_remote_lookup")
        }
        git_error_clear()
        try check(git_remote_create_anonymous(&handle, pointer, remote.name), "git_remote_create_anonymous")
        guard let handle else {
            throw GitError(
                code: .notFound, message: "no remote \(remote.name)", function: "git_remote_create_anonymous")
        }
        return handle
    }

    /// The branches a connected (or just disconnected) remote advertised.
    func advertisedHeads(_ remote: OpaquePointer) throws(GitError) -> [String: ObjectID] {
        var heads: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
        var count = 0
        try check(git_remote_ls(&heads, &count, remote), "git_remote_ls")
        var result: [String: ObjectID] = [:]
        for index in 0..<count {
            guard let head = heads?[index], let name = head.pointee.name else { continue }
            let text = String(cString: name)
            if text.hasPrefix("refs/heads/") { result[text] = ObjectID(head.pointee.oid) }
        }
        return result
    }
}
