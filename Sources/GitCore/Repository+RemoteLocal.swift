import CGit2

extension Repository {
    /// Pushes to a bare repository on this machine (a path or `file://`) with a compare-and-swap
    /// of each ref. libgit2 1.5's local transport checks fast-forward against the value it saw at
    /// connect time but then sets the ref unconditionally (`git_reference_create`, force): two
    /// devices pushing at once both "succeed" and the second overwrites the first. Here the objects
    /// are copied as a pack into the remote's object folder, then the ref moves only if it still
    /// holds the value the fast-forward check saw; otherwise `.nonFastForward`, as over the network.
    func pushLocal(path: String, url: String, refspecs: [String]) throws(GitError) {
        let remote: Repository
        do {
            remote = try Repository.open(at: path)
        } catch {
            throw GitError(
                code: error.code, message: "no git repository at \(url) (\(error.message))", function: "push")
        }
        guard remote.isBare else { throw Repository.notBare(url) }
        for spec in refspecs {
            let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw GitError(code: .other(-1), message: "unsupported push refspec '\(spec)'", function: "push")
            }
            guard let local = try referenceTarget(parts[0]) else {
                throw GitError(
                    code: .notFound, message: "nothing to push: \(parts[0]) does not exist", function: "push")
            }
            let current = try remote.referenceTarget(parts[1])
            if current == local { continue }
            if let current {
                guard hasObject(current), try isDescendant(local, of: current) else {
                    throw GitError(
                        code: .nonFastForward,
                        message:
                            "the remote moved since the fetch (\(parts[1]) is at \(current.short), not in our history)",
                        function: "push")
                }
            }
            try writePack(tip: local, excluding: current, into: remote.gitDirectory + "objects/pack")
            do {
                do {
                    try remote.updateReference(parts[1], to: local, expected: current, logMessage: "push")
                } catch
                    where error.code == .locked
                    && LockFiles.clearIfAbandoned(remote.gitDirectory + parts[1] + ".lock", age: 2)
                {
                    // A push killed on this machine left the remote's ref lock, and nobody else ever
                    // will remove it: gone now, try once more.
                    try remote.updateReference(parts[1], to: local, expected: current, logMessage: "push")
                }
            } catch  where error.code == .referenceChanged || error.code == .locked {
                throw GitError(
                    code: .nonFastForward, message: "the remote moved during the push (\(parts[1]) changed)",
                    function: "push")
            }
        }
    }

    /// Writes the objects reachable from `tip` but not from `excluding` as a pack (and its index) into `folder`.
    private func writePack(tip: ObjectID, excluding: ObjectID?, into folder: String) throws(GitError) {
        var walk: OpaquePointer?
        try check(git_revwalk_new(&walk, pointer), "git_revwalk_new")
        defer { git_revwalk_free(walk) }
        var tipOID = tip.raw
        try check(git_revwalk_push(walk, &tipOID), "git_revwalk_push")
        if let excluding {
            var hidden = excluding.raw
            try check(git_revwalk_hide(walk, &hidden), "git_revwalk_hide")
        }
        var builder: OpaquePointer?
        try check(git_packbuilder_new(&builder, pointer), "git_packbuilder_new")
        defer { git_packbuilder_free(builder) }
        try check(git_packbuilder_insert_walk(builder, walk), "git_packbuilder_insert_walk")
        guard git_packbuilder_object_count(builder) > 0 else { return }
        try check(git_packbuilder_write(builder, folder, 0, nil, nil), "git_packbuilder_write")
    }

    static func notBare(_ url: String) -> GitError {
        GitError(
            code: .other(-1),
            message: "\(url) has a working tree; a remote on this machine must be a bare repository "
                + "(make one with `git clone --bare` or `cards init --bare`)",
            function: "push")
    }
}
