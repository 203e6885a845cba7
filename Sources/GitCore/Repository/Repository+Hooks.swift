import CLinux
import Glibc
import SystemCalls

extension Repository {
    /// The folder git runs this repository's hooks from: `core.hooksPath` (expanded as git expands a path:
    /// `~/`, `~user/`; a relative one counts from where the hooks run: the top of the working tree, or
    /// `runFrom`, the git folder for a bare repository or a receive-pack), else `hooks/` in the git
    /// folder every worktree shares.
    package func hooksFolder(runFrom: String? = nil) -> String {
        guard let configured = (try? configString("core.hooksPath")) ?? nil, !configured.isEmpty,
            let expanded = RepositoryOwnership.expandedPath(configured)
        else { return commonDirectory + "hooks" }
        return expanded.hasPrefix("/") ? expanded : (runFrom ?? workingDirectory ?? gitDirectory) + expanded
    }

    /// Whether git would run the hook `name` from `folder` (`hooksFolder`): an executable regular file of
    /// that name there. Two system calls, so that a repository without hooks pays nothing more.
    package static func hasHook(_ name: String, in folder: String) -> Bool {
        let path = folder + "/" + name
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }

    /// Runs the hook `name` as git runs it (run-command's `run_hooks`): the file itself, with
    /// `arguments`, in the top folder of the working tree (the git folder when bare), `GIT_DIR` naming
    /// the repository and `environment` set on top of ours; its standard input empty and its output on
    /// our standard error. Run directly, not through `git hook run`: a second git process would cost
    /// more than `git commit` itself pays. Returns its exit status (128 + signal when killed).
    package func runHook(
        _ name: String, in folder: String, arguments: [String] = [], environment: [String: String] = [:]
    ) throws(GitError) -> Int32 {
        let path = folder + "/" + name
        var changes: [String: String?] = [
            "GIT_DIR": Repository.trimmedSlash(gitDirectory), "GIT_WORK_TREE": nil, "GIT_INDEX_FILE": nil,
        ]
        for (key, value) in environment { changes[key] = value }
        let directory = workingDirectory ?? gitDirectory
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = GitProcess.environment(applying: changes).map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        let pid = clinux_spawn(path, argv, envp, directory, -1, 2, 2)
        guard pid > 0 else {
            let error = errno
            throw GitError(
                code: .system(error), message: "could not run the \(name) hook: \(SystemError.reason(error))",
                function: "fork")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return GitProcess.exitStatus(status)
    }
}
