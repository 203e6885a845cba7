import CGit2
import Glibc

/// git's ownership check (`safe.directory`, CVE-2022-24765), made as git 2.39 makes it (setup.c's
/// `ensure_valid_ownership`), so that `cards` refuses the repositories `git` refuses: one whose
/// working tree's top folder, git folder or `.git` file another user owns would have us read that
/// user's config and run what it names (`core.fsmonitor`, `remote.origin.uploadpack`, hooks) as
/// ourselves.
///
/// Not libgit2's own check (`GIT_OPT_SET_OWNER_VALIDATION`): libgit2 1.5.1 makes it after it has read
/// the repository's config, ignores `safe.directory = *`, `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`,
/// `GIT_CONFIG_NOSYSTEM` and `git -c` (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`), matches a path
/// after making it canonical (`/deck/` is `/deck` to it, not to git), checks every repository it opens
/// (a remote on this machine too, which git checks by other rules) and says it in words of its own.
package enum RepositoryOwnership {
    /// Fails (code `.owner`, git's message and remedy) unless git would let the current user use the
    /// repository at `location`: every one of its `.git` file, working tree's top folder and git
    /// folder is the user's (root's own, or, for root, the `sudo` caller's: `SUDO_UID`), or
    /// `safe.directory` in the system, global or command-line config names it (or is `*`). The
    /// repository's own config is not read, as git does not read it: a repository cannot vouch for
    /// itself.
    /// `commandLine`: whether the command line's config counts (git's local transport leaves it out
    /// of the `upload-pack` and `receive-pack` it runs in a repository on this machine).
    package static func check(_ location: RepositoryLocation, commandLine: Bool = true) throws(GitError) {
        if isOwned(location) { return }
        let (safe, problems) = isSafeDirectory(location.workingTree ?? location.gitDirectory, commandLine: commandLine)
        if safe { return }
        let note = problems.isEmpty ? "" : "\n(" + problems.joined(separator: "; ") + ")"
        throw GitError(code: .owner, message: dubiousMessage(location.folder) + note, function: "safe.directory")
    }

    /// Fails in git's words when git 2.39.5 would refuse to fetch from or push to the repository at
    /// `path` on this machine: its `upload-pack` and `receive-pack` (`enter_repo`, since 2.39.4) check
    /// the git folder they find there (`path/.git`, `path`, `path.git/.git`, `path.git`), and the one a
    /// `.git` file there names, with `safe.directory` from the system and global config only. A path
    /// with no repository is left for the transport to report.
    package static func checkRemote(at path: String) throws(GitError) {
        var used = path
        if used.hasPrefix("~"), let expanded = expandedPath(used) { used = expanded }
        for suffix in ["/.git", "", ".git/.git", ".git"] {
            let candidate = used + suffix
            var info = stat()
            guard stat(candidate, &info) == 0 else { continue }
            let isFile = info.st_mode & S_IFMT == S_IFREG
            guard isFile || (info.st_mode & S_IFMT == S_IFDIR && RepositoryLocation.isGitDirectory(candidate)) else {
                continue
            }
            let target = isFile ? try? RepositoryLocation.readGitFile(candidate) : nil
            let location = RepositoryLocation(
                folder: target ?? candidate, gitFile: target, workingTree: nil, gitDirectory: candidate)
            try check(location, commandLine: false)
            return
        }
    }

    /// git's words for a repository it refuses, with its remedy (`die_upon_dubious_ownership`).
    package static func dubiousMessage(_ folder: String) -> String {
        "detected dubious ownership in repository at '\(folder)'\nTo add an exception for this directory, call:\n\n"
            + "\tgit config --global --add safe.directory \(prettyQuoted(folder))"
    }

    /// Whether every file git looks at for `location` is the current user's (no config read).
    package static func isOwned(_ location: RepositoryLocation) -> Bool {
        // git's own test switch: everything counts as someone else's.
        if RepositoryLocation.environmentFlag("GIT_TEST_ASSUME_DIFFERENT_OWNER") { return false }
        return [location.gitFile, location.workingTree, location.gitDirectory].allSatisfy {
            $0.map { isOwnedByCurrentUser($0) } ?? true
        }
    }

    /// Whether `path` (not followed if it is a link) belongs to the effective user, as git's
    /// `is_path_owned_by_current_uid` tells: for root, root's files and those of the user `SUDO_UID`
    /// names (the user who ran `sudo`).
    static func isOwnedByCurrentUser(
        _ path: String, effectiveUser: uid_t = geteuid(),
        sudoUser: String? = getenv("SUDO_UID").map { String(cString: $0) }
    ) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        var user = effectiveUser
        if user == 0 {
            if info.st_uid == 0 { return true }
            if let sudoUser, let id = sudoUserID(sudoUser) { user = id }
        }
        return info.st_uid == user
    }

    /// `SUDO_UID` read as git reads it (`extract_id_from_env`: `strtoul`, all of it a number).
    static func sudoUserID(_ text: String) -> uid_t? {
        guard !text.isEmpty else { return nil }
        return text.withCString { start -> uid_t? in
            var end: UnsafeMutablePointer<CChar>?
            errno = 0
            let value = strtoul(start, &end, 10)
            guard let end, end.pointee == 0, errno == 0 else { return nil }
            return uid_t(truncatingIfNeeded: value)
        }
    }

    /// Whether `safe.directory` allows `path` (the working tree's top folder, else the git folder,
    /// as git spells it), and what config could not be read. Each value, in git's order, makes it
    /// safe when it is `*` or names `path` exactly (after `~` and `%(prefix)/`); an empty one
    /// takes back the values before it.
    static func isSafeDirectory(_ path: String, commandLine: Bool = true) -> (safe: Bool, problems: [String]) {
        let (values, problems) = protectedConfigValues(of: "safe.directory", commandLine: commandLine)
        var safe = false
        for value in values {
            guard let value, !value.isEmpty else {
                safe = false
                continue
            }
            if value == "*" || expandedPath(value) == path { safe = true }
        }
        return (safe, problems)
    }

    /// A path value of config as git's `interpolate_path` expands it: `~/…` from `HOME`, `~user/…`
    /// from that user's home, `%(prefix)/…` from git's prefix (`/usr`); nil when it cannot be.
    package static func expandedPath(_ value: String) -> String? {
        if value.hasPrefix("%(prefix)/") { return "/usr/" + value.dropFirst("%(prefix)/".count) }
        guard value.hasPrefix("~") else { return value }
        let rest = value.dropFirst()
        let name = rest.prefix(while: { $0 != "/" })
        let tail = rest.dropFirst(name.count)
        if name.isEmpty {
            guard let home = getenv("HOME") else { return nil }
            return String(cString: home) + tail
        }
        guard let entry = getpwnam(String(name)), let home = entry.pointee.pw_dir else { return nil }
        return String(cString: home) + tail
    }

    /// The values of `key` in git's protected config (system, global, command line; never a
    /// repository's), in the order git reads them; nil for a key given without `=`.
    static func protectedConfigValues(of key: String, commandLine: Bool = true) -> (
        values: [String?], problems: [String]
    ) {
        var values: [String?] = []
        var problems: [String] = []
        for file in protectedConfigFiles() {
            switch fileValues(of: key, in: file) {
            case .success(let found): values += found
            case .failure(let problem): problems.append(problem.message)
            }
        }
        guard commandLine else { return (values, problems) }
        let environment: (String) -> String? = { name in getenv(name).map { String(cString: $0) } }
        switch commandLineEntries(environment) {
        case .success(let entries): values += entries.filter { $0.key == key }.map(\.value)
        case .failure(let problem): problems.append(problem.message)
        }
        return (values, problems)
    }

    /// The config files git reads for protected config, in its order: the system file (unless
    /// `GIT_CONFIG_NOSYSTEM`), then `GIT_CONFIG_GLOBAL`, or else the XDG file and `~/.gitconfig`.
    static func protectedConfigFiles() -> [String] {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        var files: [String] = []
        if !RepositoryLocation.environmentFlag("GIT_CONFIG_NOSYSTEM") {
            files.append(variable("GIT_CONFIG_SYSTEM") ?? "/etc/gitconfig")
        }
        if let global = variable("GIT_CONFIG_GLOBAL") {
            files.append(global)
        } else {
            let home = variable("HOME")
            if let xdg = variable("XDG_CONFIG_HOME"), !xdg.isEmpty {
                files.append(xdg + "/git/config")
            } else if let home {
                files.append(home + "/.config/git/config")
            }
            if let home { files.append(home + "/.gitconfig") }
        }
        return files
    }

    /// The values of `key` in one config file (and the files it includes), read by libgit2's parser;
    /// none when the file is missing.
    static func fileValues(of key: String, in path: String) -> Result<[String?], GitError> {
        guard !path.isEmpty, access(path, R_OK) == 0 else { return .success([]) }
        Libgit2.ensureInitialized()
        var config: OpaquePointer?
        do throws(GitError) {
            try GitCore.check(git_config_new(&config), "git_config_new")
            defer { git_config_free(config) }
            try GitCore.check(
                git_config_add_file_ondisk(config, path, GIT_CONFIG_LEVEL_GLOBAL, nil, 0), "git_config_add_file_ondisk")
            var iterator: OpaquePointer?
            try GitCore.check(
                git_config_multivar_iterator_new(&iterator, config, key, nil), "git_config_multivar_iterator_new")
            defer { git_config_iterator_free(iterator) }
            var values: [String?] = []
            var entry: UnsafeMutablePointer<git_config_entry>?
            while true {
                let status = git_config_next(&entry, iterator)
                if status == GIT_ITEROVER.rawValue {
                    git_error_clear()
                    break
                }
                try GitCore.check(status, "git_config_next")
                values.append(entry?.pointee.value.map { String(cString: $0) })
            }
            return .success(values)
        } catch {
            return .failure(GitError(code: error.code, message: "\(path): \(error.message)", function: error.function))
        }
    }

    /// The entries of the command line's config (`git -c`), as git passes it down to the programs it
    /// runs: `GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_<n>` and `GIT_CONFIG_VALUE_<n>`, then
    /// `GIT_CONFIG_PARAMETERS`; keys as git spells them (section and name in lower case).
    static func commandLineEntries(_ environment: (String) -> String?) -> Result<
        [(key: String, value: String?)], GitError
    > {
        func bogus(_ what: String) -> Result<[(key: String, value: String?)], GitError> {
            .failure(GitError(code: .invalidConfig, message: what, function: "git_config_from_parameters"))
        }
        var entries: [(key: String, value: String?)] = []
        if let count = environment("GIT_CONFIG_COUNT") {
            guard let number = count.isEmpty ? 0 : Int(count), number >= 0, number <= Int(Int32.max) else {
                return bogus("bogus count in GIT_CONFIG_COUNT")
            }
            for index in 0..<number {
                guard let key = environment("GIT_CONFIG_KEY_\(index)") else {
                    return bogus("missing config key GIT_CONFIG_KEY_\(index)")
                }
                guard let value = environment("GIT_CONFIG_VALUE_\(index)") else {
                    return bogus("missing config value GIT_CONFIG_VALUE_\(index)")
                }
                entries.append((canonicalKey(key), value))
            }
        }
        if let parameters = environment("GIT_CONFIG_PARAMETERS") {
            guard let parsed = parseParameters(parameters) else {
                return bogus("bogus format in GIT_CONFIG_PARAMETERS")
            }
            entries += parsed
        }
        return .success(entries)
    }

    /// `GIT_CONFIG_PARAMETERS` as git's `parse_config_env_list` reads it: `'key'='value'` (or `'key'=`
    /// for a key given without a value) and the older `'key=value'`, separated by white space.
    static func parseParameters(_ text: String) -> [(key: String, value: String?)]? {
        var bytes = Array(text.utf8)[...]
        var entries: [(key: String, value: String?)] = []
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        while let first = bytes.first {
            if isSpace(first) {
                bytes = bytes.drop(while: isSpace)
                continue
            }
            guard let key = singleQuoted(&bytes) else { return nil }
            if bytes.first.map(isSpace) ?? true {
                // 'key=value': split at the first `=`.
                let pair = key.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = pair[0].trimmingSpaces
                guard !name.isEmpty else { return nil }
                entries.append((canonicalKey(name), pair.count > 1 ? String(pair[1]) : nil))
            } else if bytes.first == UInt8(ascii: "=") {
                bytes = bytes.dropFirst()
                if bytes.first == UInt8(ascii: "'") {
                    guard let value = singleQuoted(&bytes), bytes.first.map(isSpace) ?? true else { return nil }
                    entries.append((canonicalKey(key), value))
                } else if bytes.first.map(isSpace) ?? true {
                    entries.append((canonicalKey(key), nil))
                } else {
                    return nil
                }
            } else {
                return nil
            }
        }
        return entries
    }

    /// One single-quoted word at the start of `bytes` (git's `sq_dequote_step`: `'\''` and `'\!'`
    /// inside it), consumed; nil when there is none.
    private static func singleQuoted(_ bytes: inout ArraySlice<UInt8>) -> String? {
        let quote = UInt8(ascii: "'")
        guard bytes.first == quote else { return nil }
        var rest = bytes.dropFirst()
        var word: [UInt8] = []
        while let byte = rest.first {
            rest = rest.dropFirst()
            if byte != quote {
                word.append(byte)
                continue
            }
            // Out of the quotes: `\'` or `\!` and back into quotes continues the word.
            let after = Array(rest.prefix(3))
            if after.count == 3, after[0] == UInt8(ascii: "\\"), after[1] == quote || after[1] == UInt8(ascii: "!"),
                after[2] == quote
            {
                word.append(after[1])
                rest = rest.dropFirst(3)
                continue
            }
            bytes = rest
            return String(decoding: word, as: UTF8.self)
        }
        return nil
    }

    /// A key as git stores it: the section and the name in lower case, a subsection as written.
    static func canonicalKey(_ key: String) -> String {
        guard let first = key.firstIndex(of: "."), let last = key.lastIndex(of: ".") else { return key.lowercased() }
        return key[..<first].lowercased() + key[first..<last] + key[last...].lowercased()
    }

    /// `text` as git's `sq_quote_buf_pretty` shows it: as it is when every character is a letter, a
    /// digit or one of `+,-./:=@_^`, else in single quotes (`'` and `!` taken out of them).
    static func prettyQuoted(_ text: String) -> String {
        if text.isEmpty { return "''" }
        let plain = text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || Array("+,-./:=@_^".utf8).contains(byte)
        }
        if plain { return text }
        var quoted = "'"
        for character in text {
            quoted += character == "'" || character == "!" ? "'\\\(character)'" : String(character)
        }
        return quoted + "'"
    }
}

extension Substring {
    /// The text without the white space at either end (git's `strbuf_trim`).
    fileprivate var trimmingSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
