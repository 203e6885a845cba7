import CGit2

extension Repository {
    /// Clones `remote` (its URL; `ResolvedRemote(url:transport:settings:)`) into the new folder `path`
    /// with a working tree, through libgit2: remote `origin`, branch `branch` checked out (when the
    /// remote has it; an empty remote gives an unborn branch). Credentials, host keys and progress as
    /// for `fetch`.
    package static func clone(_ remote: ResolvedRemote, to path: String, branch: String) throws(GitError) -> Repository
    {
        Libgit2.ensureInitialized()
        let url = remote.url
        // As git's clone and upload-pack refuse a repository on this machine that another user owns.
        if let local = remote.localPath { try RepositoryOwnership.checkRemote(at: local) }
        let state = RemoteCallbackState(settings: remote.settings, url: url)
        var options = git_clone_options()
        try check(git_clone_options_init(&options, UInt32(GIT_CLONE_OPTIONS_VERSION)), "git_clone_options_init")
        state.install(into: &options.fetch_opts.callbacks)
        options.fetch_opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
        options.checkout_opts.checkout_strategy = GIT_CHECKOUT_SAFE.rawValue
        var out: OpaquePointer?
        let result = withExtendedLifetime(state) {
            state.run {
                branch.withCString { name in
                    options.checkout_branch = name
                    return git_clone(&out, url, path, &options)
                }
            }
        }
        try state.rethrow(result, "git_clone")
        // Hand back a fresh handle opened the ordinary way (the clone's handle has fetch state).
        git_repository_free(out)
        return try Repository.open(at: path)
    }
}
