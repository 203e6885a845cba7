import Glibc

extension Repository {
    /// What `git var NAME` printed in this repository, for the answers only git has exactly: an
    /// identity that needs git's own date parsing, auto-detection or `includeIf "hasconfig:…"` (libgit2
    /// skips conditions it does not know). A failure carries git's own words ("Author identity
    /// unknown…", "no email was given and auto-detection is disabled").
    package func gitVariable(_ name: String) throws(GitError) -> String {
        var process = GitProcess(
            arguments: ["--git-dir=\(gitDirectory)", "var", name], directory: workingDirectory ?? gitDirectory,
            stallTimeout: 30)
        process.environment = ["GIT_DIR": nil, "GIT_WORK_TREE": nil, "GIT_INDEX_FILE": nil]
        let outcome = try process.run()
        guard outcome.status == 0 else {
            let said = outcome.errorLines.map { $0.hasPrefix("fatal: ") ? String($0.dropFirst(7)) : $0 }
                .filter { !$0.isEmpty }
            throw GitError(
                code: .processFailed,
                message: said.isEmpty
                    ? "`git var \(name)` failed (exit \(outcome.status))" : said.joined(separator: "\n"),
                function: "git var")
        }
        var text = String(decoding: outcome.output, as: UTF8.self)
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
