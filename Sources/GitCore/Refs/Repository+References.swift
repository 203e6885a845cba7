import CGit2
import Glibc

extension Repository {
    /// The commit a reference points to (following symbolic references), or nil when it does not exist.
    package func referenceTarget(_ name: String) throws(GitError) -> ObjectID? {
        var oid = git_oid()
        let result = git_reference_name_to_id(&oid, pointer, name)
        if result == GIT_ENOTFOUND.rawValue {
            git_error_clear()
            return nil
        }
        try check(result, "git_reference_name_to_id")
        return ObjectID(oid)
    }

    /// Moves a reference only if it still points where we expect (nil: it must not exist yet).
    /// Throws `.referenceChanged` when another writer moved it, `.locked` while its lock is held;
    /// `.targetRemoved` when `check` finds the target no longer readable (`TargetCheck`), moving nothing.
    package func updateReference(
        _ name: String, to target: ObjectID, expected: ObjectID?, logMessage: String,
        check readable: TargetCheck = .none
    ) throws(GitError) {
        try checkReadable(target, readable, for: name)
        var reference: OpaquePointer?
        var new = target.raw
        var old = (expected ?? .zero).raw
        let result = git_reference_create_matching(&reference, pointer, name, &new, 1, &old, logMessage)
        if result == GIT_EEXISTS.rawValue {
            // libgit2 reports "must not exist yet, but does" as EEXISTS: it is the same race.
            git_error_clear()
            throw GitError(
                code: .referenceChanged, message: "\(name) was created by another writer",
                function: "git_reference_create_matching")
        }
        try check(result, "git_reference_create_matching")
        git_reference_free(reference)
    }

    /// Sets a reference unconditionally (for remote-tracking refs, which only we move). A lock held by
    /// another process is waited for up to `lockPatience` seconds, as git waits for a ref's lock
    /// (`core.filesRefLockTimeout`): `git gc` holds each loose ref's lock for a moment while it packs refs.
    package func setReference(_ name: String, to target: ObjectID, logMessage: String) throws(GitError) {
        var new = target.raw
        var delay: UInt32 = 1_000
        var waited = 0.0
        while true {
            var reference: OpaquePointer?
            let result = git_reference_create(&reference, pointer, name, &new, 1, logMessage)
            if result == GIT_ELOCKED.rawValue && waited < Repository.lockPatience {
                git_error_clear()
                usleep(delay)
                waited += Double(delay) / 1e6
                delay = min(delay * 2, 50_000)
                continue
            }
            try check(result, "git_reference_create")
            git_reference_free(reference)
            return
        }
    }

    /// How long `setReference` waits for a ref's lock, in seconds: git waits 0.1 s
    /// (`core.filesRefLockTimeout`); a fetch that has its objects already is worth a second.
    static let lockPatience = 1.0

    /// Deletes a reference; no error when it does not exist.
    package func deleteReference(_ name: String) throws(GitError) {
        var reference: OpaquePointer?
        let result = git_reference_lookup(&reference, pointer, name)
        if result == GIT_ENOTFOUND.rawValue {
            git_error_clear()
            return
        }
        try check(result, "git_reference_lookup")
        defer { git_reference_free(reference) }
        try check(git_reference_delete(reference), "git_reference_delete")
    }

    /// Points HEAD at a branch (which may not exist yet).
    package func setHead(_ referenceName: String) throws(GitError) {
        try check(git_repository_set_head(pointer, referenceName), "git_repository_set_head")
    }

    /// The name HEAD points to symbolically ("refs/heads/main"), or nil when HEAD is detached or missing.
    package func headReferenceName() -> String? {
        var reference: OpaquePointer?
        guard git_reference_lookup(&reference, pointer, "HEAD") == 0 else {
            git_error_clear()
            return nil
        }
        defer { git_reference_free(reference) }
        guard let target = git_reference_symbolic_target(reference) else { return nil }
        return String(cString: target)
    }
}

extension Repository {
    /// The commit a revision names (`origin/main`, `main~2`, a hex id...), or nil when it names none;
    /// fails when it is a prefix of several object ids.
    package func resolveCommit(_ revision: String) throws(GitError) -> ObjectID? {
        var object: OpaquePointer?
        let result = git_revparse_single(&object, pointer, revision)
        if result == GIT_EAMBIGUOUS.rawValue {
            git_error_clear()
            throw GitError(
                code: .other(result), message: "'\(revision)' begins more than one object's id: give more digits",
                function: "git_revparse_single")
        }
        if result == GIT_ENOTFOUND.rawValue || result == GIT_EINVALIDSPEC.rawValue {
            git_error_clear()
            return nil
        }
        try check(result, "git_revparse_single")
        defer { git_object_free(object) }
        var commit: OpaquePointer?
        let peeled = git_object_peel(&commit, object, GIT_OBJECT_COMMIT)
        if peeled < 0 {
            git_error_clear()
            return nil
        }
        defer { git_object_free(commit) }
        guard let id = git_object_id(commit) else { return nil }
        return ObjectID(id)
    }
}

extension Repository {
    /// The commits a reference was moved to, by its reflog, whose log message `matches`: what this
    /// repository itself did, say (clones and fetches log other messages). Nil when the reference has
    /// no reflog (bare repositories keep none by default).
    package func reflogTargets(_ name: String, where matches: (String) -> Bool) throws(GitError) -> Set<ObjectID>? {
        try withReflog(name) { reflog in
            var result: Set<ObjectID> = []
            let count = git_reflog_entrycount(reflog)
            if count == 0 { return nil }
            for index in 0..<count {
                guard let entry = git_reflog_entry_byindex(reflog, index) else { continue }
                guard let message = git_reflog_entry_message(entry).map({ String(cString: $0) }), matches(message)
                else { continue }
                if let id = git_reflog_entry_id_new(entry) { result.insert(ObjectID(id)) }
            }
            return result
        } ?? nil
    }

    /// `body` over reference `name`'s reflog as libgit2 reads it; nil when it has none (libgit2 would make
    /// an empty one when it reads one that is not there, which would then be kept).
    private func withReflog<T>(_ name: String, _ body: (OpaquePointer?) -> T) throws(GitError) -> T? {
        guard access(commonDirectory + "logs/" + name, F_OK) == 0 else { return nil }
        var reflog: OpaquePointer?
        try check(git_reflog_read(&reflog, pointer, name), "git_reflog_read")
        defer { git_reflog_free(reflog) }
        return body(reflog)
    }
}

extension Repository {
    /// Where reference `name` was last moved to, by its reflog's newest line: what it pointed to before
    /// it was removed or damaged by hand. Nil without a reflog (bare repositories keep none by default).
    package func reflogLatest(_ name: String) -> ObjectID? {
        let newest = try? withReflog(name) { reflog in
            git_reflog_entry_byindex(reflog, 0).flatMap(git_reflog_entry_id_new).map(ObjectID.init)
        }
        guard case let latest?? = newest, latest != .zero else { return nil }
        return latest
    }
}
