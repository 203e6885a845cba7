import GitCore
import Glibc
import SystemCalls

/// One `Deck.clone`, in phases called in this order: `init` checks the URL and the folder before
/// anything is made, `fetch` makes the repository (libgit2's clone, or a fetch of `main`),
/// `openDeck` checks it holds a deck, `checkOut` writes the files a filter driver converts, and
/// `finish` puts the clone under its name; `cleanUp` on every way out of a failed one removes what
/// it made. The remote is resolved once, in `fetch`, for every transfer of the clone.
struct CloneRun {
    /// The URL cloned (a relative path made absolute).
    let url: String
    /// The folder as given, for messages.
    let path: String
    /// The folder, absolute.
    let absolute: String
    /// Whether the folder was there (empty): the clone is made in place.
    let existed: Bool
    /// Where the clone is made: a hidden folder beside `absolute`, or `absolute` itself when it existed.
    let work: String
    /// Credentials, host keys, progress and interruption.
    let settings: RemoteSettings
    /// The remote as the clone will have it, for messages.
    let remote: DeckRemote

    /// Checks the URL and the folder, and clears what a killed clone into it left; nothing is made yet.
    init(from given: String, to path: String, settings: RemoteSettings) throws(StoreError) {
        // As git clone does: origin names a repository on this machine by its whole path, which means
        // the same from the clone's folder.
        // A setting that means nothing is said before anything is fetched, not blamed on the remote.
        try Deck.checkSettings(fsyncEnvironment: Deck.environment("CARDS_FSYNC"), fsyncConfig: nil)
        let url = Deck.absoluteIfLocal(given)
        guard RemoteURL(url) != nil else {
            throw StoreError(
                .invalidInput,
                "'\(url)' is not a git URL: give a path, file://, git://, http(s)://, ssh:// URL or user@host:path")
        }
        let absolute = FileSystem.absolute(path)
        let existed = FileSystem.exists(absolute)
        // What a clone into this folder that was killed left (see `cloneInPlace`) is removed first.
        if existed { Deck.removeStoppedClone(at: absolute) }
        if existed && !(FileSystem.isDirectory(absolute) && FileSystem.list(absolute).isEmpty) {
            throw StoreError(
                .alreadyExists, "\(path) already exists and is not an empty folder; clone into a new folder")
        }
        try Deck.refuseInsideDeck(absolute, shownAs: path, instead: "clone into a folder")
        // A new folder is made beside its name and renamed to it once whole. An empty folder that is there
        // already (the current one, a mount point, a link to one, with its owner and mode) is cloned into
        // in place; what the clone made in it is removed on failure.
        let work = existed ? absolute : Deck.partialClonePath(for: absolute)
        if !existed { Deck.removeAbandonedClones(of: absolute) }
        self.url = url
        self.path = path
        self.absolute = absolute
        self.existed = existed
        self.work = work
        self.settings = settings
        remote = DeckRemote(name: "origin", url: url)
    }

    /// Removes what the clone made (in place: only what it added to the folder).
    func cleanUp() { FileSystem.removeCreated(at: work, entriesBefore: existed ? [] : nil) }

    /// Makes the repository in `work`: through git, a new repository and a fetch of `main`
    /// (`cloneByFetchingMain`); through libgit2, its clone, else the same fetch.
    func fetch() throws(StoreError) -> Repository {
        do {
            // Through git, a clone is a new repository and a fetch of main (`git fetch` into a ref of ours,
            // then our compare-and-swap): git's `clone` would write the branch and check it out itself.
            let transport = try Repository.defaultTransport(settings)
            let throughGit = transport == .git
            do {
                // Into a folder that was there: made in place, marked as unfinished until it is whole.
                return existed || throughGit
                    ? try Deck.cloneByFetchingMain(
                        from: url, to: work, transport: transport, settings: settings, marking: existed)
                    : try Repository.clone(
                        ResolvedRemote(url: url, transport: transport, settings: settings), to: work, branch: "main")
            } catch  where error.code == .notFound && !existed && !throughGit {
                // libgit2 1.5.1 cannot clone a remote whose HEAD names an unborn branch (a server made with
                // `git init --bare` and a default branch of master, then filled with main), nor takes a
                // remote whose branch is not main: fetch main, else the branch its HEAD names.
                cleanUp()
                return try Deck.cloneByFetchingMain(from: url, to: work, transport: transport, settings: settings)
            }
        } catch {
            cleanUp()
            if settings.isInterrupted?() == true { throw Deck.interrupted() }
            if error.code == .noSuchBranch {
                throw StoreError(
                    .notADeck,
                    "\(remote.displayURL) has no branch main, nor one its HEAD names: it is empty or not a deck; "
                        + "nothing was cloned. To fill an "
                        + "empty remote, create a deck with `cards init`, then `cards remote add origin \(ShellWord.quoted(url))` and `cards sync`"
                )
            }
            throw StoreError.remote(error, "cloning from", remote, listed: false)
        }
    }

    /// Sets the new repository up as `create` does and opens it as a deck: its branch's tip, refusing
    /// an empty remote, a newer deck format, or a repository that is no deck.
    func openDeck(_ repository: Repository) throws(StoreError) -> (deck: Deck, head: ObjectID) {
        let head: ObjectID?
        do {
            head = try repository.referenceTarget(Deck.branch(of: repository))
            try Deck.configureGit(repository)
        } catch {
            cleanUp()
            throw StoreError.git(error, while: "setting up the clone")
        }
        guard let head else {
            cleanUp()
            throw StoreError(
                .notADeck,
                "\(remote.displayURL) is empty, so there is no deck to clone; create a deck with `cards init`, then "
                    + "`cards remote add origin \(ShellWord.quoted(url))` and `cards sync` to fill it")
        }
        let cloned: Deck
        do throws(StoreError) {
            cloned = try Deck(repository: repository)
            try cloned.refuseNewerFormat(
                at: head, holder: "\(remote.displayURL) holds a deck",
                outcome: "nothing was cloned: update cards, then clone")
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
        return (cloned, head)
    }

    /// Writes the files of `head` a filter driver converts (libgit2's checkout runs none: git writes
    /// them, an LFS image for its pointer), then honours an interruption during the checkout, which
    /// cannot be stopped halfway.
    func checkOut(_ cloned: Deck, at head: ObjectID) throws(StoreError) {
        do throws(StoreError) {
            try cloned.checkOutThroughFilterDrivers(at: head)
        } catch {
            cleanUp()
            throw error.reworded("\(error.message); nothing was cloned")
        }
        if settings.isInterrupted?() == true {
            cleanUp()
            throw Deck.interrupted()
        }
    }

    /// Puts the whole clone under its name at once (in place: the mark of an unfinished clone
    /// removed) and opens it there.
    func finish(_ repository: Repository) throws(StoreError) -> Deck {
        if existed { unlink(Deck.incompleteCloneMark(in: repository.gitDirectory)) }
        guard existed || rename(work, absolute) == 0 else {
            let reason = SystemError.reason(errno)
            cleanUp()
            throw StoreError(.io, "could not move the clone into \(path): \(reason); nothing was cloned")
        }
        let opened = try withStoreError("opening the clone at \(path)") { () throws(GitError) in
            try Repository.open(at: absolute)
        }
        return try Deck(repository: opened)
    }
}
