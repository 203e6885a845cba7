import CGit2
import Glibc

/// git's sparse checkout as this repository's configuration sets it up, and git asked to apply its
/// patterns. libgit2 1.5 knows neither the patterns nor the per-worktree config file
/// (`extensions.worktreeConfig`, `config.worktree`) where `git sparse-checkout` writes its settings.
extension Repository {
    /// A boolean setting as git reads it for this working tree: from `config.worktree` in the git folder
    /// first when `extensions.worktreeConfig` is on (where `git sparse-checkout` puts `core.sparseCheckout`
    /// and `index.sparse`), else from the repository's config and the user's; nil when unset or not a
    /// boolean git knows.
    package func worktreeConfigFlag(_ key: String) -> Bool? {
        if configBool("extensions.worktreeConfig") == true {
            var config: OpaquePointer?
            let path = "\(Repository.trimmedSlash(gitDirectory))/config.worktree"
            if access(path, F_OK) == 0, git_config_open_ondisk(&config, path) == 0 {
                defer { git_config_free(config) }
                var value: Int32 = 0
                if git_config_get_bool(&value, config, key) == 0 { return value != 0 }
            }
            git_error_clear()
        }
        return configBool(key)
    }

    /// Runs `git ARGUMENTS` in this repository's working tree with the user's own configuration (the
    /// sparse-checkout commands, which libgit2 does not have); its exit status and what it said on
    /// standard error. Throws only when git cannot be started.
    package func runLocalGit(_ arguments: [String], timeout: Double = 300) throws(GitError) -> (
        status: Int32, errorLines: [String]
    ) {
        guard let workingDirectory else {
            throw GitError(code: .invalidArgument, message: "a bare repository has no working tree", function: "git")
        }
        var process = GitProcess(
            arguments: ["-c", "gc.auto=0", "-c", "maintenance.auto=false"] + arguments,
            directory: workingDirectory, stallTimeout: timeout)
        // The repository is the one git finds from its working tree, whatever this process was given.
        process.environment = ["GIT_DIR": nil, "GIT_WORK_TREE": nil, "GIT_INDEX_FILE": nil]
        let outcome = try process.run()
        return (outcome.status, outcome.errorLines)
    }
}
