import GitCore

extension Deck {
    /// Why `remote`, a repository on this machine, cannot take this deck's pushes yet, in a person's
    /// words with what to do (no repository there, not a git repository, a working tree with the branch
    /// checked out); nil when it can, or when it is not on this machine (only a push can tell).
    /// `cards remote add` and `cards clone` say it as a note, before the first sync meets it.
    package func pushProblem(_ remote: DeckRemote) -> String? {
        guard let path = remote.localPath else { return nil }
        guard FileSystem.exists(path) else {
            return "there is no repository at \(path) yet; make one "
                + "(`git init --bare -b main \(ShellWord.quoted(path))`) before `cards sync`"
        }
        guard (try? Repository.open(at: path)) != nil else {
            return "\(path) is not a git repository; make it one "
                + "(`git init --bare -b main \(ShellWord.quoted(path))`) before `cards sync`"
        }
        do throws(GitError) {
            let settings = RemoteSettings.fromEnvironment()
            // A transport setting that means nothing is the sync's to say; this note checks as libgit2's would.
            let resolved = ResolvedRemote(
                name: remote.name, url: remote.url, localPath: path,
                transport: (try? repository.transport(settings)) ?? .libgit2, settings: settings)
            try repository.checkPushable(resolved, branch: remote.branch)
        } catch {
            return "\(error.message); `cards sync` can take changes from it but not send this deck's"
        }
        return nil
    }

    /// The folder `git clone` would make for `url`: its last name, less a `.git` ending; nil when it
    /// has none (`https://host/`).
    package static func cloneFolderName(for url: String) -> String? {
        guard let parsed = RemoteURL(url) else { return nil }
        var name = Substring(parsed.path)
        while name.hasSuffix("/") { name = name.dropLast() }
        // `…/deck/.git` is the repository of `deck`.
        if name.hasSuffix("/.git") { name = name.dropLast(5) }
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if name.hasSuffix(".git") { name = name.dropLast(4) }
        return name.isEmpty || name == "." || name == ".." || name == "~" ? nil : String(name)
    }

    /// The commit `id` of this deck's repository (its author, message, parents), for showing who made a
    /// change.
    package func commit(_ id: ObjectID) throws(StoreError) -> Commit {
        try withStoreError("reading commit \(id.short)") { () throws(GitError) in try repository.commit(id) }
    }
}
