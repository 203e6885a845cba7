import CGit2

/// An open git repository. Not thread-safe: use one per thread. Every object read from it is
/// copied into a Swift value at once, so no value outlives the handle it came from.
public final class Repository {
    let pointer: OpaquePointer

    /// How many blobs this handle has read (for tests that check a cost grows with what changed).
    package internal(set) var blobsRead = 0

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        git_repository_free(pointer)
    }

    /// Opens the repository at exactly `path` (a work tree or a bare repository), without searching upward.
    package static func open(at path: String) throws(GitError) -> Repository {
        Libgit2.ensureInitialized()
        var out: OpaquePointer?
        try check(
            git_repository_open_ext(&out, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil),
            "git_repository_open_ext")
        guard let out else {
            throw GitError(code: .notFound, message: "no repository at \(path)", function: "git_repository_open_ext")
        }
        return Repository(pointer: out)
    }

    /// Opens the repository git would use from `path` (in it, or, when `searchUpward`, in the nearest
    /// folder above it that has one), after git's ownership check (`RepositoryOwnership`): nothing of
    /// a repository another user owns is read, unless `safe.directory` allows it. Nil when there is
    /// no repository there.
    package static func openChecked(from path: String, searchUpward: Bool) throws(GitError) -> Repository? {
        guard let location = try RepositoryLocation.find(from: path, searchUpward: searchUpward) else { return nil }
        try RepositoryOwnership.check(location)
        let repository = try open(at: location.folder)
        // What libgit2 opened is what was checked: a `.git` file it reads otherwise than git would
        // name another git folder, whose owner nobody looked at.
        let opened = trimmedSlash(repository.gitDirectory)
        let same =
            opened == location.gitDirectory
            || RepositoryLocation.realPath(opened) == RepositoryLocation.realPath(location.gitDirectory)
        guard same else {
            throw GitError(
                code: .refused,
                message: "\(location.folder) opens as the git folder \(opened), not \(location.gitDirectory) as git "
                    + "finds it", function: "git_repository_open_ext")
        }
        return repository
    }

    /// `init.defaultBranch` from the user's and the system's git config and `git -c` (what `git init`
    /// names its first branch), read as git reads them (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_NOSYSTEM`,
    /// which libgit2's default config does not follow), or nil when unset or empty.
    package static func defaultBranchSetting() -> String? {
        guard let value = RepositoryOwnership.protectedConfigValues(of: "init.defaultbranch").values.last,
            let name = value,
            !name.isEmpty
        else { return nil }
        return name
    }

    /// Whether `name` is a branch name git accepts (`git check-ref-format --branch`).
    package static func isValidBranchName(_ name: String) -> Bool {
        Libgit2.ensureInitialized()
        var valid: Int32 = 0
        guard git_branch_name_is_valid(&valid, name) == 0 else {
            git_error_clear()
            return false
        }
        return valid == 1
    }

    /// Creates a new repository whose unborn branch is `initialBranch`.
    public static func create(at path: String, bare: Bool, initialBranch: String = "main") throws(GitError)
        -> Repository
    {
        Libgit2.ensureInitialized()
        var options = git_repository_init_options()
        try check(
            git_repository_init_options_init(&options, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION)),
            "git_repository_init_options_init")
        var flags = GIT_REPOSITORY_INIT_MKPATH.rawValue | GIT_REPOSITORY_INIT_NO_REINIT.rawValue
        if bare { flags |= GIT_REPOSITORY_INIT_BARE.rawValue }
        options.flags = flags
        var out: OpaquePointer?
        let result = initialBranch.withCString { branch -> Int32 in
            options.initial_head = branch
            return git_repository_init_ext(&out, path, &options)
        }
        try check(result, "git_repository_init_ext")
        guard let out else {
            throw GitError(code: .notFound, message: "could not create \(path)", function: "git_repository_init_ext")
        }
        return Repository(pointer: out)
    }

    /// The `.git` folder (or the bare repository's folder), with a trailing slash.
    package var gitDirectory: String {
        String(cString: git_repository_path(pointer))
    }

    /// The working tree's folder with a trailing slash, or nil for a bare repository.
    package var workingDirectory: String? {
        guard let path = git_repository_workdir(pointer) else { return nil }
        return String(cString: path)
    }

    /// Whether the repository has no working tree.
    package var isBare: Bool {
        git_repository_is_bare(pointer) == 1
    }

    /// The git operation left unfinished in this repository (a merge git stopped on conflicts, a
    /// rebase, a bisect …): its name, how to finish it and how to abandon it (commands in backquotes);
    /// nil when there is none.
    package var unfinishedOperation: (name: String, finish: String, abort: String)? {
        let state = git_repository_state(pointer)
        switch UInt32(bitPattern: state) {
        case GIT_REPOSITORY_STATE_NONE.rawValue: return nil
        case GIT_REPOSITORY_STATE_MERGE.rawValue:
            return (
                "merge", "fix the files git lists in `git status`, `git add` them, `git commit`", "`git merge --abort`"
            )
        case GIT_REPOSITORY_STATE_REVERT.rawValue, GIT_REPOSITORY_STATE_REVERT_SEQUENCE.rawValue:
            return ("revert", "`git revert --continue`", "`git revert --abort`")
        case GIT_REPOSITORY_STATE_CHERRYPICK.rawValue, GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE.rawValue:
            return ("cherry-pick", "`git cherry-pick --continue`", "`git cherry-pick --abort`")
        case GIT_REPOSITORY_STATE_BISECT.rawValue: return ("bisect", "`git bisect reset`", "`git bisect reset`")
        case GIT_REPOSITORY_STATE_APPLY_MAILBOX.rawValue: return ("am", "`git am --continue`", "`git am --abort`")
        case GIT_REPOSITORY_STATE_APPLY_MAILBOX_OR_REBASE.rawValue:
            return (
                "am or rebase", "`git am --continue` or `git rebase --continue`",
                "`git am --abort` or `git rebase --abort`"
            )
        default: return ("rebase", "`git rebase --continue`", "`git rebase --abort`")
        }
    }
}
