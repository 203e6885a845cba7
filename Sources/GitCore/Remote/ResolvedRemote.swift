import CGit2

/// A remote resolved once for a sync, a fetch or a clone: its URLs, the folder it is when on this
/// machine, the client that talks to it and the settings it is talked to with. Fetch, push, the
/// pushability check and the remote's HEAD all take this value, through git
/// (`Repository+GitTransport`) or libgit2 (`Repository+Libgit2Transport`), so nothing about the
/// remote is looked up again between them.
package struct ResolvedRemote: Sendable {
    /// A configured remote's name (git and libgit2 then read its config themselves), or the URL itself
    /// for one that is not configured.
    package var name: String
    /// Its URL (`remote.NAME.url`, as libgit2 reads it, after `url.*.insteadOf`), else `name`.
    package var url: String
    /// Its push URL (`remote.NAME.pushurl`), when one is set: only what a push through git says it used.
    package var pushURL: String?
    /// Whether `name` is a configured remote.
    package var isConfigured = true
    /// The folder it is when it is a repository on this machine (a relative path counted from the
    /// repository's top, as git counts it), else nil.
    package var localPath: String?
    /// The client that moves objects to and from it.
    package var transport: RemoteTransport
    /// Credentials, host keys, progress, timeout and interruption.
    package var settings: RemoteSettings

    /// A configured remote already known (a deck's record of it), with nothing looked up.
    package init(
        name: String, url: String, localPath: String?, transport: RemoteTransport, settings: RemoteSettings
    ) {
        self.name = name
        self.url = url
        self.localPath = localPath
        self.transport = transport
        self.settings = settings
    }

    /// A URL for a repository not made yet (a clone's): not configured, and a path only when absolute.
    package init(url: String, transport: RemoteTransport, settings: RemoteSettings) {
        let local = RemoteURL(url)
        self.init(
            name: url, url: url,
            localPath: local.flatMap { $0.transport == .local && !$0.isRelativePath ? $0.path : nil },
            transport: transport, settings: settings)
        isConfigured = false
    }

    /// The URL for messages, without a password: the push URL when `pushing` and one is set; `name`
    /// when the URL is not one git would take.
    package func shownURL(pushing: Bool) -> String {
        RemoteURL(pushing ? pushURL ?? url : url)?.redacted ?? name
    }
}

extension Repository {
    /// Resolves `remote` (a configured remote's name, else a URL or path) once: its URLs as configured,
    /// its folder when it is on this machine, and the transport (`transport` when given, else as
    /// `transport(_:)` chooses).
    package func resolveRemote(
        _ remote: String, transport chosen: RemoteTransport? = nil, settings: RemoteSettings
    ) throws(GitError) -> ResolvedRemote {
        let transport: RemoteTransport
        if let chosen { transport = chosen } else { transport = try self.transport(settings) }
        var handle: OpaquePointer?
        let result = git_remote_lookup(&handle, pointer, remote)
        if result == GIT_ENOTFOUND.rawValue || result == GIT_EINVALIDSPEC.rawValue {
            git_error_clear()
            var anonymous = ResolvedRemote(
                name: remote, url: remote, localPath: localRemotePath(remote), transport: transport, settings: settings)
            anonymous.isConfigured = false
            return anonymous
        }
        try check(result, "git_remote_lookup")
        defer { git_remote_free(handle) }
        let url = git_remote_url(handle).map { String(cString: $0) } ?? remote
        var configured = ResolvedRemote(
            name: remote, url: url, localPath: localRemotePath(url), transport: transport, settings: settings)
        configured.pushURL = git_remote_pushurl(handle).map { String(cString: $0) }
        return configured
    }
}
