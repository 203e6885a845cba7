import CGit2

extension Repository {
    /// Reads a configuration value as git would (repo, then global and system files); nil when unset.
    package func configString(_ key: String) throws(GitError) -> String? {
        var config: OpaquePointer?
        try check(git_repository_config(&config, pointer), "git_repository_config")
        defer { git_config_free(config) }
        return try Repository.string(key, in: config)
    }

    /// A boolean setting read as git reads one (libgit2's `git_config_get_bool`: `true`/`yes`/`on`, a
    /// key with no value, a non-zero number are true; `false`/`no`/`off`, an empty value, 0 false); nil
    /// when unset or not a boolean.
    package func configBool(_ key: String) -> Bool? {
        var config: OpaquePointer?
        guard git_repository_config(&config, pointer) == 0 else {
            git_error_clear()
            return nil
        }
        defer { git_config_free(config) }
        var value: Int32 = 0
        guard git_config_get_bool(&value, config, key) == 0 else {
            git_error_clear()
            return nil
        }
        return value != 0
    }

    /// A boolean in git's words from the environment or a config value (`git_config_parse_bool`); nil
    /// for anything else.
    package static func parseBool(_ text: String) -> Bool? {
        var value: Int32 = 0
        guard git_config_parse_bool(&value, text) == 0 else {
            git_error_clear()
            return nil
        }
        return value != 0
    }

    /// A value from the repository's own config file only (not the user's or the system's), or nil.
    package func localConfigString(_ key: String) throws(GitError) -> String? {
        var value: String?
        try withLocalConfig { config throws(GitError) in value = try Repository.string(key, in: config) }
        return value
    }

    private static func string(_ key: String, in config: OpaquePointer?) throws(GitError) -> String? {
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        let result = git_config_get_string_buf(&buffer, config, key)
        if result == GIT_ENOTFOUND.rawValue {
            git_error_clear()
            return nil
        }
        try check(result, "git_config_get_string_buf")
        return buffer.ptr.map { String(cString: $0) } ?? ""
    }

    /// Sets a value in the repository's own config file.
    package func setConfig(_ key: String, _ value: String) throws(GitError) {
        try withLocalConfig { config throws(GitError) in
            try check(git_config_set_string(config, key, value), "git_config_set_string")
        }
    }

    /// Removes a value from the repository's own config file; no error when it was not set.
    package func removeConfig(_ key: String) throws(GitError) {
        try withLocalConfig { config throws(GitError) in
            let result = git_config_delete_entry(config, key)
            if result == GIT_ENOTFOUND.rawValue {
                git_error_clear()
                return
            }
            try check(result, "git_config_delete_entry")
        }
    }

    /// Every (name, value) in the effective config whose name matches the regular expression.
    package func configEntries(matching pattern: String) throws(GitError) -> [(name: String, value: String)] {
        var config: OpaquePointer?
        try check(git_repository_config(&config, pointer), "git_repository_config")
        defer { git_config_free(config) }
        var iterator: OpaquePointer?
        try check(git_config_iterator_glob_new(&iterator, config, pattern), "git_config_iterator_glob_new")
        defer { git_config_iterator_free(iterator) }
        var result: [(name: String, value: String)] = []
        var entry: UnsafeMutablePointer<git_config_entry>?
        while true {
            let status = git_config_next(&entry, iterator)
            if status == GIT_ITEROVER.rawValue {
                git_error_clear()
                break
            }
            try check(status, "git_config_next")
            guard let entry, let name = entry.pointee.name else { continue }
            let value = entry.pointee.value.map { String(cString: $0) } ?? ""
            result.append((String(cString: name), value))
        }
        return result
    }

    private func withLocalConfig(_ body: (OpaquePointer?) throws(GitError) -> Void) throws(GitError) {
        var config: OpaquePointer?
        try check(git_repository_config(&config, pointer), "git_repository_config")
        defer { git_config_free(config) }
        var local: OpaquePointer?
        try check(git_config_open_level(&local, config, GIT_CONFIG_LEVEL_LOCAL), "git_config_open_level")
        defer { git_config_free(local) }
        try body(local)
    }
}
