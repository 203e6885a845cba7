import CardModel
import GitCore
import Glibc
import SystemCalls

/// A card file (or `deck.json`) changed by hand in the working tree.
public struct HandEdit: Sendable, Hashable {
    /// How the file differs from `main`.
    public enum Change: String, Sendable, Hashable {
        /// A new file.
        case new
        /// A changed file.
        case changed
        /// A file removed by hand.
        case deleted
        /// A card file whose card is main's, written otherwise (spacing, key order): `commit` writes it
        /// back as main has it, with no commit.
        case reformatted
    }
    /// The path in the deck.
    public var path: String
    /// What changed.
    public var change: Change
    /// Why the file is not a valid card, or nil when it is (or was deleted).
    public var problem: String?
    /// The card as edited (valid new or changed files only).
    public var card: Card?
    /// The bytes to commit for a file that is not a card (`deck.json`).
    public var content: [UInt8]?
}

extension Deck {
    /// Holds writers off for as long as the result is kept: the deck lock taken shared, so that a scan
    /// of the working tree (`cards status`) never sees a write half done (its files written, `main`
    /// not yet moved) as hand edits. Waits for a write in progress like a writer does (`lockTimeout`).
    /// Not for a caller that holds the deck lock itself.
    package func holdingWritersOff() throws(StoreError) -> AnyObject {
        try DeckLock(path: "\(gitDirectory)/cards.lock", timeout: lockTimeout, shared: true)
    }

    /// Hand edits under `cards/` and of `deck.json` in the working tree (a scan: for `status`, `commit`
    /// and `fsck` only).
    public func handEdits() throws(StoreError) -> [HandEdit] {
        // Against main, the files of another branch or a git merge half done would all look hand-edited.
        try checkNoUnfinishedGitOperation()
        return try handEdits(against: snapshot())
    }

    /// `handEdits()` against `main`, for callers that have checked the checkout and hold main's snapshot
    /// (a commit, `fsck`).
    /// `checkingIndex` false: the caller has compared the index with main itself (`fsck`).
    func handEdits(against main: DeckSnapshot, checkingIndex: Bool = true) throws(StoreError) -> [HandEdit] {
        try handEdits(against: main, checkingIndex: checkingIndex, stale: nil)
    }

    /// `handEdits(against:)`, also giving `stale` each card file found as main has it whose stat data
    /// the index does not record (a deck copied or restored from a backup: every file's inode and ctime
    /// differ), with the stat data it had before it was read: for `refreshIndex`.
    func handEdits(
        against main: DeckSnapshot, checkingIndex: Bool = true,
        stale: ((_ path: String, _ blob: ObjectID, _ stat: FileStat) -> Void)?
    ) throws(StoreError) -> [HandEdit] {
        guard let workingDirectory else { return [] }
        let scanned: [StatusEntry]
        do throws(GitError) {
            // From the index's stat data and main's trees where that answers (every ordinary deck), else
            // libgit2's status: the paths either gives are compared with main below, file by file.
            if let quick = IndexStatusScan.scan(
                repository, folder: Deck.cardsFolder, files: [Deck.metadataPath], against: main.tree, cache: main.trees)
            {
                scanned = quick
            } else {
                scanned = try repository.status(under: [Deck.cardsFolder + "/", Deck.metadataPath])
            }
        } catch {
            // A file git cannot read: libgit2 says "failed open - '<path>' is locked: Permission denied" (the
            // path between the first "'" and that ending: a path may hold a quote). Said as our own reads say it.
            let closing = "' is locked: Permission denied"
            let body = error.message.hasSuffix(closing) ? error.message.dropLast(closing.count) : ""
            if let open = body.firstIndex(of: "'") {
                let file = String(body[body.index(after: open)...])
                throw StoreError(
                    .io, FileSystem.openFailure(file, errno: EACCES, followingLinks: false) + ", then try again")
            }
            if error.message.hasSuffix("Permission denied") {
                throw StoreError(
                    .io,
                    "a file in \(workingDirectory) cannot be read (\(error.message)); let yourself read it, then try again"
                )
            }
            if isSplitIndex { try checkIndexNotSplit() }
            try checkIndexNotSparse()
            // Most often the index is damaged or missing, which `fsck --repair` makes again.
            throw StoreError(
                .git(error.code),
                "reading the working tree's status failed: \(error.message); if \(gitDirectory)/index is damaged, "
                    + "`cards fsck --repair` makes it again from main")
        }
        // A file git keeps out of the working tree (skip-worktree: a sparse checkout's paths outside its
        // patterns) is neither deleted nor edited, whatever is there: git does not look at it.
        let skipped = scanned.isEmpty ? [] : skipWorktreePaths(among: Set(scanned.map(\.path)))
        let entries = skipped.isEmpty ? scanned : scanned.filter { !skipped.contains($0.path) }
        var edits: [HandEdit] = []
        if entries.contains(where: { $0.path == Deck.metadataPath }),
            let edit = try deckDescriptionEdit(in: workingDirectory, main: main)
        {
            edits.append(edit)
        }
        for entry in entries where entry.path.hasPrefix(Deck.cardsFolder + "/") {
            // The working tree against main, whatever git's index says (after a `git mv` or a
            // `git rm --cached`, a file on disk is "deleted" there, and committing that would delete it).
            let full = "\(workingDirectory)/\(entry.path)"
            let committed = try main.blobID(at: entry.path)
            guard FileSystem.exists(full) else {
                if committed != nil { edits.append(HandEdit(path: entry.path, change: .deleted)) }
                continue
            }
            // Taken before the read: a file changed after it shows other stat data next time.
            let before = stale == nil || committed == nil ? nil : FileStat(path: full)
            // Read once: an unreadable or oversized file is said below, where it is decoded.
            let read = Result { () throws(StoreError) in try FileSystem.read(full, limit: Card.maximumFileSize) }
            // Compared as `git status` does, through git's clean conversion: a CRLF checkout is no edit.
            if let committed, case .success(let bytes) = read, cleanedID(bytes, path: entry.path) == committed {
                // Only a card file as cards writes them (not executable): its entry takes the tree's mode.
                if let stale, let before, let tree = main.tree, before == FileStat(path: full),
                    CardID.id(fromPath: entry.path) != nil,
                    (try? repository.treeEntry(in: tree, path: entry.path, cache: main.trees))?.mode == 0o100644
                {
                    stale(entry.path, committed, before.recording(mode: 0o100644))
                }
                continue
            }
            let change: HandEdit.Change = committed == nil ? .new : .changed
            // Leftovers of an interrupted write are not hand edits.
            if FileSystem.basename(of: entry.path).hasPrefix(".") && entry.path.hasSuffix(".tmp") { continue }
            guard let id = CardID.id(fromPath: entry.path) else {
                let name = FileSystem.basename(of: entry.path)
                let named = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
                let problem =
                    CardID.isValid(named)
                    ? "in the wrong folder: card \(named) belongs at \(CardID.path(for: named)) (move it there)"
                    : "not a card file name (cards/<2 hex digits>/<lowercase uuid>.json)"
                edits.append(HandEdit(path: entry.path, change: change, problem: problem))
                continue
            }
            do {
                // Decoded as `git add` would store it (LF endings), as it is committed.
                let bytes = cleaned(try read.get(), path: entry.path)
                let card = try Card.decode(bytes, expectedID: id)
                let same = committed != nil && committed == ObjectID.blobHash(of: card.encoded())
                edits.append(HandEdit(path: entry.path, change: same ? .reformatted : change, card: card))
            } catch let error as StoreError {
                edits.append(
                    HandEdit(
                        path: entry.path, change: change,
                        problem: Deck.stripPath(error.message, full)))
            } catch {
                edits.append(HandEdit(path: entry.path, change: change, problem: "\(error)"))
            }
        }
        // Files as an older commit had them, main having moved on without them, are not hand edits:
        // committing them would delete or take back main's newer cards.
        if checkingIndex { try refuseBehind(edits, main: main) }
        return edits.sorted { $0.path < $1.path }
    }

    /// `deck.json` changed by hand (the deck's name, say), valid to commit or why not; nil when the
    /// file is main's (whatever git's index says).
    private func deckDescriptionEdit(in workingDirectory: String, main: DeckSnapshot) throws(StoreError) -> HandEdit? {
        let path = Deck.metadataPath
        // The deck's branch, which need not be called main (`cards.branch`, `init.defaultBranch`).
        let branchWord = ShellWord.operand(branchName)
        let committed = try main.blobID(at: path)
        if !FileSystem.exists("\(workingDirectory)/\(path)") {
            guard committed != nil else { return nil }
            return HandEdit(
                path: path, change: .deleted,
                problem:
                    "deleted, but a deck needs it; bring it back with `git checkout \(branchWord) -- \(ShellWord.quoted(path))`"
            )
        }
        let change: HandEdit.Change = committed == nil ? .new : .changed
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read("\(workingDirectory)/\(path)", limit: Card.maximumFileSize)
        } catch {
            // Not a file that can be read (a folder, a FIFO, a link, too big): an invalid edit, said with
            // the way back, as for a deleted one.
            let back =
                committed == nil
                ? "remove it"
                : "bring \(branchName)'s back with `git checkout \(branchWord) -- \(ShellWord.quoted(path))`"
            return HandEdit(path: path, change: change, problem: "\(error.message); \(back)")
        }
        if cleanedID(bytes, path: path) == committed { return nil }
        // Committed as `git add` would store it (LF endings).
        let stored = cleaned(bytes, path: path)
        if let fault = Deck.deckDescriptionFault(stored) {
            return HandEdit(path: path, change: change, problem: fault)
        }
        return HandEdit(path: path, change: change, content: stored)
    }

    /// What is wrong with a `deck.json` that `isDeckDescription` refuses.
    static let deckDescriptionProblem =
        "not a deck description this version reads ({\"format\": 1, \"name\": \"…\"}, a name of 1 to 200 characters on one line)"

    /// Whether `bytes` describe a deck this version reads: a JSON object with `format` 1 and a `name`
    /// of 1 to 200 characters on one line (as `cards init --name` takes it, and as earlier versions took it).
    static func isDeckDescription(_ bytes: [UInt8]) -> Bool {
        deckDescriptionFault(bytes) == nil
    }

    /// What is wrong with `bytes` as a `deck.json` (`deckDescriptionProblem`, or the rule its `owner`
    /// breaks), nil when nothing is.
    static func deckDescriptionFault(_ bytes: [UInt8]) -> String? {
        guard let value = try? JSONValue.parse(bytes), value["format"] == .number("1"),
            let name = value["name"]?.stringValue, isValidName(name)
        else { return deckDescriptionProblem }
        do {
            _ = try DeckOwner.from(deckDescription: value)
        } catch {
            // A hand edit of deck.json: `cards owner` would refuse while it is uncommitted.
            return "the deck's owner is not valid (\(error)); fix it in the file, or take the committed one back "
                + "with `git checkout HEAD -- \(Deck.metadataPath)`"
        }
        return nil
    }

    /// A deck's name as `deck.json` may hold it: 1 to 200 characters on one line. (A name earlier versions
    /// took, a tab in it, still reads and merges; what prints it escapes it.)
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 200 && !name.contains(where: \.isNewline)
    }

    /// A name a new deck is given (`cards init`): `isValidName`, with no control character, as a card's
    /// title: a name is printed to terminals and written into vCards.
    static func isValidNewName(_ name: String) -> Bool {
        isValidName(name) && !name.unicodeScalars.contains(where: Card.isControl)
    }

    /// Validates and commits every hand edit (op `commit`), writing each card back in canonical form.
    /// Refuses, naming every invalid file and why, when any is invalid. `outcome` is nil when there is
    /// nothing to commit; `reformatted` counts files only reformatted, written back as main has them.
    /// Refuses, as the push of a sync does, to delete more than half of main's cards and more than 10
    /// (card files gone from the working tree) unless `allowMassDelete`.
    /// `noting` sees the valid edits and main's snapshot under the deck lock, before anything is written
    /// (a sync keeps what it needs to put them back if it fails).
    @discardableResult
    package func commitHandEdits(
        message: String?, refusal: String = "not committed", retry: String = "cards commit",
        allowMassDelete: Bool = false, noting: ((DeckSnapshot, [HandEdit]) throws(StoreError) -> Void)? = nil
    ) throws(StoreError) -> (outcome: CommitOutcome?, edits: [HandEdit], reformatted: Int) {
        guard !isBare else { throw StoreError(.invalidInput, "a bare deck has no working tree to commit from") }
        var committed: [HandEdit] = []
        var reformatted = 0
        let outcome = try commitChange(recordingHandEdits: true) { (snapshot) throws(StoreError) in
            // commitChange has checked what is checked out.
            var stale: [IndexUpdate] = []
            let edits = try handEdits(against: snapshot) { path, blob, stat in
                stale.append(IndexUpdate(path: path, file: (blob, stat)))
            }
            refreshIndex(stale, following: snapshot.commit)
            try Deck.refuseInvalid(edits, saying: refusal, retry: retry)
            if !allowMassDelete { try refuseMassDeletion(edits, main: snapshot, saying: refusal, retry: retry) }
            try noting?(snapshot, edits)
            let changed = edits.filter { $0.change != .reformatted }
            reformatted = edits.count - changed.count
            if changed.isEmpty {
                // Only the formatting differs: main's bytes back in place (under the lock), no commit.
                if let tree = snapshot.tree, !edits.isEmpty {
                    try updateWorkingTree(edits.map(\.path), snapshotTree: tree)
                }
                return nil
            }
            committed = changed
            let cards = changed.compactMap { CardID.id(fromPath: $0.path) }
            var what = changed.contains { $0.path == Deck.metadataPath } ? [Deck.metadataPath] : []
            if !cards.isEmpty { what.append("\(cards.count) card\(cards.count == 1 ? "" : "s")") }
            let subject = message ?? "Commit hand edits to \(what.joined(separator: " and "))"
            let trailers = cards.map { ("Card-Id", $0) } + [("Op", "commit")]
            // Reformatted files are written back as main has them along with the commit.
            return DeckChange(
                files: edits.map { ($0.path, $0.card?.encoded() ?? $0.content) },
                message: CommitMessage(subject: CommitMessage.oneLine(subject), trailers: trailers))
        }
        return (outcome, outcome == nil ? [] : committed, reformatted)
    }

    /// Records in the index the stat data of card files found unchanged by content (`stale`), as git's
    /// refresh does (`git status`, `git merge`): a deck copied with `cp -a` or restored from a backup
    /// otherwise had every file read and hashed again by each command (a sync at 100,000 cards: ~6 s
    /// more, docs/PERFORMANCE.md). Under the deck lock; best effort: another process holding
    /// `index.lock`, or an index the patch does not take, leaves it for next time. `commit`: main, which
    /// the index keeps following if the last write's record said so.
    func refreshIndex(_ stale: [IndexUpdate], following commit: ObjectID?) {
        guard !stale.isEmpty, let workingDirectory else { return }
        // The record read once: whether the index is the one it names, and what it follows.
        let record = indexRecord()
        let followed = record != nil && indexChecksum() == record?.checksum ? record : nil
        let outcome = try? IndexPatch.apply(
            stale, paths: Deck.cardPaths, indexPath: "\(gitDirectory)/index", flush: durable ? .strict : .none,
            workingDirectory: workingDirectory)
        guard outcome == .written, let followed, followed.commit == commit, let checksum = indexChecksum() else {
            return
        }
        writeIndexRecord(checksum: checksum, commit: followed.commit, base: followed.base)
    }

    /// Fails when committing `edits` would delete more than half of `main`'s cards and more than 10 (the
    /// threshold of the push's guard, `guardVerdict`): card files gone from the working tree by a mistake
    /// (a folder removed, a tool that emptied it) are far likelier than a wish to delete most of a deck.
    /// `refusal` says what was not done; `retry` is the command that, given `--allow-mass-delete`, commits them.
    func refuseMassDeletion(_ edits: [HandEdit], main: DeckSnapshot, saying refusal: String, retry: String)
        throws(StoreError)
    {
        let deleted = edits.filter { $0.change == .deleted && CardID.id(fromPath: $0.path) != nil }.count
        let verdict = try Deck.guardVerdict(deleted: deleted) { () throws(StoreError) in
            var count = 0
            try main.forEachCardEntry { (_) throws(StoreError) in count += 1 }
            return count
        }
        guard let verdict else { return }
        throw StoreError(
            .uncommittedChanges,
            "\(refusal): the files of \(verdict.deleted) of the deck's \(verdict.of) cards are missing from the "
                + "working tree, more than half, and committing that would delete those cards; if you meant to "
                + "delete them, run `\(retry) --allow-mass-delete`; if not, bring them back with "
                + "`git checkout -- \(Deck.cardsFolder)` and try again")
    }

    /// Fails, naming every invalid card file and why, when any edit is invalid: `refusal` says what was
    /// not done, `retry` is the command to run once they are fixed.
    static func refuseInvalid(_ edits: [HandEdit], saying refusal: String, retry: String) throws(StoreError) {
        let invalid = edits.filter { $0.problem != nil }
        guard !invalid.isEmpty else { return }
        throw StoreError(
            .invalidCard,
            "\(refusal): \(invalid.count) file\(invalid.count == 1 ? " is" : "s are") invalid:\n  "
                + invalid.map { "\($0.path): \($0.problem ?? "")" }.joined(separator: "\n  ")
                + "\nfix \(invalid.count == 1 ? "it" : "them"), or drop the hand edit (`git checkout -- <file>` brings "
                + "back a committed card; a new file can be removed), then run `\(retry)` again")
    }
}
