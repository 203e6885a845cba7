import CGit2
import Glibc
import SystemCalls

extension Repository {
    /// Pushes to a bare repository on this machine (a path or `file://`) with a compare-and-swap
    /// of each ref. libgit2 1.5's local transport checks fast-forward against the value it saw at
    /// connect time but then sets the ref unconditionally (`git_reference_create`, force): two
    /// devices pushing at once both "succeed" and the second overwrites the first. Here the objects
    /// are copied as a pack into the remote's object folder, then the ref moves only if it still
    /// holds the value the fast-forward check saw; otherwise `.nonFastForward`, as over the network.
    /// git's receive-pack runs the remote's hooks; this push cannot: a hook that decides whether a push goes in
    /// refuses the push (passing it by would break the remote's rule), one told afterwards comes back as a
    /// warning to show.
    func pushLocal(path: String, url: String, refspecs: [String]) throws(GitError) -> [String] {
        let remote: Repository
        do {
            remote = try Repository.open(at: path)
        } catch {
            throw GitError(
                code: error.code, message: "no git repository at \(url) (\(error.message))", function: "push")
        }
        guard remote.isBare else { throw Repository.notBare(url) }
        let hooks = remote.receiveHooks()
        let instead = "install git, or set `git config cards.transport git` where git is installed"
        if let rule = hooks.deciding.first {
            throw GitError(
                code: .pushRefused,
                message: "\(url) has a \(rule) hook, which libgit2's transport cannot run (only git's can): "
                    + "nothing was pushed; \(instead)", function: "push")
        }
        var movedAny = false
        let warnings = hooks.told.map {
            "the \($0) hook of \(url) was not run (libgit2's transport runs no hooks): \(instead)"
        }
        for spec in refspecs {
            let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw GitError(code: .invalidArgument, message: "unsupported push refspec '\(spec)'", function: "push")
            }
            guard let local = try referenceTarget(parts[0]) else {
                throw GitError(
                    code: .notFound, message: "nothing to push: \(parts[0]) does not exist", function: "push")
            }
            let current = try remote.referenceTarget(parts[1])
            if current == local { continue }
            movedAny = true
            // As git refuses it: the branch would move under that worktree's files and index.
            try Repository.refusePush(of: parts[1], into: remote, url: url)
            if let current {
                guard hasObject(current), try isDescendant(local, of: current) else {
                    throw GitError(
                        code: .nonFastForward,
                        message:
                            "the remote moved since the fetch (\(parts[1]) is at \(current.short), not in our history)",
                        function: "push")
                }
            }
            // Kept (`PackKeep`) until the remote's ref reaches it: a `git gc` in the remote meanwhile
            // would find its objects unreachable and delete them.
            let written = try writePack(
                tip: local, excluding: current.map { [$0] } ?? [], into: remote.gitDirectory + "objects/pack")
            defer { written.keep?.release() }
            let pushed = written.keep.map(TargetCheck.pack) ?? .none
            do {
                do {
                    try remote.updateReference(
                        parts[1], to: local, expected: current, logMessage: "push", check: pushed)
                } catch
                    where error.code == .locked
                    && LockFiles.clearIfAbandoned(remote.gitDirectory + parts[1] + ".lock", age: 2)
                {
                    // A push killed on this machine left the remote's ref lock, and nobody else ever
                    // will remove it: gone now, try once more.
                    try remote.updateReference(
                        parts[1], to: local, expected: current, logMessage: "push", check: pushed)
                }
            } catch  where error.code == .referenceChanged || error.code == .locked {
                throw GitError(
                    code: .nonFastForward, message: "the remote moved during the push (\(parts[1]) changed)",
                    function: "push")
            }
        }
        return movedAny ? warnings : []
    }

    /// The hooks a push into this repository would run, as git's receive-pack finds them (in
    /// `core.hooksPath`, else `hooks/`; executable files only): those that decide whether the push goes
    /// in, and those told after it did.
    func receiveHooks() -> (deciding: [String], told: [String]) {
        // receive-pack runs them from the git folder.
        let folder = hooksFolder(runFrom: gitDirectory)
        func present(_ name: String) -> Bool { Repository.hasHook(name, in: folder) }
        return (
            ["pre-receive", "update", "proc-receive"].filter(present),
            ["reference-transaction", "post-receive", "post-update"].filter(present)
        )
    }

    /// Writes the objects reachable from `tip` but not from `excluding` as a pack (and its index) into
    /// `folder`: whole objects found by `newObjects` (only the folders that changed are read) and
    /// written as `PackFile` writes a commit's, flushed before they are named. libgit2's packbuilder,
    /// used when a tree is not canonical, walks every tree of `excluding` to mark it and searches
    /// deltas among the card folders it sends: ~0.6 s for a 100-card push at 100,000 cards.
    ///
    /// Returns how many objects were written and the pack's `.keep` (`PackKeep`), for the caller to
    /// release once the ref that reaches `tip` is written.
    func writePack(tip: ObjectID, excluding: [ObjectID], into folder: String) throws(GitError) -> (
        count: Int, keep: PackKeep?
    ) {
        // The trees `newObjects` read stay in the cache, and its pack reader maps the packs once.
        let cache = RawTreeCache()
        guard let objects = try newObjects(tip: tip, excluding: excluding, cache: cache) else {
            return (0, try writePackThroughLibgit2(tip: tip, excluding: excluding, into: folder))
        }
        guard !objects.isEmpty else { return (0, nil) }
        let reader = cache.reader(for: self)
        var pack = PackFile(expectedBytes: 0, objects: objects.count)
        for object in objects {
            let id = ObjectID(object.id)
            if object.type == GIT_OBJECT_TREE, let tree = cache.trees[id] {
                pack.append(id: object.id, type: object.type, data: UnsafeRawBufferPointer(tree.bytes))
                continue
            }
            var bytes = reader.read(id, type: object.type)
            if bytes == nil { bytes = try readObject(id, type: object.type) }
            bytes?.withUnsafeBytes { pack.append(id: object.id, type: object.type, data: $0) }
        }
        let keep = try pack.install(in: folder, durable: true, keeping: true).keep
        return (objects.count, keep)
    }

    /// The content of object `id` through libgit2 (strict: hash-checked); an error if it is missing
    /// or (when `type` is given) of another type.
    func readObject(_ id: ObjectID, type: git_object_t? = nil) throws(GitError) -> [UInt8] {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        var object: OpaquePointer?
        var raw = id.raw
        try check(git_odb_read(&object, odb, &raw), "git_odb_read")
        defer { git_odb_object_free(object) }
        if let type, git_odb_object_type(object) != type {
            let found = String(cString: git_object_type2string(git_odb_object_type(object)))
            let wanted = String(cString: git_object_type2string(type))
            throw GitError(
                code: .damaged,
                message: "object \(id.short) in \(gitDirectory) is a \(found) where its history names a \(wanted): "
                    + "the repository is damaged; run `git fsck` there",
                function: "git_odb_read")
        }
        let count = git_odb_object_size(object)
        guard count > 0, let data = git_odb_object_data(object) else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: count))
    }

    /// `writePack` through libgit2's packbuilder (deltas searched, objects compressed). Its `.keep` is
    /// made as soon as libgit2 has named the pack (libgit2 offers no step before): a repack that starts
    /// in those microseconds could still take it, and the ref update's check then refuses the move.
    private func writePackThroughLibgit2(tip: ObjectID, excluding: [ObjectID], into folder: String) throws(GitError)
        -> PackKeep?
    {
        let walk = try revisionWalk(from: tip, hiding: excluding)
        defer { git_revwalk_free(walk) }
        var builder: OpaquePointer?
        try check(git_packbuilder_new(&builder, pointer), "git_packbuilder_new")
        defer { git_packbuilder_free(builder) }
        try check(git_packbuilder_insert_walk(builder, walk), "git_packbuilder_insert_walk")
        guard git_packbuilder_object_count(builder) > 0 else { return nil }
        try check(git_packbuilder_write(builder, folder, 0, nil, nil), "git_packbuilder_write")
        guard let name = git_packbuilder_name(builder) else { return nil }
        return try PackKeep.create(base: "\(folder)/pack-\(String(cString: name))")
    }

    /// Fetches from a repository on this machine (a path or `file://`) with refspecs of one branch
    /// each into a remote-tracking ref ("[+]refs/heads/x:refs/remotes/o/x"): the objects our branches and remote-tracking refs
    /// lack, found and packed as `writePack` does for a push, then the tracking refs moved. Nil, having
    /// changed nothing, where it does not apply (no repository there, a glob refspec): libgit2's
    /// fetch then does it, or says why not. libgit2's local transport packs with its packbuilder:
    /// ~0.4 s for a 100-card fetch at 100,000 cards (deltas searched among the card folders).
    func fetchLocal(path: String, refspecs: [String], logMessage: String) throws(GitError) -> FetchResult? {
        var pairs: [(source: String, destination: String)] = []
        for spec in refspecs {
            let parts = (spec.hasPrefix("+") ? String(spec.dropFirst()) : spec)
                .split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            // Into remote-tracking refs only: a branch of ours is libgit2's to update (or refuse).
            guard parts.count == 2, parts[0].hasPrefix("refs/heads/"), parts[1].hasPrefix("refs/remotes/"),
                !(parts[0] + parts[1]).contains("*")
            else { return nil }
            pairs.append((parts[0], parts[1]))
        }
        guard let source = try? Repository.open(at: path) else { return nil }
        let heads = try source.branchHeads()
        // The commits we have and the source has too: hidden, with everything under them. (A ref
        // to anything but a commit is no help to a revision walk, which refuses it.)
        var haves: [ObjectID] = []
        for id in try branchAndTrackingTargets() where source.isCommit(id) { haves.append(id) }
        var result = FetchResult(heads: heads, receivedObjects: 0, receivedBytes: 0)
        for pair in pairs {
            guard let tip = heads[pair.source] else { continue }
            var keep: PackKeep?
            if !hasObject(tip) {
                // Kept until the tracking ref reaches it, as git's fetch keeps the pack it receives.
                let written = try source.writePack(tip: tip, excluding: haves, into: packFolder)
                result.receivedObjects += written.count
                keep = written.keep
                // Ours now, with everything under it: a later branch sharing it sends none of it again.
                haves.append(tip)
            }
            defer { keep?.release() }
            try checkReadable(tip, keep.map(TargetCheck.pack) ?? .none, for: pair.destination)
            try setReference(pair.destination, to: tip, logMessage: logMessage)
        }
        return result
    }

    /// Whether `id` is a commit in this repository's object database.
    private func isCommit(_ id: ObjectID) -> Bool {
        (try? objectHeader(id).type) == GIT_OBJECT_COMMIT
    }

    /// The branches of this repository, by full name.
    func branchHeads() throws(GitError) -> [String: ObjectID] {
        try referenceTargets(glob: "refs/heads/*")
    }

    /// The commits our branches and remote-tracking refs point to.
    private func branchAndTrackingTargets() throws(GitError) -> [ObjectID] {
        Array(
            Set(try referenceTargets(glob: "refs/heads/*").values).union(
                try referenceTargets(glob: "refs/remotes/*").values))
    }

    /// The direct references matching `glob`, by full name, with their targets.
    func referenceTargets(glob: String) throws(GitError) -> [String: ObjectID] {
        var iterator: OpaquePointer?
        try check(git_reference_iterator_glob_new(&iterator, pointer, glob), "git_reference_iterator_glob_new")
        defer { git_reference_iterator_free(iterator) }
        var result: [String: ObjectID] = [:]
        while true {
            var reference: OpaquePointer?
            let next = git_reference_next(&reference, iterator)
            if next == GIT_ITEROVER.rawValue { break }
            // A ref that cannot be read is an error, not a branch that is not there.
            try check(next, "git_reference_next")
            defer { git_reference_free(reference) }
            guard git_reference_type(reference) == GIT_REFERENCE_DIRECT, let name = git_reference_name(reference),
                let target = git_reference_target(reference)
            else { continue }
            result[String(cString: name)] = ObjectID(target.pointee)
        }
        git_error_clear()
        return result
    }

    /// Throws the error a push of `branch` would give when `resolved` is a repository on this machine
    /// with a working tree, or with `branch` checked out in a worktree of its own (pushes there are
    /// refused): for a sync to check before it fetches and merges anything. Anything else, a missing
    /// folder included, is left for the fetch to report.
    /// Through git (`resolved.transport`), a repository with a working tree is refused only where git's
    /// receive-pack refuses it: when `branch` is checked out there and its `receive.denyCurrentBranch`
    /// is not `updateInstead`, `ignore` or `warn` (git then updates or leaves that working tree itself).
    package func checkPushable(_ resolved: ResolvedRemote, branch: String) throws(GitError) {
        let url = resolved.url
        guard let path = resolved.localPath, let remote = try? Repository.open(at: path) else { return }
        guard resolved.transport == .git else { return try Repository.refusePush(of: branch, into: remote, url: url) }
        // Checked out in its working tree or in a linked worktree's, unless git is told to let it through.
        let full = branch.hasPrefix("refs/") ? branch : "refs/heads/" + branch
        let checkedOut = !remote.isBare && remote.headReferenceName() == full
        let worktree = remote.otherWorktrees(checkingOut: branch).first?.folder
        guard checkedOut || worktree != nil else { return }
        if let setting = ((try? remote.configString("receive.denyCurrentBranch")) ?? nil)?.lowercased(),
            ["updateinstead", "ignore", "warn"].contains(setting) || Repository.parseBool(setting) == false
        {
            return
        }
        if let worktree { throw Repository.checkedOut(branch, in: worktree, of: url) }
        throw Repository.checkedOutThere(url)
    }

    /// The refusal of a push of `branch` into `remote` (at `url`) on this machine: one with a working
    /// tree, or with `branch` checked out in a worktree of its own (git refuses both).
    static func refusePush(of branch: String, into remote: Repository, url: String) throws(GitError) {
        guard remote.isBare else { throw notBare(url) }
        guard let worktree = remote.otherWorktrees(checkingOut: branch).first?.folder else { return }
        throw checkedOut(branch, in: worktree, of: url)
    }

    /// A push of `branch`, checked out in `worktree`, a linked worktree of `url`: refused.
    static func checkedOut(_ branch: String, in worktree: String, of url: String) -> GitError {
        GitError(
            code: .refused,
            message: "\(branch) is checked out in \(worktree), a worktree of \(url); a push would move it under "
                + "that worktree's files (git refuses it too): detach it there (`git -C \(ShellWord.singleQuoted(worktree)) switch --detach`)",
            function: "push")
    }

    /// libgit2's transport pushes into bare repositories only: it cannot update a working tree.
    static func notBare(_ url: String) -> GitError {
        GitError(
            code: .refused,
            message: "\(url) has a working tree; through libgit2's transport (`cards.transport libgit2`) a remote "
                + "on this machine must be a bare repository (make one with `git clone --bare` or `cards init "
                + "--bare`); through git (`cards.transport git`) one whose `receive.denyCurrentBranch` is "
                + "`updateInstead` takes the push too",
            function: "push")
    }

    /// git's receive-pack refuses a push of the branch a working tree has checked out.
    static func checkedOutThere(_ url: String) -> GitError {
        GitError(
            code: .refused,
            message: "\(url) has a working tree with the branch checked out; a remote on this machine must be a "
                + "bare repository (make one with `git clone --bare` or `cards init --bare`), or one whose "
                + "`receive.denyCurrentBranch` is `updateInstead` (git then updates that working tree)",
            function: "push")
    }
}
