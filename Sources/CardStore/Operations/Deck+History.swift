import CardModel
import DeckMerge
import GitCore

/// What `undo` left as it is because it changed since the undone operation.
public struct UndoSkip: Sendable, Hashable, CustomStringConvertible {
    /// The file: a card's path, or `deck.json`.
    public var path: String
    /// The fields of the card that changed since, or empty when the whole file was left.
    public var fields: [String]

    /// The file, and its fields when only some were left.
    public var description: String {
        fields.isEmpty ? path : "\(path): \(fields.joined(separator: ", "))"
    }
}

/// One commit of the deck's history, as `cards log` shows it.
public struct LogEntry: Sendable, Hashable {
    /// The commit.
    public var commit: Commit
    /// The `Op` trailer (add, edit, delete, …), or nil for commits made by other tools.
    public var operation: String? { commit.trailerValues("Op").first }
    /// The cards the commit names in its `Card-Id` trailers.
    public var cardIDs: [String] { commit.trailerValues("Card-Id") }
}

extension Deck {
    /// How main's reflog names a commit a command of ours made on this device: what `undo` looks for
    /// in commits made before they carried a `Device` trailer.
    static let ownCommitLogPrefix = "cards: "

    /// Operations `undo` can revert.
    static let undoableOperations: Set<String> = [
        "add", "edit", "delete", "move", "import", "restore", "resolve", "commit",
    ]

    /// A failure of a walk through the history, said as a libgit2 one is (with what to do when objects
    /// are missing or damaged).
    static func historyError(_ error: any Error) -> StoreError {
        if let error = error as? GitError { return StoreError.git(error, while: "reading the history") }
        if let error = error as? StoreError { return error }
        return StoreError(.io, "reading the history failed: \(error)")
    }

    /// Whether the deck is a shallow clone (`git clone --depth`): its history stops at a commit whose
    /// parents it does not have.
    package var isShallow: Bool { repository.isShallow }

    /// Whether `commit` is signed (`commit.gpgsign`): it carries a signature, verified or not.
    package func isSigned(_ commit: ObjectID) -> Bool {
        repository.commitIsSigned(commit)
    }

    /// The newest `limit` commits of `main`, newest first; in a shallow clone, as far as it goes.
    package func log(limit: Int? = nil) throws(StoreError) -> [LogEntry] {
        guard let head = try headCommit() else { return [] }
        var entries: [LogEntry] = []
        do {
            try repository.walkHistory(from: head) { commit in
                entries.append(LogEntry(commit: commit))
                return limit.map { entries.count < $0 } ?? true
            }
        } catch let error as GitError where error.code == .notFound && isShallow {
            return shallowLog(from: head, limit: limit)
        } catch {
            throw Deck.historyError(error)
        }
        return entries
    }

    /// The history of a shallow clone as far as it has it, newest first by committer time: libgit2's walk
    /// stops with an error at the first parent missing.
    func shallowLog(from head: ObjectID, limit: Int?) -> [LogEntry] {
        var found: [ObjectID: Commit] = [:]
        var pending = [head]
        while let id = pending.popLast() {
            guard found[id] == nil, let commit = try? repository.commit(id) else { continue }
            found[id] = commit
            pending += commit.parents
        }
        let newestFirst = found.values.sorted { ($0.committer.time, $0.id) > ($1.committer.time, $1.id) }
        return newestFirst.prefix(limit ?? Int.max).map(LogEntry.init)
    }

    /// Reverts a card operation as a new commit (op `undo`): the newest one made on this deck and not
    /// yet undone, or the commit `reference` names (`cards undo 1a2b3c4`, any commit of main's history
    /// whose operation can be undone). A deleted card comes back with the same id and bytes. What
    /// changed since is kept: a card edited since has only the fields undone that are still as the
    /// operation left them; the rest is named in `skipped`; `invalid`, the files it puts back that are not
    /// valid cards. It fails when nothing is left to undo.
    @discardableResult
    public func undo(_ reference: String? = nil) throws(StoreError) -> (
        outcome: CommitOutcome, undone: LogEntry, skipped: [UndoSkip], invalid: [CardProblem]
    ) {
        var undone: LogEntry?
        var skipped: [UndoSkip] = []
        var invalid: [CardProblem] = []
        let outcome = try commitChange { (snapshot) throws(StoreError) in
            let target: LogEntry
            if let reference {
                target = try undoTarget(named: reference, in: snapshot)
            } else if let found = try findUndoTarget(from: snapshot.commit) {
                target = found
            } else {
                throw StoreError(
                    .nothingToDo,
                    "nothing to undo: no card operation made on this deck is left to undo (changes that came from "
                        + "other devices are undone there, or by naming their commit: `cards undo COMMIT`; "
                        + "`cards restore ID` brings back any deleted card)")
            }
            let files: [(path: String, content: [UInt8]?)]
            (files, skipped) = try reversal(of: target.commit, in: snapshot)
            // An operation that fixed a broken card file (a `cards commit`): undone, the file is broken again.
            invalid = files.compactMap { file in
                guard let bytes = file.content, let id = CardID.id(fromPath: file.path),
                    case .invalid(let reason) = Deck.version(bytes, id: id)
                else { return nil }
                return CardProblem(path: file.path, reason: reason)
            }
            if files.isEmpty {
                var message =
                    "cannot undo \"\(target.commit.subject)\" (\(target.commit.id.short)): what it changed has "
                    + "changed since, by a later edit or a merge (\(skipped.map(\.description).joined(separator: "; ")))"
                    + "; `cards log` shows how, `cards edit` changes a card back"
                if reference == nil,
                    let older = try findUndoTarget(from: snapshot.commit, passing: [target.commit.id.hex])
                {
                    message +=
                        "; the operation before it: `cards undo \(older.commit.id.short)` "
                        + "(\"\(older.commit.subject)\")"
                }
                throw StoreError(.nothingToDo, message)
            }
            var trailers = files.compactMap { CardID.id(fromPath: $0.path) }.map { ("Card-Id", $0) }
            trailers.append(("Op", "undo"))
            trailers.append(("Undoes", target.commit.id.hex))
            undone = target
            return DeckChange(
                files: files,
                message: CommitMessage(subject: Deck.undoSubject(of: target.commit.subject), trailers: trailers))
        }
        guard let outcome, let undone else { throw StoreError(.nothingToDo, "nothing to undo") }
        return (outcome, undone, skipped, invalid)
    }

    /// The subject of the commit that undoes one with `subject`: "Undo: Delete card "Ada"", and undoing
    /// that, "Redo: Delete card "Ada"" (never quotes in quotes, as git's "Revert "Revert …"" nests).
    package static func undoSubject(of subject: String) -> String {
        let line = CommitMessage.oneLine(subject)
        if line.hasPrefix("Undo: ") { return "Redo: " + line.dropFirst("Undo: ".count) }
        if line.hasPrefix("Redo: ") { return "Undo: " + line.dropFirst("Redo: ".count) }
        // As 1.0 wrote an undo's subject.
        if line.hasPrefix("Undo \""), line.hasSuffix("\""), line.count > 7 {
            return "Redo: " + line.dropFirst("Undo \"".count).dropLast()
        }
        return "Undo: " + line
    }

    /// The files that revert `commit`'s card changes (and `deck.json`'s) on the deck as `snapshot`
    /// has it, and what was left because it changed since. A card the commit added and that was
    /// edited since stays (its edits are not deleted with it); one it deleted and that is back stays;
    /// one it edited and that was edited since gets back the fields the commit changed and that are
    /// still as it left them, field by field, as a merge would.
    func reversal(of commit: Commit, in snapshot: DeckSnapshot) throws(StoreError) -> (
        files: [(path: String, content: [UInt8]?)], skipped: [UndoSkip]
    ) {
        let parentTree: ObjectID? =
            try commit.parents.first.map { (parent) throws(StoreError) in
                try withStoreError("reading \(parent.short)") { () throws(GitError) in try repository.commit(parent).tree }
            }
        let changes = try withStoreError("comparing \(commit.id.short) with its parent") { () throws(GitError) in
            try TreeDiff.changes(in: repository, from: parentTree, to: commit.tree)
        }
        var files: [(path: String, content: [UInt8]?)] = []
        var skipped: [UndoSkip] = []
        func read(_ blob: ObjectID, _ path: String) throws(StoreError) -> [UInt8] {
            try withStoreError("reading \(path)") { () throws(GitError) in
                try repository.readBlob(blob, limit: Deck.maximumIncomingFileSize)
            }
        }
        for change in changes
        where change.path.hasPrefix(Deck.cardsFolder + "/") || change.path == Deck.metadataPath {
            let current = try snapshot.blobID(at: change.path)
            if current == change.new?.id {
                files.append(
                    (change.path, try change.old.map { (old) throws(StoreError) in try read(old.id, change.path) }))
                continue
            }
            // Changed since: field by field for a card the commit edited and that is still there.
            guard let id = CardID.id(fromPath: change.path), let old = change.old, let new = change.new,
                let current,
                let before = try? Card.decode(try read(old.id, change.path), expectedID: id),
                let after = try? Card.decode(try read(new.id, change.path), expectedID: id),
                let now = try? Card.decode(try read(current, change.path), expectedID: id)
            else {
                skipped.append(UndoSkip(path: change.path, fields: []))
                continue
            }
            var reverted = now
            var changedSince: [String] = []
            // A field a merge recorded a conflict about since: its value is the merge's pick, and changing it
            // back would leave a record that no longer describes the card.
            let recordedBefore = Set(ConflictRecord.records(in: after).map(\.field))
            let recordedSince = Set(ConflictRecord.records(in: now).map(\.field)).subtracting(recordedBefore)
            for field in Set(before.fields.keys).union(after.fields.keys).sorted()
            where before.fields[field] != after.fields[field] {
                if now.fields[field] == after.fields[field] && !recordedSince.contains(field) {
                    reverted.fields[field] = before.fields[field]
                } else {
                    changedSince.append(field)
                }
            }
            let bytes = reverted.encoded()
            guard reverted != now, (try? Card.decode(bytes, expectedID: id)) != nil else {
                skipped.append(UndoSkip(path: change.path, fields: changedSince))
                continue
            }
            files.append((change.path, bytes))
            if !changedSince.isEmpty { skipped.append(UndoSkip(path: change.path, fields: changedSince)) }
        }
        return (files, skipped)
    }

    /// The commit `reference` names, when `undo` may revert it: in main's history, a card operation
    /// or an undo (undone, it is redone), not a merge or an `init`, not undone yet.
    func undoTarget(named reference: String, in snapshot: DeckSnapshot) throws(StoreError) -> LogEntry {
        let head = snapshot.commit
        let id: ObjectID?
        do {
            id = try repository.resolveCommit(reference)
        } catch {
            throw StoreError(.invalidInput, "\(error.message); `cards log` lists the commits")
        }
        var inHistory = false
        if let id, let head {
            inHistory =
                id == head
                ? true
                : try withStoreError("comparing histories") { () throws(GitError) in try repository.isDescendant(head, of: id) }
        }
        guard let id, let head, inHistory else {
            // `cards undo 6513` meant for a card: undo takes an operation's commit.
            let card =
                (try? snapshot.resolve(reference)).map { "; \($0) is a card, and undo takes an operation's commit" }
                ?? deletedCardID(matching: reference).map { "; \($0) is a deleted card: `cards restore \($0)`" } ?? ""
            throw StoreError(
                .invalidInput,
                "\"\(reference)\" names no commit of this deck's history; `cards log` lists them (a commit id or a "
                    + "prefix of one, or a revision such as main~2)\(card)")
        }
        let entry = LogEntry(
            commit: try withStoreError("reading \(id.short)") { () throws(GitError) in try repository.commit(id) })
        // An undo is undone too: that redoes what it undid.
        guard let operation = entry.operation, Deck.undoableOperations.contains(operation) || operation == "undo",
            entry.commit.parents.count <= 1
        else {
            let what =
                switch entry.operation {
                case "merge":
                    "a merge, which brings in other operations: undo those by their own commits (`cards log` lists them)"
                case "init": "the deck's first commit"
                case nil: "not a card operation of `cards`: `git revert \(id.short)` reverts it as git does"
                default: "not a card operation"
                }
            throw StoreError(.invalidInput, "cannot undo \(id.short) (\"\(entry.commit.subject)\"): it is \(what)")
        }
        var undoneBy: Commit?
        do {
            try repository.walkHistory(from: head) { commit in
                if commit.id == id { return false }
                if commit.trailerValues("Undoes").contains(id.hex) {
                    undoneBy = commit
                    return false
                }
                return true
            }
        } catch {
            throw Deck.historyError(error)
        }
        if let undoneBy {
            throw StoreError(
                .nothingToDo, "\(id.short) (\"\(entry.commit.subject)\") was undone already, by \(undoneBy.id.short)")
        }
        return entry
    }

    /// The newest commit made here whose operation is undoable and not yet undone, on any line of
    /// history: after another device merged this one's changes and this one fast-forwarded to that
    /// merge, they are on its second parent.
    /// Commits named in `passing` (by hex id) are gone past, as if undone.
    func findUndoTarget(from head: ObjectID?, passing: Set<String> = []) throws(StoreError) -> LogEntry? {
        guard let head else { return nil }
        var undone = passing
        var found: LogEntry?
        // Only what this device did is undone: commits that came in by clone, fetch, push or merge are
        // someone else's. Main's reflog, where there is one (a deck with a working tree), knows which
        // commits a command of ours published here (a fast-forward, logged "cards: fast-forward" before
        // it was "merge …", brought another device's); it is not fooled by a copy of the deck, which
        // shares the deck's id. Without one (a bare deck), a commit names the deck it was made in: its
        // `Device` trailer.
        let device = Deck.configuredDeviceID(of: repository)
        // (A bare deck keeps no reflog; one that an earlier version made there by reading it holds only
        // undos, and would hide every other commit made here.)
        let logged =
            isBare
            ? nil
            : (try? repository.reflogTargets(branch) {
                $0.hasPrefix(Deck.ownCommitLogPrefix) && $0 != "cards: fast-forward"
            }) ?? nil
        if knownDeviceID == nil { knownDeviceID = device }
        // Nothing can be this deck's own: no walk through the whole history to find so.
        if logged?.isEmpty ?? (device == nil) { return nil }
        func isLocal(_ commit: Commit) -> Bool {
            if let logged { return logged.contains(commit.id) }
            return device.map(commit.trailerValues(Deck.deviceTrailer).contains) ?? false
        }
        do {
            try repository.walkHistory(from: head) { commit in
                let entry = LogEntry(commit: commit)
                guard let operation = entry.operation else { return true }
                if operation == "undo" {
                    // An undo that was itself undone (a redo) undid nothing that is still undone.
                    if !undone.contains(commit.id.hex) {
                        for value in commit.trailerValues("Undoes") { undone.insert(value) }
                    }
                    return true
                }
                // (Not the end of history: two decks made apart and merged have two.)
                if operation == "init" { return true }
                if Deck.undoableOperations.contains(operation) && !undone.contains(commit.id.hex) && isLocal(commit) {
                    found = entry
                    return false
                }
                return true
            }
        } catch {
            throw Deck.historyError(error)
        }
        return found
    }

    /// Brings back a deleted card from the newest commit in history that has it (same id and bytes,
    /// less a delete-versus-edit conflict record, which the restore settles).
    @discardableResult
    public func restore(_ reference: String) throws(StoreError) -> (card: Card, from: ObjectID) {
        var restored: (Card, ObjectID)?
        try commitChange { (snapshot) throws(StoreError) in
            let id = try resolveDeleted(reference, snapshot: snapshot, searchingFolders: true)
            if try snapshot.blobID(at: CardID.path(for: id)) != nil {
                throw StoreError(.invalidInput, "card \(id) is in the deck, not deleted; `cards show \(id)` shows it")
            }
            guard let (blob, commit) = try findInHistory(path: CardID.path(for: id), from: snapshot.commit) else {
                throw StoreError(.cardNotFound, "card \(id) is not in this deck's history")
            }
            var bytes = try withStoreError("reading \(id)") { () throws(GitError) in
                try repository.readBlob(blob, limit: Card.maximumFileSize)
            }
            var card: Card
            do { card = try Card.decode(bytes, expectedID: id) } catch {
                throw StoreError(
                    .invalidCard, "the last version of card \(id) (commit \(commit.short)) is invalid: \(error)")
            }
            // Bringing the card back settles whether it stays, as `cards resolve ID --keep` would: a
            // merge's delete-versus-edit record (a `"*"` one) would ask again. Records about fields stay.
            if let kept = try? ConflictResolver.resolve(card, field: "*", .keep) {
                card = kept
                bytes = card.encoded()
            }
            restored = (card, commit)
            return DeckChange(
                files: [(CardID.path(for: id), bytes)],
                message: CommitMessage(
                    subject: "Restore card \(CommitMessage.quoted(card.title))",
                    trailers: [("Card-Id", id), ("Op", "restore"), ("Restored-From", commit.hex)]))
        }
        guard let restored else { throw StoreError(.nothingToDo, "nothing restored") }
        return restored
    }

    /// The one deleted card `reference` names (by history, as `restore` finds it), or nil: for the
    /// hint that a card named but not in the deck can be brought back.
    package func deletedCardID(matching reference: String) -> String? {
        guard let snapshot = try? snapshot(), let id = try? resolveDeleted(reference, snapshot: snapshot),
            (try? snapshot.blobID(at: CardID.path(for: id))) == .some(nil),
            // A full id is taken as given: only one that history has is a deleted card.
            (try? findInHistory(path: CardID.path(for: id), from: snapshot.commit)) != nil
        else { return nil }
        return id
    }

    /// The ids starting with `prefix` of card files that some commit of the history has and the deck does
    /// not: the card folder the prefix's first two digits name is read once for each version of it (only
    /// when no trailer names such a card).
    private func deletedCards(startingWith prefix: String, from head: ObjectID, snapshot: DeckSnapshot)
        throws(StoreError) -> [String]
    {
        let shard = String(prefix.prefix(2))
        let folder = "\(Deck.cardsFolder)/\(shard)"
        let cache = RawTreeCache()
        var listed: Set<ObjectID> = []
        var found: Set<String> = []
        do {
            try repository.walkHistory(from: head) { commit in
                guard let entry = try? repository.treeEntry(in: commit.tree, path: folder, cache: cache),
                    entry.kind == .tree, listed.insert(entry.id).inserted
                else { return true }
                for file in (try? repository.treeEntries(entry.id, namePrefix: prefix, cache: cache)) ?? [] {
                    if let id = CardID.id(folder: shard, fileName: file.name) { found.insert(id) }
                }
                return true
            }
        } catch {
            throw Deck.historyError(error)
        }
        var deleted: [String] = []
        for id in found.sorted() where try snapshot.blobID(at: CardID.path(for: id)) == nil { deleted.append(id) }
        return deleted
    }

    /// A full id from a full id or a prefix of a card named in history (`Card-Id` trailers).
    /// `searchingFolders`: also look for the prefix among the files of its card folder in every commit, for
    /// a card no trailer names (`restore` does; a hint for a card not found does not walk the history so).
    func resolveDeleted(_ reference: String, snapshot: DeckSnapshot, searchingFolders: Bool = false)
        throws(StoreError) -> String
    {
        if let full = CardID.normalize(reference) { return full }
        let prefix = reference.lowercased()
        guard prefix.count >= 4, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw StoreError(
                .invalidInput,
                "'\(CommitMessage.shown(reference))' is not a card id: give the full id or its first 4 or more hex digits"
            )
        }
        guard let head = snapshot.commit else { throw StoreError(.cardNotFound, "the deck has no history yet") }
        var candidates: Set<String> = []
        do {
            try repository.walkHistory(from: head) { commit in
                for id in commit.trailerValues("Card-Id") where id.hasPrefix(prefix) { candidates.insert(id) }
                for value in commit.trailerValues("Card-Merged") + commit.trailerValues("Card-Conflict") {
                    if let id = value.split(separator: " ").first.map(String.init), id.hasPrefix(prefix) {
                        candidates.insert(id)
                    }
                }
                return true
            }
        } catch {
            throw Deck.historyError(error)
        }
        var valid = candidates.filter { CardID.isValid($0) }.sorted()
        // Only a card that is not in the deck can be restored: one in it is no candidate when another is.
        if valid.count > 1 {
            var deleted: [String] = []
            for id in valid where try snapshot.blobID(at: CardID.path(for: id)) == nil { deleted.append(id) }
            if !deleted.isEmpty { valid = deleted }
        }
        // A card imported (an import names none of its cards) and deleted with plain git (`git rm`) is in
        // no trailer: looked for in the folder its prefix names, commit by commit.
        if valid.isEmpty && searchingFolders {
            valid = try deletedCards(startingWith: prefix, from: head, snapshot: snapshot)
        }
        if valid.isEmpty {
            // A card in the deck (an import names none of its cards in its commit): not deleted.
            if let live = try? snapshot.resolve(reference) {
                throw StoreError(
                    .invalidInput, "card \(live) is in the deck, not deleted; `cards show \(live)` shows it")
            }
            throw StoreError(
                .cardNotFound,
                "no card id in this deck's history starts with '\(CommitMessage.shown(reference))'; `cards log` shows what was deleted"
                    + (isShallow
                        ? " (this deck is a shallow clone: its history stops short; `git fetch --unshallow` brings the rest)"
                        : ""))
        }
        if valid.count > 1 {
            throw StoreError(
                .ambiguousID,
                "'\(CommitMessage.shown(reference))' matches \(valid.count) cards in history: \(valid.joined(separator: ", ")); give more digits"
            )
        }
        return valid[0]
    }

    /// The newest version of a path in history, and the commit that has it.
    func findInHistory(path: String, from head: ObjectID?) throws(StoreError) -> (ObjectID, ObjectID)? {
        guard let head else { return nil }
        var found: (ObjectID, ObjectID)?
        do {
            try repository.walkHistory(from: head) { commit in
                if let entry = try repository.treeEntry(in: commit.tree, path: path), entry.kind == .blob {
                    found = (entry.id, commit.id)
                    return false
                }
                return true
            }
        } catch {
            throw Deck.historyError(error)
        }
        return found
    }
}
