import CardModel
import DeckMerge
import GitCore

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
    /// The trailer naming the deck a commit was made in (`deviceID`).
    static let deviceTrailer = "Device"
    /// Where a deck keeps its own id, in its git config.
    static let deviceSetting = "cards.device"

    /// Operations `undo` can revert.
    static let undoableOperations: Set<String> = [
        "add", "edit", "delete", "move", "import", "restore", "resolve", "commit",
    ]

    /// The newest `limit` commits of `main`, newest first.
    public func log(limit: Int? = nil) throws(StoreError) -> [LogEntry] {
        guard let head = try headCommit() else { return [] }
        var entries: [LogEntry] = []
        do {
            try repository.walkHistory(from: head) { commit in
                entries.append(LogEntry(commit: commit))
                return limit.map { entries.count < $0 } ?? true
            }
        } catch let error as GitError {
            throw StoreError.git(error, while: "reading the history")
        } catch {
            throw StoreError(.io, "reading the history failed: \(error)")
        }
        return entries
    }

    /// Reverts the newest local card operation not yet undone, as a new commit (op `undo`).
    /// A deleted card comes back with the same id and bytes. Cards changed since that operation are
    /// left as they are (named in the message); it fails when nothing is left to undo.
    @discardableResult
    public func undo() throws(StoreError) -> (outcome: CommitOutcome, undone: LogEntry, skipped: [String]) {
        var undone: LogEntry?
        var skipped: [String] = []
        let outcome = try commitChange { (snapshot) throws(StoreError) in
            guard let target = try findUndoTarget(from: snapshot.commit) else {
                throw StoreError(
                    .nothingToDo,
                    "nothing to undo: no card operation made on this deck is left to undo (changes that came from "
                        + "other devices are undone there; `cards restore ID` brings back any deleted card)")
            }
            let parentTree: ObjectID? =
                try target.commit.parents.first.map { (parent) throws(StoreError) in
                    try git("reading \(parent.short)") { () throws(GitError) in try repository.commit(parent).tree }
                }
            let changes = try git("comparing \(target.commit.id.short) with its parent") { () throws(GitError) in
                try TreeDiff.changes(in: repository, from: parentTree, to: target.commit.tree)
            }
            var files: [(path: String, content: [UInt8]?)] = []
            skipped = []
            // The cards it changed, and the deck's description (a hand edit of its name, say).
            for change in changes
            where change.path.hasPrefix(Deck.cardsFolder + "/") || change.path == Deck.metadataPath {
                // A card changed since (a later edit, a merge) keeps its newer content.
                guard try snapshot.blobID(at: change.path) == change.new?.id else {
                    skipped.append(change.path)
                    continue
                }
                if let old = change.old {
                    let bytes = try git("reading \(change.path)") { () throws(GitError) in
                        try repository.readBlob(old.id)
                    }
                    files.append((change.path, bytes))
                } else {
                    files.append((change.path, nil))
                }
            }
            if files.isEmpty {
                throw StoreError(
                    .nothingToDo,
                    "cannot undo \"\(target.commit.subject)\": every card it touched has changed since, by a later "
                        + "edit or a merge (\(skipped.joined(separator: ", "))); `cards log` shows how, `cards edit` "
                        + "changes a card back (`cards restore` brings back a deleted one)")
            }
            var trailers = files.compactMap { CardID.id(fromPath: $0.path) }.map { ("Card-Id", $0) }
            trailers.append(("Op", "undo"))
            trailers.append(("Undoes", target.commit.id.hex))
            undone = target
            return DeckChange(
                files: files,
                message: CommitMessage(
                    subject: "Undo \"\(CommitMessage.oneLine(target.commit.subject))\"", trailers: trailers))
        }
        guard let outcome, let undone else { throw StoreError(.nothingToDo, "nothing to undo") }
        return (outcome, undone, skipped)
    }

    /// The newest commit made here whose operation is undoable and not yet undone, on any line of
    /// history: after another device merged this one's changes and this one fast-forwarded to that
    /// merge, they are on its second parent.
    func findUndoTarget(from head: ObjectID?) throws(StoreError) -> LogEntry? {
        guard let head else { return nil }
        var undone: Set<String> = []
        var found: LogEntry?
        // Only what this device did is undone: commits that came in by clone, fetch, push or merge are
        // someone else's. Main's reflog, where there is one (a deck with a working tree), knows which
        // commits a command of ours published here (a fast-forward, logged "cards: fast-forward" before
        // it was "merge …", brought another device's); it is not fooled by a copy of the deck, which
        // shares the deck's id. Without one (a bare deck), a commit names the deck it was made in: its
        // `Device` trailer.
        let device = Deck.configuredDeviceID(of: repository)
        let logged =
            (try? repository.reflogTargets(Deck.branch) {
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
                    for value in commit.trailerValues("Undoes") { undone.insert(value) }
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
        } catch let error as GitError {
            throw StoreError.git(error, while: "reading the history")
        } catch {
            throw StoreError(.io, "reading the history failed: \(error)")
        }
        return found
    }

    /// Brings back a deleted card from the newest commit in history that has it (same id and bytes,
    /// less a delete-versus-edit conflict record, which the restore settles).
    @discardableResult
    public func restore(_ reference: String) throws(StoreError) -> (card: Card, from: ObjectID) {
        var restored: (Card, ObjectID)?
        try commitChange { (snapshot) throws(StoreError) in
            let id = try resolveDeleted(reference, snapshot: snapshot)
            if try snapshot.blobID(at: CardID.path(for: id)) != nil {
                throw StoreError(.invalidInput, "card \(id) is in the deck, not deleted; `cards show \(id)` shows it")
            }
            guard let (blob, commit) = try findInHistory(path: CardID.path(for: id), from: snapshot.commit) else {
                throw StoreError(.cardNotFound, "card \(id) is not in this deck's history")
            }
            var bytes = try git("reading \(id)") { () throws(GitError) in
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
    public func deletedCardID(matching reference: String) -> String? {
        guard let snapshot = try? snapshot(), let id = try? resolveDeleted(reference, snapshot: snapshot),
            (try? snapshot.blobID(at: CardID.path(for: id))) == .some(nil),
            // A full id is taken as given: only one that history has is a deleted card.
            (try? findInHistory(path: CardID.path(for: id), from: snapshot.commit)) != nil
        else { return nil }
        return id
    }

    /// A full id from a full id or a prefix of a card named in history (`Card-Id` trailers).
    func resolveDeleted(_ reference: String, snapshot: DeckSnapshot) throws(StoreError) -> String {
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
            throw StoreError(.io, "reading the history failed: \(error)")
        }
        let valid = candidates.filter { CardID.isValid($0) }.sorted()
        if valid.isEmpty {
            throw StoreError(
                .cardNotFound, "no card id in this deck's history starts with '\(CommitMessage.shown(reference))'")
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
            throw StoreError(.io, "reading the history failed: \(error)")
        }
        return found
    }
}
