import CGit2
import Glibc

/// What a fetch brought back.
package struct FetchResult: Sendable {
    /// Every branch the remote advertised (`refs/heads/…`), by full name; empty for an empty remote.
    package var heads: [String: ObjectID]
    /// Objects received.
    package var receivedObjects: Int
    /// Bytes received.
    package var receivedBytes: Int
}

extension Repository {
    /// Fetches from a configured remote (by name) or a URL with explicit refspecs such as
    /// `refs/heads/main:refs/remotes/origin/main`: downloads what is missing and moves the
    /// remote-tracking refs the refspecs name. Writes no FETCH_HEAD and no tags. Through the git
    /// executable or libgit2, as `transport(_:)` chooses.
    package func fetch(from remote: String, refspecs: [String], settings: RemoteSettings) throws(GitError)
        -> FetchResult
    {
        if try transport(settings) == .git {
            return try fetchThroughGit(from: remote, refspecs: refspecs, settings: settings)
        }
        let (handle, url) = try openRemote(remote)
        defer { git_remote_free(handle) }
        if let path = localRemotePath(url) {
            // As git's upload-pack refuses a repository on this machine that another user owns.
            try RepositoryOwnership.checkRemote(at: path)
            if let fetched = try fetchLocal(path: path, refspecs: refspecs, logMessage: "cards: fetch \(remote)") {
                return fetched
            }
        }
        let state = RemoteCallbackState(settings: settings, url: url)
        var options = git_fetch_options()
        try check(git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)), "git_fetch_options_init")
        state.install(into: &options.callbacks)
        options.update_fetchhead = 0
        options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
        options.prune = GIT_FETCH_NO_PRUNE
        let result = withExtendedLifetime(state) {
            state.run {
                withStringArray(refspecs) { array in
                    git_remote_fetch(handle, &array, &options, "cards: fetch \(remote)")
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

    /// Pushes with explicit refspecs such as `refs/heads/main:refs/heads/main`; never forced.
    /// A refusal because the remote moved comes back as `.nonFastForward`, whether the client saw it
    /// (`GIT_ENONFASTFORWARD`, `[rejected] (fetch first)`) or only the server did; any other refusal
    /// of the server (a hook, a branch rule, permissions) as `.pushRefused`, with its reason and
    /// `remote:` lines. Through the git executable or libgit2, as `transport(_:)` chooses.
    @discardableResult
    package func push(to remote: String, refspecs: [String], settings: RemoteSettings) throws(GitError) -> PushResult {
        if let forced = refspecs.first(where: { $0.hasPrefix("+") }) {
            throw GitError(code: .refused, message: "refusing a forced push (\(forced))", function: "push")
        }
        if try transport(settings) == .git {
            return try pushThroughGit(to: remote, refspecs: refspecs, settings: settings)
        }
        let (handle, url) = try openRemote(remote)
        defer { git_remote_free(handle) }
        if let path = localRemotePath(url) {
            // As git's receive-pack refuses a repository on this machine that another user owns.
            try RepositoryOwnership.checkRemote(at: path)
            // libgit2's local transport does not compare-and-swap the ref: push by hand (see pushLocal).
            return PushResult(warnings: try pushLocal(path: path, url: url, refspecs: refspecs))
        }
        let state = RemoteCallbackState(settings: settings, url: url)
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

    /// The configured remotes, by name, with their URLs.
    package func remotes() throws(GitError) -> [(name: String, url: String)] {
        var names = git_strarray()
        try check(git_remote_list(&names, pointer), "git_remote_list")
        defer { git_strarray_dispose(&names) }
        var result: [(name: String, url: String)] = []
        for index in 0..<names.count {
            guard let name = names.strings[index].map({ String(cString: $0) }) else { continue }
            result.append((name, try remoteURL(name) ?? ""))
        }
        return result
    }

    /// The URL of a configured remote, or nil when there is no such remote.
    package func remoteURL(_ name: String) throws(GitError) -> String? {
        var remote: OpaquePointer?
        let result = git_remote_lookup(&remote, pointer, name)
        if result == GIT_ENOTFOUND.rawValue || result == GIT_EINVALIDSPEC.rawValue {
            git_error_clear()
            return nil
        }
        try check(result, "git_remote_lookup")
        defer { git_remote_free(remote) }
        return git_remote_url(remote).map { String(cString: $0) }
    }

    /// Adds a remote to the repository's config with git's default fetch refspec
    /// (`+refs/heads/*:refs/remotes/NAME/*`), so the git CLI sees it too.
    package func addRemote(name: String, url: String) throws(GitError) {
        var valid: Int32 = 0
        try check(git_remote_name_is_valid(&valid, name), "git_remote_name_is_valid")
        guard valid == 1 else {
            throw GitError(
                code: .invalidArgument, message: "'\(name)' is not a valid remote name",
                function: "git_remote_name_is_valid")
        }
        var remote: OpaquePointer?
        try check(git_remote_create(&remote, pointer, name, url), "git_remote_create")
        git_remote_free(remote)
    }

    /// Removes a remote, its config and its remote-tracking refs.
    package func removeRemote(name: String) throws(GitError) {
        try check(git_remote_delete(pointer, name), "git_remote_delete")
    }

    /// A configured remote by name, else an anonymous one for a URL or path.
    func openRemote(_ remote: String) throws(GitError) -> (OpaquePointer, String) {
        var handle: OpaquePointer?
        let result = git_remote_lookup(&handle, pointer, remote)
        if result == 0, let handle {
            let url = git_remote_url(handle).map { String(cString: $0) } ?? remote
            // libgit2 would take a relative path from the current folder; git, and we, from the deck's.
            if let path = localRemotePath(url), path != url {
                let set = git_remote_set_instance_url(handle, path)
                guard set == 0 else {
                    git_remote_free(handle)
                    throw GitError.last(set, function: "git_remote_set_instance_url")
                }
            }
            return (handle, url)
        }
        guard result == GIT_ENOTFOUND.rawValue || result == GIT_EINVALIDSPEC.rawValue else {
            throw GitError.last(result, function: "git_remote_lookup")
        }
        git_error_clear()
        try check(git_remote_create_anonymous(&handle, pointer, remote), "git_remote_create_anonymous")
        guard let handle else {
            throw GitError(code: .notFound, message: "no remote \(remote)", function: "git_remote_create_anonymous")
        }
        return (handle, remote)
    }

    /// The folder a remote URL names when it is a repository on this machine (a path or `file://`),
    /// else nil. A relative path counts from the top of this repository (its working tree, or the
    /// repository itself when bare), as git counts it whatever the current folder.
    package func localRemotePath(_ url: String) -> String? {
        guard let local = RemoteURL(url), local.transport == .local else { return nil }
        guard local.isRelativePath else { return local.path }
        return (workingDirectory ?? gitDirectory) + local.path
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

/// Calls `body` with a `git_strarray` of `strings` that lives only during the call.
func withStringArray<T>(_ strings: [String], _ body: (inout git_strarray) -> T) -> T {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeMutableBufferPointer { buffer in
        var array = git_strarray(strings: buffer.baseAddress, count: buffer.count)
        return body(&array)
    }
}
