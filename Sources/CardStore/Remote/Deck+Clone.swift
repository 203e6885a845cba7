import GitCore
import Glibc
import SystemCalls

extension Deck {
    /// Clones the deck at `url` into `path` (a new or empty folder) and sets it up like `create`
    /// does (merge-driver config). Refuses, removing what it made, when the remote is empty or its
    /// `main` has no `deck.json`, or when `settings.isInterrupted` says so. A new folder is made as a
    /// hidden one beside `path` and renamed to it once whole, so that `path` never holds half a deck,
    /// even after the process is killed; an empty folder already there is cloned into in place.
    public static func clone(
        from given: String, to path: String, settings: RemoteSettings = .fromEnvironment()
    ) throws(StoreError)
        -> Deck
    {
        // As git clone does: origin names a repository on this machine by its whole path, which means
        // the same from the clone's folder.
        // A setting that means nothing is said before anything is fetched, not blamed on the remote.
        try Deck.checkSettings(fsyncEnvironment: Deck.environment("CARDS_FSYNC"), fsyncConfig: nil)
        let url = absoluteIfLocal(given)
        guard RemoteURL(url) != nil else {
            throw StoreError(
                .invalidInput,
                "'\(url)' is not a git URL: give a path, file://, git://, http(s)://, ssh:// URL or user@host:path")
        }
        let absolute = FileSystem.absolute(path)
        let existed = FileSystem.exists(absolute)
        // What a clone into this folder that was killed left (see `cloneInPlace`) is removed first.
        if existed { removeStoppedClone(at: absolute) }
        if existed && !(FileSystem.isDirectory(absolute) && FileSystem.list(absolute).isEmpty) {
            throw StoreError(
                .alreadyExists, "\(path) already exists and is not an empty folder; clone into a new folder")
        }
        try refuseInsideDeck(absolute, shownAs: path, instead: "clone into a folder")
        // A new folder is made beside its name and renamed to it once whole. An empty folder that is there
        // already (the current one, a mount point, a link to one, with its owner and mode) is cloned into
        // in place; what the clone made in it is removed on failure.
        let work = existed ? absolute : partialClonePath(for: absolute)
        if !existed { removeAbandonedClones(of: absolute) }
        func cleanUp() { FileSystem.removeCreated(at: work, entriesBefore: existed ? [] : nil) }
        let remote = DeckRemote(name: "origin", url: url)
        // libgit2 writes the clone's pack, refs and index before any deck is open: fsynced as a deck's
        // writes are, unless `CARDS_FSYNC` says not to (the clone has no config of its own yet).
        let fsync = wantsFsync(environment: getenv("CARDS_FSYNC").map { String(cString: $0) }, config: nil)
        if fsync { Libgit2.claimFsync() }
        defer { if fsync { Libgit2.releaseFsync() } }
        var repository: Repository
        do {
            // Through git, a clone is a new repository and a fetch of main (`git fetch` into a ref of ours,
            // then our compare-and-swap): git's `clone` would write the branch and check it out itself.
            let throughGit = try Repository.defaultTransport(settings) == .git
            do {
                // Into a folder that was there: made in place, marked as unfinished until it is whole.
                repository =
                    existed || throughGit
                    ? try cloneByFetchingMain(from: url, to: work, settings: settings, marking: existed)
                    : try Repository.clone(from: url, to: work, branch: "main", settings: settings)
            } catch  where error.code == .notFound && !existed && !throughGit {
                // libgit2 1.5.1 cannot clone a remote whose HEAD names an unborn branch (a server made with
                // `git init --bare` and a default branch of master, then filled with main), nor takes a
                // remote whose branch is not main: fetch main, else the branch its HEAD names.
                cleanUp()
                repository = try cloneByFetchingMain(from: url, to: work, settings: settings)
            }
        } catch {
            cleanUp()
            if settings.isInterrupted?() == true { throw interrupted() }
            if error.code == .noSuchBranch {
                throw StoreError(
                    .notADeck,
                    "\(remote.displayURL) has no branch main, nor one its HEAD names: it is empty or not a deck; "
                        + "nothing was cloned. To fill an "
                        + "empty remote, create a deck with `cards init`, then `cards remote add origin \(url)` and `cards sync`"
                )
            }
            throw StoreError.remote(error, "cloning from", remote, listed: false)
        }
        let head: ObjectID?
        do {
            head = try repository.referenceTarget(Deck.branch(of: repository))
            try Deck.configureGit(repository)
        } catch {
            cleanUp()
            throw StoreError.git(error, while: "setting up the clone")
        }
        guard head != nil else {
            cleanUp()
            throw StoreError(
                .notADeck,
                "\(remote.displayURL) is empty, so there is no deck to clone; create a deck with `cards init`, then "
                    + "`cards remote add origin \(url)` and `cards sync` to fill it")
        }
        let cloned: Deck
        do throws(StoreError) {
            cloned = try Deck(repository: repository)
            if let head {
                try cloned.refuseNewerFormat(
                    at: head, holder: "\(remote.displayURL) holds a deck",
                    outcome: "nothing was cloned: update cards, then clone")
            }
            try cloned.checkIsDeck()
        } catch  where error.code == .newerFormat || error.code == .invalidInput {
            cleanUp()
            throw error
        } catch {
            cleanUp()
            throw StoreError(
                .notADeck,
                "\(remote.displayURL) is a git repository but not a deck (no deck.json on branch main); nothing was cloned"
            )
        }
        // libgit2's checkout runs no filter driver: git writes those files (an LFS image for its pointer).
        do throws(StoreError) {
            if let head { try cloned.checkOutThroughFilterDrivers(at: head) }
        } catch {
            cleanUp()
            throw error.reworded("\(error.message); nothing was cloned")
        }
        // The checkout cannot be stopped halfway: an interruption during it is honoured here.
        if settings.isInterrupted?() == true {
            cleanUp()
            throw interrupted()
        }
        // Whole: under its name at once (in place: the mark of an unfinished clone removed).
        if existed { unlink(incompleteCloneMark(in: repository.gitDirectory)) }
        guard existed || rename(work, absolute) == 0 else {
            let reason = SystemError.reason(errno)
            cleanUp()
            throw StoreError(.io, "could not move the clone into \(path): \(reason); nothing was cloned")
        }
        let opened = try withStoreError("opening the clone at \(path)") { () throws(GitError) in try Repository.open(at: absolute)
        }
        return try Deck(repository: opened)
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
    private static func fetchForClone(_ repository: Repository, _ branch: String, settings: RemoteSettings)
        throws(GitError) -> ObjectID?
    {
        let tracking = "refs/remotes/origin/" + branch.dropFirst("refs/heads/".count)
        _ = try repository.fetch(from: "origin", refspecs: ["\(branch):\(tracking)"], settings: settings)
        return try repository.referenceTarget(tracking)
    }

    static func interrupted() -> StoreError {
        StoreError(.interrupted, "interrupted; nothing was cloned")
    }

    /// A clone made by hand: a new repository, the remote `origin`, a fetch of its `main` (else of the
    /// branch its HEAD names, `master` say, as `git clone` takes it, recorded as `cards.branch`), and that
    /// branch checked out from it with its upstream set, as `git clone` would leave it.
    static func cloneByFetchingMain(
        from url: String, to path: String, settings: RemoteSettings, marking: Bool = false
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
        var branch = Deck.defaultBranch
        var tip = try fetchForClone(repository, branch, settings: settings)
        if tip == nil, let head = try repository.remoteHeadBranch("origin", settings: settings), head != branch {
            branch = head
            tip = try fetchForClone(repository, branch, settings: settings)
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
