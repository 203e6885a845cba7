import CGit2
import Glibc

/// A file's conversion between the working tree and the repository, as git's checkout and `git add`
/// make it: end of line (`core.autocrlf`, `core.eol`, the `text`/`eol` attributes) and `ident` through
/// libgit2's filters, and a `filter=` driver (git LFS, any `filter.<name>.smudge`/`.clean`/`.process`)
/// through `git` itself, which libgit2 does not run.
extension Repository {
    /// `bytes` converted for `path` as libgit2's filters do it: `toWorkingTree` as a checkout writes the
    /// blob there (smudge), else as `git add` would store the working file (clean). Nil when no filter
    /// applies to the path (the bytes are the same on both sides).
    package func converted(_ bytes: [UInt8], path: String, toWorkingTree: Bool) throws(GitError) -> [UInt8]? {
        var list: OpaquePointer?
        // The clean side only compares: a conversion `core.safecrlf` would refuse still says what git
        // would store, and refusing is `git add`'s business, not a comparison's.
        let flags = toWorkingTree ? GIT_FILTER_DEFAULT.rawValue : GIT_FILTER_ALLOW_UNSAFE.rawValue
        try check(
            git_filter_list_load(
                &list, pointer, nil, path, toWorkingTree ? GIT_FILTER_TO_WORKTREE : GIT_FILTER_TO_ODB, flags),
            "git_filter_list_load")
        guard let list else { return nil }
        defer { git_filter_list_free(list) }
        var out = git_buf()
        defer { git_buf_dispose(&out) }
        // An empty array has no base address: one NUL given, none counted.
        let input = bytes.isEmpty ? [0] : bytes
        let result = input.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                git_filter_list_apply_to_buffer(&out, list, chars.baseAddress, bytes.count)
            }
        }
        try check(result, "git_filter_list_apply_to_buffer")
        guard let start = out.ptr else { return [] }
        return start.withMemoryRebound(to: UInt8.self, capacity: out.size) {
            Array(UnsafeBufferPointer(start: $0, count: out.size))
        }
    }

    /// The `filter=` driver git runs for `path` (`lfs`, say), or nil when the path has none or its
    /// driver is not configured here (git then leaves the bytes as they are, and so do we).
    package func filterDriver(for path: String) throws(GitError) -> String? {
        var value: UnsafePointer<CChar>?
        try check(git_attr_get(&value, pointer, 0, path, "filter"), "git_attr_get")
        guard let value, git_attr_value(value) == GIT_ATTR_VALUE_STRING else { return nil }
        let name = String(cString: value)
        for key in ["smudge", "clean", "process"] where try configString("filter.\(name).\(key)") != nil {
            return name
        }
        return nil
    }

    /// The blob `blob` as git's checkout writes it at `path` through its filter driver (and end of line):
    /// `git cat-file --filters`, which runs the smudge or process filter as `git checkout` does.
    package func checkoutThroughGit(_ blob: ObjectID, path: String) throws(GitError) -> [UInt8] {
        let outcome = try runGit(["cat-file", "--filters", "--path=\(path)", blob.hex])
        return outcome.output
    }

    /// The blob ids `git add` would store for the working files at `paths` (relative to the working tree),
    /// their filter drivers and end-of-line conversion applied: `git hash-object`, which writes nothing.
    package func cleanIDsThroughGit(_ paths: [String]) throws(GitError) -> [ObjectID] {
        guard !paths.isEmpty else { return [] }
        let outcome = try runGit(["hash-object", "--"] + paths)
        let ids = String(decoding: outcome.output, as: UTF8.self).split(separator: "\n").compactMap {
            ObjectID(hex: String($0))
        }
        guard ids.count == paths.count else {
            throw GitError(
                code: .processFailed, message: "git hash-object gave \(ids.count) ids for \(paths.count) files",
                function: "git hash-object")
        }
        return ids
    }

    /// Runs `git <arguments>` in the working tree for a filter driver; its failure in git's words.
    private func runGit(_ arguments: [String]) throws(GitError) -> GitProcess.Outcome {
        let process = GitProcess(
            arguments: arguments, directory: workingDirectory ?? gitDirectory,
            environment: ["GIT_DIR": gitDirectory, "GIT_WORK_TREE": workingDirectory],
            stallTimeout: GitProcess.defaultStallTimeout)
        let outcome = try process.run()
        guard outcome.status == 0 else {
            let said = outcome.errorLines.filter { !$0.isEmpty }.joined(separator: "; ")
            throw GitError(
                code: .processFailed,
                message: "git \(arguments.prefix(2).joined(separator: " ")) failed (exit \(outcome.status))"
                    + (said.isEmpty ? "" : ": \(said)"),
                function: "git \(arguments[0])")
        }
        return outcome
    }

    /// Whether an attributes file (`.gitattributes`, `info/attributes`, `core.attributesFile`) names an
    /// attribute that can change a file's bytes between the working tree and the repository: `text`,
    /// `eol`, `crlf`, `binary`, `filter`, `ident`, `working-tree-encoding`, or any name this does not
    /// know (a macro: `[attr]` lines make one). Only `merge`, `diff` and the like are known harmless, so
    /// that a deck's own `cards/**/*.json merge=cards` costs its users no conversion.
    package static func attributesMayConvert(_ bytes: [UInt8]) -> Bool {
        let harmless: Set<Substring> = [
            "merge", "diff", "whitespace", "export-ignore", "export-subst", "delta", "conflict-marker-size",
            "encoding", "linguist-generated", "linguist-vendored", "linguist-documentation", "linguist-language",
            "linguist-detectable", "lockable",
        ]
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = words.first, !first.hasPrefix("#") else { continue }
            // A macro, or a quoted pattern (its words are not split here): taken as converting.
            if first.hasPrefix("[attr]") || first.hasPrefix("\"") { return true }
            for word in words.dropFirst() {
                var name = word
                if name.hasPrefix("-") || name.hasPrefix("!") { name = name.dropFirst() }
                if let equals = name.firstIndex(of: "=") { name = name[..<equals] }
                if !harmless.contains(name) { return true }
            }
        }
        return false
    }
}
