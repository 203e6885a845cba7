import CardModel
import GitCore
import Glibc
import SystemCalls

/// A deck of cards: a git repository with `deck.json` and one canonical JSON file per card under
/// `cards/`. Every change is one commit written at object level and published by compare-and-swap
/// of `refs/heads/main`; then the working tree and index follow (non-bare decks).
public final class Deck {
    /// The branch a deck lives on unless its repository says otherwise (`branch`).
    public static let defaultBranch = "refs/heads/main"
    /// The branch this deck lives on (a full ref name): `cards.branch` when set (a clone of a remote
    /// whose branch is `master`, `trunk`, … sets it), else `main` when it exists, else the branch HEAD
    /// names (a repository made by git with another default branch), else `main`.
    public let branch: String
    /// `branch` without its `refs/heads/`, as people and git's messages name it.
    package var branchName: String { String(branch.dropFirst("refs/heads/".count)) }
    /// The deck metadata file at the root of the tree.
    package static let metadataPath = "deck.json"
    /// The folder that holds the card files.
    package static let cardsFolder = "cards"
    /// The card files' layout (`CardID.path`: `cards/<first two characters>/<36-character id>.json`),
    /// the only paths the index patch changes.
    static let cardPaths = PatchablePaths(
        folder: cardsFolder, fanOutLength: 2, fileNameLength: 36 + ".json".count, suffix: ".json")
    /// The `.gitattributes` line that routes card files to our merge driver.
    package static let attributesLine = "cards/**/*.json merge=cards"

    /// The repository behind the deck.
    package let repository: Repository
    /// The working tree folder (no trailing slash), or nil for a bare deck.
    public let workingDirectory: String?
    /// The git folder (no trailing slash).
    package let gitDirectory: String
    /// Whether writes fsync objects, refs and files (on unless `CARDS_FSYNC=0` or `cards.fsync=false`).
    package let durable: Bool
    /// How a commit makes its writes durable (see `FileSync`): `.ordered` on ext4 with a running
    /// journal (one fsync for the ref, reflogs, card file and index), `.strict` elsewhere or with
    /// `CARDS_FSYNC=strict` / `cards.fsync=strict` (an fsync per file), `.none` when `durable` is off.
    /// Decided on the first write, so commands that only read never probe the file system.
    private(set) lazy var flushMode: FlushMode = {
        guard durable else { return .none }
        if fsyncEnvironment == "strict" || fsyncConfig == "strict" { return .strict }
        // For tests on a machine without a journal: the ordered path, whatever the file system.
        if fsyncEnvironment == "ordered-unchecked" { return .ordered }
        let others = [repository.commonDirectory] + (repository.workingDirectory.map { [$0] } ?? [])
        return FileSync.hasOrderedJournal(gitDirectory, alsoHolding: others) ? .ordered : .strict
    }()
    /// `CARDS_FSYNC`, and `cards.fsync` from git config.
    private let fsyncEnvironment: String?
    private let fsyncConfig: String?
    /// What is known of git's conversion of files here (`core.autocrlf`, attributes files), looked up on
    /// the first file written or compared and again a second later (`Deck+Conversion.swift`).
    var conversionCache: ConversionCache?
    /// `deviceID()` once known: read from the config once per deck opened, not once per commit.
    var knownDeviceID: String?
    /// How long to wait for another process's deck lock before failing, in seconds (NaN counts as 0;
    /// more than `longestLockTimeout` as that).
    public var lockTimeout: Double = Deck.defaultLockTimeout {
        didSet { lockTimeout = lockTimeout.isNaN ? 0 : min(max(lockTimeout, 0), Deck.longestLockTimeout) }
    }
    /// What opening the deck read (its packs' reader, the root tree), for the first snapshot to take
    /// over: held until then only.
    var openingTrees: RawTreeCache?

    init(repository: Repository) throws(StoreError) {
        self.repository = repository
        branch = Deck.branch(of: repository)
        workingDirectory = repository.workingDirectory.map(Repository.trimmedSlash)
        gitDirectory = Repository.trimmedSlash(repository.gitDirectory)
        let setting = (try? repository.configString("cards.fsync")) ?? nil
        let environment = Deck.environment("CARDS_FSYNC")
        try Deck.checkSettings(fsyncEnvironment: environment, fsyncConfig: setting)
        durable = Deck.wantsFsync(environment: environment, config: setting)
        // Kept in lower case, as they were checked (`STRICT` is `strict`).
        fsyncEnvironment = environment?.lowercased()
        fsyncConfig = setting?.lowercased()
        if durable { Libgit2.claimFsync() }
        // A repository shared by a group: the files this deck makes there (its locks, reflogs, packs)
        // must be writable by the group, as git's own are.
        SharedRepository.apply((try? repository.configString("core.sharedRepository")) ?? nil)
    }

    deinit {
        if durable { Libgit2.releaseFsync() }
    }

    /// The branch a deck in `repository` lives on (see `branch`).
    static func branch(of repository: Repository) -> String {
        if let configured = (try? repository.localConfigString(Deck.branchSetting)) ?? nil, !configured.isEmpty {
            return configured.hasPrefix("refs/heads/") ? configured : "refs/heads/" + configured
        }
        if ((try? repository.referenceTarget(Deck.defaultBranch)) ?? nil) != nil { return Deck.defaultBranch }
        if let head = repository.headReferenceName(), head.hasPrefix("refs/heads/"),
            ((try? repository.referenceTarget(head)) ?? nil) != nil
        {
            return head
        }
        return Deck.defaultBranch
    }

    /// The git config key naming a deck's branch when it is not `main`.
    static let branchSetting = "cards.branch"

    /// The values `CARDS_FSYNC` and `cards.fsync` take.
    static let fsyncValues: Set<String> = [
        "0", "1", "false", "true", "no", "yes", "off", "on", "strict", "ordered-unchecked",
    ]

    /// Refuses a setting that means nothing, naming it (a typo must not quietly turn durability off, or
    /// a lock wait into the default): `CARDS_FSYNC`, `cards.fsync`, `CARDS_LOCK_TIMEOUT`.
    static func checkSettings(fsyncEnvironment: String?, fsyncConfig: String?) throws(StoreError) {
        if let value = fsyncEnvironment, !value.isEmpty, !fsyncValues.contains(value.lowercased()) {
            throw StoreError(
                .invalidInput,
                "CARDS_FSYNC='\(value)' is not a setting: use 1 (the default), 0 or strict, or unset it")
        }
        if let value = fsyncConfig, !fsyncValues.contains(value.lowercased()) {
            throw StoreError(
                .invalidInput,
                "cards.fsync '\(value)' (git config) is not a setting: use true, false or strict "
                    + "(`git config cards.fsync true`), or `git config --unset cards.fsync`")
        }
        if let value = getenv("CARDS_LOCK_TIMEOUT").map({ String(cString: $0) }), !value.isEmpty,
            Deck.lockTimeout(from: value) == nil
        {
            throw StoreError(
                .invalidInput,
                "CARDS_LOCK_TIMEOUT='\(value)' is not a number of seconds: use 0 or more (30 is the default, inf "
                    + "waits as long as it takes), or unset it")
        }
    }

    /// Seconds from a `CARDS_LOCK_TIMEOUT` value: a number of 0 or more, or inf; nil for anything else.
    static func lockTimeout(from text: String) -> Double? {
        guard let value = Double(text), value >= 0, !value.isNaN else { return nil }
        return min(value, Deck.longestLockTimeout)
    }

    /// Whether writes are to be made durable: unless `CARDS_FSYNC` or `cards.fsync` turns it off.
    static func wantsFsync(environment: String?, config: String?) -> Bool {
        let off: Set<String> = ["0", "false", "no", "off"]
        return
            !(environment.map { off.contains($0.lowercased()) } ?? false
            || config.map { off.contains($0.lowercased()) } ?? false)
    }

    /// The folder a person would call the deck: the working tree, or the bare repository.
    public var location: String { workingDirectory ?? gitDirectory }

    /// Whether the deck has no working tree.
    public var isBare: Bool { workingDirectory == nil }

    /// Opens the deck at `path`, or the one that contains it when `searchUpward`.
    public static func open(at path: String, searchUpward: Bool = true) throws(StoreError) -> Deck {
        let found: Repository?
        do {
            // git's ownership check comes first: nothing of another user's repository is read (its
            // config names commands: `core.fsmonitor`, `remote.origin.uploadpack`) unless git would.
            found = try Repository.openChecked(from: path, searchUpward: searchUpward)
        } catch {
            if error.code == .notFound { throw notADeck(path, searchedUpward: searchUpward) }
            // libgit2 1.5 reads SHA-1 repositories only, and names the extension it refuses.
            if error.message.lowercased().contains("extensions.objectformat") {
                throw StoreError(
                    .notADeck,
                    "\(path) is a SHA-256 repository (extensions.objectFormat): SHA-256 repositories are not "
                        + "supported yet; nothing was changed. A deck lives in a SHA-1 repository (`cards init` makes one)"
                )
            }
            // In git's words, which say what to do (`git config --global --add safe.directory …`).
            if error.code == .owner { throw StoreError(.git(.owner), error.message, cause: error) }
            throw StoreError.git(error, while: "opening \(path)")
        }
        guard let repository = found else { throw notADeck(path, searchedUpward: searchUpward) }
        let deck = try Deck(repository: repository)
        try deck.checkIsDeck()
        return deck
    }

    /// Why no deck was found at `path`, and what to do: a folder that does not exist, one inside a
    /// deck or a git repository (an explicit `--deck` is not searched upward, and `cards init` there
    /// would nest a repository inside it), or none of these.
    static func notADeck(_ path: String, searchedUpward: Bool) -> StoreError {
        let enclosing = searchedUpward ? nil : enclosingRepository(of: path)
        if let (root, isDeck) = enclosing, isDeck {
            let place = FileSystem.exists(path) ? "is inside" : "does not exist, and would be inside"
            return StoreError(
                .notADeck,
                "\(path) \(place) the deck at \(root), not a deck of its own; use the deck's folder, \(root)")
        }
        if !FileSystem.isDirectory(path) {
            if FileSystem.exists(path) { return StoreError(.notADeck, "\(path) is not a folder; give a deck's folder") }
            return StoreError(
                .notADeck, "\(path) does not exist; create a deck there with `cards init \(ShellWord.quoted(path))`")
        }
        if let (root, _) = enclosing {
            return StoreError(
                .notADeck,
                "\(path) is not a deck (it is inside the git repository at \(root), which is not one); create "
                    + "one there, nested in that repository, with `cards init --nested \(ShellWord.quoted(path))`")
        }
        let there = searchedUpward ? "there or above it" : "there"
        // "." is where the command ran: named, so that the message says which folder that was.
        if path == "." {
            return StoreError(
                .notADeck,
                "the current folder, \(FileSystem.absolute(path)), is not a deck (no git repository \(there)); "
                    + "create one here with `cards init`, or name a deck with --deck DIR")
        }
        return StoreError(
            .notADeck,
            "\(path) is not a deck (no git repository \(there)); create one with `cards init \(ShellWord.quoted(path))`"
        )
    }

    /// Refuses to make a deck at `absolute` (shown as `path`) inside another deck's working tree, where
    /// it would show as broken card files; `instead` says what to do (`cards init`, `cards clone`).
    static func refuseInsideDeck(_ absolute: String, shownAs path: String, instead: String) throws(StoreError) {
        if let (root, isDeck) = enclosingRepository(of: absolute), isDeck {
            throw StoreError(.alreadyExists, "\(path) is inside the deck at \(root); \(instead) outside that deck")
        }
    }

    /// The repository whose working tree holds `path` (or the nearest folder of it that exists), by
    /// the folder a person would name, and whether it is a deck; nil when there is none.
    static func enclosingRepository(of path: String) -> (root: String, isDeck: Bool)? {
        var existing = FileSystem.canonical(path)
        while !FileSystem.exists(existing) {
            let parent = FileSystem.parent(of: existing)
            if parent == existing { return nil }
            existing = parent
        }
        guard let location = try? RepositoryLocation.find(from: existing, searchUpward: true) else { return nil }
        // Another user's repository is not opened (git would not): a repository, not known to be a deck.
        guard (try? RepositoryOwnership.check(location)) != nil,
            let repository = try? Repository.open(at: location.folder)
        else { return (location.folder, false) }
        let root = Repository.trimmedSlash(repository.workingDirectory ?? repository.gitDirectory)
        // Read directly, not through a `Deck`: opening one sets process-wide flush settings.
        guard let head = try? repository.referenceTarget(Deck.branch(of: repository)),
            let tree = try? repository.commit(head).tree,
            (try? repository.treeEntry(in: tree, path: Deck.metadataPath)) != nil
        else { return (root, false) }
        return (root, true)
    }

    /// Fails unless the repository is a deck: it has `deck.json` at the root of `main`, or `main` is unborn
    /// and `deck.json` is in the working tree (a deck being created).
    func checkIsDeck() throws(StoreError) {
        if let clone = incompleteClone(), clone.pid != getpid() {
            // Alive as the clean-up of a stopped clone sees it (another user's process counts), so that
            // the advice to clone again never meets a clean-up that refuses.
            throw StoreError(
                .notADeck,
                LockFiles.isAlive(clone.pid)
                    ? "\(location) is being cloned by process \(clone.pid); wait for it to finish (if that process "
                        + "is no clone, its id taken again after a restart, remove \(location) and clone again)"
                    : "\(location) holds a clone that was stopped before it was complete; run `cards clone "
                        + "\(clone.url.isEmpty ? "URL" : ShellWord.quoted(clone.url)) \(ShellWord.quoted(location))` again (it removes what the stopped one "
                        + "made, then clones)")
        }
        let head = try headCommit()
        if let head {
            // Read from the packs as a snapshot reads, and handed to the first snapshot: its pack reader
            // has the indexes mapped and the root tree parsed by then.
            let trees = RawTreeCache()
            let tree: ObjectID
            do {
                tree = try repository.commitTree(head, cache: trees)
            } catch {
                throw StoreError(
                    .git(error.code),
                    "\(branch) points to \(head.short), which cannot be read as a commit (\(error.message))"
                        + (mainRecoveryAdvice(damaged: true, current: head) ?? StoreError.damageHint(error)))
            }
            let entry = try withStoreError("reading the deck's tree") { () throws(GitError) in
                try repository.treeEntry(in: tree, path: Deck.metadataPath, cache: trees)
            }
            if let entry {
                try refuseNewerFormat(
                    of: entry.id, holder: "\(location) is a deck", outcome: "update cards to use it", cache: trees)
                openingTrees = trees
                return
            }
        }
        // No main at all, though its reflog says where it was (removed by hand): not "not a deck".
        if head == nil, let advice = mainRecoveryAdvice() {
            throw StoreError(.notADeck, "\(location) has no branch \(branchName) (\(branch) is missing)\(advice)")
        }
        throw StoreError(
            .notADeck,
            "\(location) is a git repository but not a deck (no deck.json on branch main); "
                + "create a deck in another folder with `cards init <folder>`, or clone one into another "
                + "folder with `cards clone <url> <folder>`")
    }

    /// The `format` a `deck.json` blob gives when it is a whole number above 1: a deck made by a newer
    /// version, which this one must not write to (nil for format 1, and for a file that is broken,
    /// which `cards fsck` reports).
    func newerFormat(of blob: ObjectID, cache: RawTreeCache = RawTreeCache()) throws(StoreError) -> String? {
        let bytes = try withStoreError("reading deck.json") { () throws(GitError) in
            try repository.readBlob(blob, limit: Card.maximumFileSize, cache: cache)
        }
        // Any number above 1 (2, 2.0, 2e0, one too big for an Int): said as written.
        guard case .number(let text)? = (try? JSONValue.parse(bytes))?["format"], let value = Double(text), value > 1
        else { return nil }
        return text
    }

    /// Refuses a `deck.json` blob of a newer format (code `newerFormat`): "\(holder) of format N, newer
    /// than … (format 1); \(outcome)".
    func refuseNewerFormat(
        of blob: ObjectID, holder: String, outcome: String, cache: RawTreeCache = RawTreeCache()
    ) throws(StoreError) {
        guard let format = try newerFormat(of: blob, cache: cache) else { return }
        throw StoreError(
            .newerFormat, "\(holder) of format \(format), newer than this version of cards reads (format 1); \(outcome)"
        )
    }

    /// `refuseNewerFormat(of:)` for the `deck.json` of `commit`, if it has one; its commit, trees and blob
    /// read through `cache` (a merge hands it on to its planning, which then maps no pack index again).
    func refuseNewerFormat(
        at commit: ObjectID, holder: String, outcome: String, cache: RawTreeCache = RawTreeCache()
    ) throws(StoreError) {
        let entry = try withStoreError("reading deck.json of \(commit.short)") { () throws(GitError) in
            try repository.treeEntry(
                in: try repository.commitTree(commit, cache: cache), path: Deck.metadataPath, cache: cache)
        }
        if let entry { try refuseNewerFormat(of: entry.id, holder: holder, outcome: outcome, cache: cache) }
    }

    /// The commit `main` points to, or nil when the deck has no commit yet.
    public func headCommit() throws(StoreError) -> ObjectID? {
        do {
            return try repository.referenceTarget(branch)
        } catch {
            // Not the objects' fault (StoreError.git's hint): the file of the branch itself.
            throw StoreError(
                .git(error.code),
                "\(branch) cannot be read (\(error.message))"
                    + (mainRecoveryAdvice(damaged: true)
                        ?? "; `git reflog` or `git fsck --lost-found` may show what it was"))
        }
    }

    /// How to bring main back when it is missing or damaged (`damaged`: its file is there but git
    /// cannot read it, so `git update-ref` refuses it too) and its reflog knows where it was (a deck
    /// with a working tree keeps one); nil otherwise.
    func mainRecoveryAdvice(damaged: Bool = false, current: ObjectID? = nil) -> String? {
        // Where it is already (its commit damaged, not the branch): the branch is not what to mend.
        guard let latest = repository.reflogLatest(branch), latest != current, repository.hasObject(latest) else {
            return nil
        }
        // Commands that name the deck, so that they work wherever they are pasted.
        let command =
            damaged
            ? "echo \(latest.hex) > \(ShellWord.quoted(repository.commonDirectory + branch))"
            : "git -C \(ShellWord.quoted(gitDirectory)) update-ref \(branch) \(latest.hex)"
        return "; its reflog says it was at \(latest.short): put it back with `\(command)`, then "
            + "`cards --deck \(ShellWord.quoted(location)) fsck`"
    }

    /// The absolute working-tree path of a repository path, or nil for a bare deck.
    func workingPath(_ path: String) -> String? {
        workingDirectory.map { "\($0)/\(path)" }
    }
}
