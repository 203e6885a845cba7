import GitCore
import Glibc
import SystemCalls

extension Deck {
    /// Clones the deck at `url` into `path` (a new or empty folder) and sets it up like `create`
    /// does (merge-driver config). Refuses, removing what it made, when the remote is empty or its
    /// `main` has no `deck.json`, or when `settings.isInterrupted` says so. A new folder is made as a
    /// hidden one beside `path` and renamed to it once whole, so that `path` never holds half a deck,
    /// even after the process is killed; an empty folder already there is cloned into in place. Its
    /// phases are `CloneRun`'s.
    public static func clone(
        from given: String, to path: String, settings: RemoteSettings = .fromEnvironment()
    ) throws(StoreError)
        -> Deck
    {
        let clone = try CloneRun(from: given, to: path, settings: settings)
        // libgit2 writes the clone's pack, refs and index before any deck is open: fsynced as a deck's
        // writes are, unless `CARDS_FSYNC` says not to (the clone has no config of its own yet).
        let fsync = wantsFsync(environment: getenv("CARDS_FSYNC").map { String(cString: $0) }, config: nil)
        if fsync { Libgit2.claimFsync() }
        defer { if fsync { Libgit2.releaseFsync() } }
        let repository = try clone.fetch()
        let (cloned, head) = try clone.openDeck(repository)
        try clone.checkOut(cloned, at: head)
        return try clone.finish(repository)
    }

    /// Where decks cloned (`kind` "clone") or created ("init") as `absolute` are made before they are
    /// whole: hidden folders beside it, named after it (`prefix`) and their process.
    static func partialClones(of absolute: String, kind: String = "clone") -> (folder: String, prefix: String) {
        let path = Repository.trimmedSlash(absolute)
        return (FileSystem.parent(of: path), ".\(FileSystem.basename(of: path)).cards-\(kind)-")
    }

    /// The hidden folder this process makes a deck for `absolute` in.
    static func partialClonePath(for absolute: String, kind: String = "clone") -> String {
        let (folder, prefix) = partialClones(of: absolute, kind: kind)
        return "\(folder == "/" ? "" : folder)/\(prefix)\(getpid())"
    }

    /// Removes what clones (or creations, `kind`) left beside `absolute` when their process was killed
    /// (its id no longer runs): of `absolute` itself at once; of other names in the same folder (a clone
    /// killed, then made again under another name) once untouched for ten minutes (`lastActivity`), as
    /// a clone's process may be one this process cannot see (another container sharing the folder).
    static func removeAbandonedClones(of absolute: String, kind: String = "clone") {
        let (folder, prefix) = partialClones(of: absolute, kind: kind)
        let marker = ".cards-\(kind)-"
        let now = LockFiles.wallClock()
        for entry in FileSystem.list(folder) where entry.hasPrefix(".") && entry.contains(marker) {
            guard let digits = entry.split(separator: "-").last, entry.hasSuffix(marker + digits),
                let pid = Int32(digits), pid > 0, pid != getpid(), !LockFiles.isAlive(pid)
            else { continue }
            let full = "\(folder == "/" ? "" : folder)/\(entry)"
            if !entry.hasPrefix(prefix) && now - lastActivity(inClone: full) <= Deck.abandonedAge { continue }
            LockFiles.awaitGitProcesses(workingIn: full)
            FileSystem.removeTree(full)
        }
    }

    /// When a clone in `folder` last wrote, as far as a few files tell (seconds since the epoch): the
    /// folder, its `.git`, the index, and the pack folder with what is in it (a fetch writes its pack
    /// there for as long as it runs).
    static func lastActivity(inClone folder: String) -> Double {
        let pack = "\(folder)/.git/objects/pack"
        let paths =
            [folder, "\(folder)/.git", "\(folder)/.git/index", pack] + FileSystem.list(pack).map { "\(pack)/\($0)" }
        return paths.compactMap(LockFiles.modificationTime).max() ?? 0
    }

    /// Fetches the remote's `branch` into its tracking ref (`origin/NAME`): its tip, or nil when it has none.
    private static func fetchForClone(_ repository: Repository, _ origin: ResolvedRemote, _ branch: String)
        throws(GitError) -> ObjectID?
    {
        let tracking = "refs/remotes/origin/" + branch.dropFirst("refs/heads/".count)
        _ = try repository.fetch(origin, refspecs: ["\(branch):\(tracking)"])
        return try repository.referenceTarget(tracking)
    }

    static func interrupted() -> StoreError {
        StoreError(.interrupted, "interrupted; nothing was cloned")
    }

    /// A clone made by hand: a new repository, the remote `origin`, a fetch of its `main` (else of the
    /// branch its HEAD names, `master` say, as `git clone` takes it, recorded as `cards.branch`), and that
    /// branch checked out from it with its upstream set, as `git clone` would leave it. `origin` is
    /// resolved once, through `transport`, for its fetches.
    static func cloneByFetchingMain(
        from url: String, to path: String, transport: RemoteTransport, settings: RemoteSettings,
        marking: Bool = false
    ) throws(GitError) -> Repository {
        if marking {
            // In the git folder before anything else is (git's own files come after): until `clone` removes
            // it, a deck opened meanwhile or after a kill is refused for what it is, and the next clone
            // into the folder clears it.
            let gitFolder = "\(Repository.trimmedSlash(path))/.git"
            let mark = incompleteCloneMark(in: gitFolder)
            let text = Array("pid \(getpid())\n\(url)\n".utf8)
            // Written in place, not through a temp file: the mark's mere presence is what counts.
            let descriptor =
                mkdir(gitFolder, 0o755) == 0 ? Glibc.open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) : -1
            defer { if descriptor >= 0 { close(descriptor) } }
            let failure = descriptor >= 0 ? FileSync.writeAll(descriptor, text) : errno
            guard failure == 0 else {
                throw GitError(
                    code: .system(failure),
                    message: "cannot start the clone in \(gitFolder): \(SystemError.reason(failure))",
                    function: "clone")
            }
        }
        let repository = try Repository.create(at: path, bare: false)
        try repository.addRemote(name: "origin", url: url)
        let origin = try repository.resolveRemote("origin", transport: transport, settings: settings)
        var branch = Deck.defaultBranch
        var tip = try fetchForClone(repository, origin, branch)
        if tip == nil, let head = try repository.remoteHeadBranch(origin), head != branch {
            branch = head
            tip = try fetchForClone(repository, origin, branch)
        }
        guard let tip else {
            throw GitError(code: .noSuchBranch, message: "the remote has no branch main", function: "fetch")
        }
        try repository.setReference(branch, to: tip, logMessage: "clone: from \(url)")
        let name = String(branch.dropFirst("refs/heads/".count))
        if branch != Deck.defaultBranch {
            try repository.setHead(branch)
            try repository.setConfig(Deck.branchSetting, name)
        }
        try repository.setConfig("branch.\(name).remote", "origin")
        try repository.setConfig("branch.\(name).merge", branch)
        try repository.checkoutHead()
        return repository
    }

    /// The mark a clone into a folder that was there leaves in the new git folder until it is whole:
    /// `pid <n>` and the URL.
    static func incompleteCloneMark(in gitDirectory: String) -> String {
        "\(Repository.trimmedSlash(gitDirectory))/cards-clone-incomplete"
    }

    /// The process and URL of a clone into this deck's folder that has not finished, when there is one.
    func incompleteClone() -> (pid: Int32, url: String)? {
        // Looked for first: every command asks, and reading a missing file builds an error to throw away.
        let mark = Deck.incompleteCloneMark(in: gitDirectory)
        guard FileSystem.exists(mark), let bytes = try? FileSystem.read(mark, limit: 8_192) else {
            return nil
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        let pid = lines.first.flatMap { $0.hasPrefix("pid ") ? Int32($0.dropFirst(4)) : nil } ?? 0
        return (pid, lines.count > 1 ? lines[1] : "")
    }

    /// Removes what a clone into `absolute` (a folder that was there) left when it was killed: its git
    /// folder, marked unfinished by a process that no longer runs, and the files its checkout wrote (the
    /// top-level names of the commit it was checking out). Anything else in the folder stays.
    static func removeStoppedClone(at absolute: String) {
        let gitFolder = "\(absolute)/.git"
        // libgit2's probe files (`_git2_…`, made in the folder to test what its file system can do), when
        // they are all that is left: a clone killed while it probed.
        defer {
            let left = FileSystem.list(absolute)
            if !left.isEmpty && left.allSatisfy({ $0.hasPrefix("_git2_") }) {
                for name in left { unlink("\(absolute)/\(name)") }
            }
        }
        // Killed between making the git folder and marking it: an empty git folder is no one's.
        if FileSystem.isDirectory(gitFolder) && FileSystem.list(gitFolder).isEmpty { rmdir(gitFolder) }
        // A repository there that git would refuse to this user (another user's, see `Repository.openChecked`)
        // is not read or cleared, whatever its mark says: the folder is then not empty, and the clone says so.
        if let location = try? RepositoryLocation.find(from: absolute, searchUpward: false),
            (try? RepositoryOwnership.check(location)) == nil
        {
            return
        }
        guard let bytes = try? FileSystem.read(incompleteCloneMark(in: gitFolder), limit: 8_192) else { return }
        // A mark cut short (killed while writing it) names no process: its clone is stopped too.
        let first = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first ?? ""
        if first.hasPrefix("pid "), let pid = Int32(first.dropFirst(4)), pid > 0 {
            guard pid != getpid(), !LockFiles.isAlive(pid) else { return }
        }
        LockFiles.awaitGitProcesses(workingIn: absolute)
        var names: [String] = []
        if let repository = try? Repository.open(at: absolute),
            let tip =
                (try? repository.referenceTarget(
                    "refs/remotes/origin/" + Deck.branch(of: repository).dropFirst("refs/heads/".count))) ?? nil,
            let tree = try? repository.commit(tip).tree,
            let root = try? repository.treeEntries(tree)
        {
            names = root.map(\.name).filter { $0 != ".git" && !$0.contains("/") && $0 != "." && $0 != ".." }
        }
        for name in names { FileSystem.removeTree("\(absolute)/\(name)") }
        FileSystem.removeTree(gitFolder)
    }
}
