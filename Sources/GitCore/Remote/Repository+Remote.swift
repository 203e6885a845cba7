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
    /// Fetches from `remote` with explicit refspecs such as `refs/heads/main:refs/remotes/origin/main`:
    /// downloads what is missing and moves the remote-tracking refs the refspecs name. Writes no
    /// FETCH_HEAD and no tags. Through the git executable or libgit2, as `remote.transport` says.
    package func fetch(_ remote: ResolvedRemote, refspecs: [String]) throws(GitError) -> FetchResult {
        switch remote.transport {
        case .git: return try fetchThroughGit(remote, refspecs: refspecs)
        case .libgit2: return try fetchThroughLibgit2(remote, refspecs: refspecs)
        }
    }

    /// `fetch` started through the git executable, for the caller to `finish` after other work (git
    /// transfers meanwhile); nil through libgit2's transport, which fetches in this process: `fetch` then.
    package func startFetch(_ remote: ResolvedRemote, refspecs: [String]) throws(GitError) -> PendingFetch? {
        guard remote.transport == .git else { return nil }
        return try startFetchThroughGit(remote, refspecs: refspecs)
    }

    /// `fetch` from a configured remote (by name) or a URL, resolved for this one transfer.
    package func fetch(from remote: String, refspecs: [String], settings: RemoteSettings) throws(GitError)
        -> FetchResult
    {
        try fetch(try resolveRemote(remote, settings: settings), refspecs: refspecs)
    }

    /// Pushes with explicit refspecs such as `refs/heads/main:refs/heads/main`; never forced.
    /// A refusal because the remote moved comes back as `.nonFastForward`, whether the client saw it
    /// (`GIT_ENONFASTFORWARD`, `[rejected] (fetch first)`) or only the server did; any other refusal
    /// of the server (a hook, a branch rule, permissions) as `.pushRefused`, with its reason and
    /// `remote:` lines. Through the git executable or libgit2, as `remote.transport` says.
    /// `checkedPushable`: the caller ran `checkPushable` for this push already (a sync does, before it
    /// merges anything for it), so it is not run again.
    @discardableResult
    package func push(_ remote: ResolvedRemote, refspecs: [String], checkedPushable: Bool = false) throws(GitError)
        -> PushResult
    {
        if let forced = refspecs.first(where: { $0.hasPrefix("+") }) {
            throw GitError(code: .refused, message: "refusing a forced push (\(forced))", function: "push")
        }
        switch remote.transport {
        case .git: return try pushThroughGit(remote, refspecs: refspecs, checkedPushable: checkedPushable)
        case .libgit2: return try pushThroughLibgit2(remote, refspecs: refspecs)
        }
    }

    /// `push` to a configured remote (by name) or a URL, resolved for this one transfer.
    @discardableResult
    package func push(to remote: String, refspecs: [String], settings: RemoteSettings) throws(GitError) -> PushResult {
        try push(try resolveRemote(remote, settings: settings), refspecs: refspecs)
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

    /// The folder a remote URL names when it is a repository on this machine (a path or `file://`),
    /// else nil. A relative path counts from the top of this repository (its working tree, or the
    /// repository itself when bare), as git counts it whatever the current folder.
    package func localRemotePath(_ url: String) -> String? {
        guard let local = RemoteURL(url), local.transport == .local else { return nil }
        guard local.isRelativePath else { return local.path }
        return (workingDirectory ?? gitDirectory) + local.path
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
