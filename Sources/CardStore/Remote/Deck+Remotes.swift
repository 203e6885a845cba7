import GitCore

/// A remote a deck syncs with, as configured in the repository (`git remote -v` shows the same).
public struct DeckRemote: Sendable, Hashable {
    /// Its name (`origin`).
    public var name: String
    /// Its URL or path.
    public var url: String
    /// The folder it names when it is on this machine (a relative `url` resolved from the deck's
    /// folder, as git resolves it), else nil.
    package var localPath: String?
    /// The remote's branch the deck syncs with (a full ref name): the deck branch's upstream there
    /// (`branch.NAME.merge`), else the branch of the deck's own name.
    public var branch = Deck.defaultBranch

    /// Creates a remote record; `localPath` defaults to `url`'s path when it is an absolute local one.
    package init(name: String, url: String, localPath: String? = nil) {
        self.name = name
        self.url = url
        if let localPath {
            self.localPath = localPath
        } else if let local = RemoteURL(url), local.transport == .local, !local.isRelativePath {
            self.localPath = local.path
        }
    }

    /// The URL with any password hidden, for messages.
    public var displayURL: String { RemoteURL(url)?.redacted ?? url }

    /// `branch` as git names it on this side: `origin/main`.
    package var trackingName: String { "\(name)/" + branch.dropFirst("refs/heads/".count) }

    /// The remote-tracking ref our fetch moves.
    package var trackingReference: String { "refs/remotes/" + trackingName }
}

extension Deck {
    /// The configured remotes, sorted by name.
    public func remotes() throws(StoreError) -> [DeckRemote] {
        try withStoreError("reading the remotes") { () throws(GitError) in
            try repository.remotes().map {
                DeckRemote(name: $0.name, url: $0.url, localPath: repository.localRemotePath($0.url))
            }.sorted { $0.name < $1.name }
        }
    }

    /// Adds a remote (stored in the repository's git config, with git's default fetch refspec) and
    /// returns it. A relative path counts from the current folder, as a path argument does, and is
    /// stored whole: git would count it from the deck's folder.
    @discardableResult
    public func addRemote(name: String, url given: String) throws(StoreError) -> DeckRemote {
        let url = Deck.absoluteIfLocal(given)
        guard RemoteURL(url) != nil, !url.contains(where: { $0.isNewline }) else {
            throw StoreError(
                .invalidInput,
                "'\(url)' is not a git URL: give a path, file://, git://, http(s)://, ssh:// URL or user@host:path")
        }
        if name.isEmpty || name.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) {
            throw StoreError(
                .invalidInput,
                "'\(CommitMessage.shown(name))' cannot name a remote: give a name without spaces (such as origin or "
                    + "laptop)")
        }
        // `origin/main` would read as the branch main of origin (and git keeps its refs in a folder of that name).
        if name.contains("/") {
            throw StoreError(
                .invalidInput, "'\(name)' cannot name a remote: no '/' in a remote's name (such as origin or laptop)")
        }
        if let existing = try remotes().first(where: { $0.name == name }) {
            throw StoreError(
                .alreadyExists,
                "there is already a remote named \(name) (\(existing.displayURL)); remove it first with `cards remote remove \(ShellWord.operand(name))`"
            )
        }
        try withStoreError("adding remote \(name)") { () throws(GitError) in
            try repository.addRemote(name: name, url: url)
        }
        try followSyncRemote(added: name)
        return DeckRemote(name: name, url: url)
    }

    /// `url` made absolute (from the current folder) when it is a relative path on this machine;
    /// anything else as it is.
    static func absoluteIfLocal(_ url: String) -> String {
        guard RemoteURL(url)?.isRelativePath == true else { return url }
        return FileSystem.canonical(url)
    }

    /// Makes the remote `cards sync` uses by default main's upstream, as a clone or `git push -u` makes
    /// it, so that a plain `git pull` pulls from where `cards sync` syncs: when main has none (or one
    /// whose remote is gone), or `origin` was just `added`. An upstream the user chose otherwise stays;
    /// nothing when no remote is left or the choice is ambiguous.
    private func followSyncRemote(added: String? = nil) throws(StoreError) {
        guard let remote = try? syncRemote(named: nil) else { return }
        let names = Set(try remotes().map(\.name))
        try withStoreError("setting main's upstream") { () throws(GitError) in
            let current = try repository.configString("branch.\(branchName).remote")
            let missing = current.map { !names.contains($0) } ?? true
            guard missing || (added == "origin" && remote.name == "origin") else { return }
            try repository.setConfig("branch.\(branchName).remote", remote.name)
            try repository.setConfig("branch.\(branchName).merge", branch)
        }
    }

    /// Removes a remote and its remote-tracking refs.
    public func removeRemote(name: String) throws(StoreError) {
        guard try remotes().contains(where: { $0.name == name }) else {
            throw StoreError(.invalidInput, "there is no remote named \(name); `cards remote list` shows the remotes")
        }
        try withStoreError("removing remote \(name)") { () throws(GitError) in try repository.removeRemote(name: name) }
        // libgit2 drops main's upstream with its remote: the remote left for `cards sync` takes it.
        try followSyncRemote()
    }

    /// The remote `cards sync` uses: the one named, else the only remote, else `origin`.
    public func syncRemote(named name: String?) throws(StoreError) -> DeckRemote {
        var remote = try chosenRemote(named: name)
        // The branch there: the upstream git has for this deck's branch when it is on that remote.
        let upstreamRemote = (try? repository.configString("branch.\(branchName).remote")) ?? nil
        let upstream = (try? repository.configString("branch.\(branchName).merge")) ?? nil
        if upstreamRemote == remote.name, let upstream, upstream.hasPrefix("refs/heads/") {
            remote.branch = upstream
        } else {
            remote.branch = branch
        }
        return remote
    }

    private func chosenRemote(named name: String?) throws(StoreError) -> DeckRemote {
        let all = try remotes()
        if let name {
            if let found = all.first(where: { $0.name == name }) { return found }
            let known =
                all.isEmpty ? "this deck has no remotes" : "the remotes are " + all.map(\.name).joined(separator: ", ")
            throw StoreError(
                .invalidInput,
                "there is no remote named \(name) (\(known)); add it with "
                    + "`cards remote add \(ShellWord.operand(name)) URL`")
        }
        if all.count == 1 { return all[0] }
        if let origin = all.first(where: { $0.name == "origin" }) { return origin }
        if all.isEmpty {
            throw StoreError(
                .invalidInput, "this deck has no remote to sync with; add one with `cards remote add origin URL`")
        }
        throw StoreError(
            .invalidInput,
            "this deck has several remotes (\(all.map(\.name).joined(separator: ", "))) and none is named origin; "
                + "name one: `cards sync NAME`")
    }
}

extension StoreError {
    /// Turns a failure talking to a remote into a message that says what happened and what to try.
    /// `listed`: the remote is one of a deck's (a clone has no deck yet, so no list to point to).
    static func remote(_ error: GitError, _ doing: String, _ remote: DeckRemote, listed: Bool = true) -> StoreError {
        var made = told(error, doing, remote, listed: listed)
        made.cause = error
        return made
    }

    private static func told(_ error: GitError, _ doing: String, _ remote: DeckRemote, listed: Bool) -> StoreError {
        if error.code == .interrupted {
            return StoreError(
                .interrupted, "interrupted while \(doing) \(remote.name); nothing of that transfer was kept")
        }
        // The URL the transfer really used (a push URL, say), when it is not the one configured.
        let shownURL = error.url.map { RemoteURL($0)?.redacted ?? $0 } ?? remote.displayURL
        let place = "\(remote.name) (\(shownURL))"
        let listed = listed ? " (`cards remote list` shows the remotes)" : ""
        // What the server said on its side, as git shows it.
        let said = error.serverMessages.map { "\nremote: \($0)" }.joined()
        switch error.code {
        case .authentication, .certificate, .remoteFailed, .timedOut:
            return StoreError(.git(error.code), "\(doing) \(place) failed: \(error.message)\(said)")
        case .nonFastForward:
            return StoreError(.git(error.code), "\(doing) \(place) was refused: \(error.message)\(said)")
        case .pushRefused:
            return StoreError(
                .git(error.code),
                "\(doing) \(place) was refused by the server: \(error.message); your deck keeps its commits, "
                    + "and pushing again will meet the same refusal until the server allows it\(said)")
        case .user:
            return StoreError(.git(error.code), "\(doing) \(place) failed: \(error.message)")
        default:
            // A remote on this machine: no server to check. libgit2 calls a missing folder an
            // "unsupported URL protocol", which sends people looking for the wrong thing.
            if let path = remote.localPath {
                // A relative path is shown as resolved: from the deck's folder, not the current one.
                let relative = RemoteURL(remote.url)?.isRelativePath == true
                let shown = relative ? "\(FileSystem.canonical(path)) (\(remote.url) from the deck's folder)" : path
                // What is wrong is the remote's folder, not git: `.sync`.
                if !FileSystem.exists(path) {
                    return StoreError(
                        .sync,
                        "\(doing) \(place) failed: there is no repository at \(shown); check the path\(listed)")
                }
                // A repository there: the message says what is wrong with it (a working tree, say).
                let isRepository = FileSystem.exists(path + "/HEAD") || FileSystem.exists(path + "/.git")
                return StoreError(
                    .sync,
                    "\(doing) \(place) failed: \(error.message)"
                        + (isRepository ? "" : "; check that \(shown) is a git repository") + said)
            }
            return StoreError(
                .git(error.code),
                "\(doing) \(place) failed: \(error.message); check the URL\(listed), that the server is "
                    + "running and reachable, and try again\(said)")
        }
    }
}
