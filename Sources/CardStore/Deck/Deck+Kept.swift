import CardModel
import DeckMerge
import GitCore

/// A card this device kept with a right swipe: "seen, stays". Device-local, never committed: a keep
/// changes nothing in the deck (as `cards swipe`'s keep), so it neither reorders the deck for the other
/// devices nor fills the history with a commit per look.
package struct KeptCard: Sendable, Hashable {
    /// The card's id.
    package var id: String
    /// `main` when it was kept: the undo on the page takes back a keep made after the newest
    /// operation this device can undo, before that operation.
    package var head: String
    /// The commit the keep came with (a conflict settled by a right swipe or a pick), or nil: undoing
    /// that commit takes the keep back too.
    package var commit: String?

    /// Creates a record.
    package init(id: String, head: String, commit: String? = nil) {
        self.id = id
        self.head = head
        self.commit = commit
    }
}

/// What a swipe that settled a deleted-versus-edited record did (`Deck.settleBySwipe`).
package struct SwipeSettlement: Sendable {
    /// Whether the card was deleted (a left swipe), or kept as edited.
    package var deleted: Bool
    /// The `resolve` commit.
    package var commit: ObjectID?
}

/// What `undoLatest` took back.
package enum DeviceUndo: Sendable {
    /// A keep (the card is back in the stack, nothing committed).
    case keep(KeptCard)
    /// An operation, undone by a commit as `cards undo` undoes it.
    case operation(subject: String, undone: LogEntry, skipped: [UndoSkip])
}

extension Deck {
    /// Whether a card is out of the stack on this device: kept, and carrying no deleted-versus-edited
    /// record (a swipe settles that one, so it stays first until settled). A card kept with a field
    /// conflict open stays out, as the user left it: the list still marks it, `cards conflicts` lists it.
    package static func isSeen(_ card: Card, kept: Set<String>) -> Bool {
        guard kept.contains(card.id) else { return false }
        return !ConflictRecord.records(in: card).contains(where: \.isDeletion)
    }

    /// The order the stack shows `cards` in on this device (the page, `cards swipe`): cards carrying
    /// conflict records first (unless seen), then the cards not kept, in deck order (`stack`); the seen
    /// ones (`seen`) in the order they were kept.
    package static func stackOrder(_ cards: [Card], kept: [KeptCard]) -> (stack: [Card], seen: [Card]) {
        let keptIDs = Set(kept.map(\.id))
        let conflicted = cards.filter { !$0.conflicts.isEmpty && !isSeen($0, kept: keptIDs) }
        let unseen = cards.filter { $0.conflicts.isEmpty && !keptIDs.contains($0.id) }
        let keptOrder = Dictionary(kept.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { $1 })
        let seen = cards.filter { isSeen($0, kept: keptIDs) }
            .sorted { (keptOrder[$0.id] ?? 0) < (keptOrder[$1.id] ?? 0) }
        return (conflicted + unseen, seen)
    }

    /// A committed swipe on `card` when it carries a deleted-versus-edited record: a left one deletes it,
    /// a right one keeps the edited card, one `resolve` commit each (`cards resolve --delete`/`--keep`);
    /// a card kept with no conflict left is recorded as seen, with that commit (undoing the commit takes
    /// the keep back). Nil, and nothing done, for a card without such a record: the swipe goes on as usual.
    /// The page, `cards swipe` and its scripted form all settle through here.
    package func settleBySwipe(_ card: Card, left: Bool) throws(StoreError) -> SwipeSettlement? {
        guard ConflictRecord.records(in: card).contains(where: \.isDeletion) else { return nil }
        let (kept, made) = try resolveCommitting(card.id, field: "*", left ? .delete : .keep)
        var commit = made
        if commit == nil { commit = try headCommit() }
        if let kept, kept.conflicts.isEmpty { try recordKept(card.id, commit: commit) }
        return SwipeSettlement(deleted: kept == nil, commit: commit)
    }

    /// The file under the git directory (`.git/cards-kept`) where this device's keeps are kept, one line
    /// each: id, `main` then, and the commit it came with, tab-separated, oldest first.
    package var keptPath: String { gitDirectory + "/cards-kept" }

    /// The most keeps remembered: the oldest beyond it are forgotten (the card comes back into the stack).
    static let keptLimit = 100_000

    /// This device's keeps, oldest first (a missing or damaged file reads as none: a keep is a convenience,
    /// never data).
    package func keptCards() -> [KeptCard] {
        guard let bytes = try? FileSystem.read(keptPath, limit: 16 * 1024 * 1024) else { return [] }
        var result: [KeptCard] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let parts = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
                .map { String(decoding: $0, as: UTF8.self) }
            guard parts.count >= 2, CardID.isValid(parts[0]), ObjectID(hex: parts[1]) != nil else { continue }
            let commit = parts.count > 2 && ObjectID(hex: parts[2]) != nil ? parts[2] : nil
            result.append(KeptCard(id: parts[0], head: parts[1], commit: commit))
        }
        return result
    }

    /// Writes the keeps (atomically: a reader sees the old list or the new one).
    func writeKept(_ kept: [KeptCard]) throws(StoreError) {
        let text = kept.suffix(Deck.keptLimit).map { "\($0.id)\t\($0.head)\t\($0.commit ?? "")\n" }.joined()
        try FileSystem.writeAtomically(Array(text.utf8), to: keptPath, durable: false)
    }

    /// Notes that this device kept `id` (after `main`'s current commit, or with `commit`); a card kept
    /// before moves to the end of the list.
    package func recordKept(_ id: String, commit: ObjectID? = nil) throws(StoreError) {
        let current = try headCommit()
        guard let head = commit ?? current else { return }
        try changingKept { kept in
            kept.removeAll { $0.id == id }
            kept.append(KeptCard(id: id, head: head.hex, commit: commit?.hex))
        }
    }

    /// Forgets every keep: the whole deck is unseen again ("start over").
    package func forgetKept() throws(StoreError) {
        try changingKept { $0 = [] }
    }

    /// Forgets the newest keep of `id` (an undo of that keep).
    package func forgetKept(_ id: String) throws(StoreError) {
        try changingKept { kept in
            if let index = kept.lastIndex(where: { $0.id == id }) { kept.remove(at: index) }
        }
    }

    /// Reads, changes and writes the keeps under a lock of their own (`.git/cards-kept.lock`, not the deck
    /// lock, which an undo takes itself): `cards swipe` in a terminal and `cards serve` keeping cards at the
    /// same moment each see the other's keep, none written over.
    func changingKept(_ change: (inout [KeptCard]) -> Void) throws(StoreError) {
        let lock = try DeckLock(path: "\(gitDirectory)/cards-kept.lock", timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        var kept = keptCards()
        let before = kept
        change(&kept)
        if kept != before { try writeKept(kept) }
    }

    /// The newest operation this device can undo (what `cards undo` would undo now), or nil.
    package func undoCandidate() throws(StoreError) -> LogEntry? {
        try findUndoTarget(from: try headCommit())
    }

    /// What this device's undo would take back: its newest keep when that came after the newest
    /// operation it can undo (a keep with no commit of its own), else that operation.
    package func latestUndoable() throws(StoreError) -> (keep: KeptCard?, operation: LogEntry?) {
        latestUndoable(after: try undoCandidate())
    }

    /// The same, given what `undoCandidate` said (a caller that keeps it for as long as `main` stays).
    /// `kept`: the keeps when the caller has just read them (else read here).
    package func latestUndoable(after operation: LogEntry?, kept: [KeptCard]? = nil) -> (
        keep: KeptCard?, operation: LogEntry?
    ) {
        guard let keep = (kept ?? keptCards()).last, keep.commit == nil else { return (nil, operation) }
        guard let operation, let keptAt = ObjectID(hex: keep.head) else { return (keep, nil) }
        if operation.commit.id == keptAt { return (keep, operation) }
        // Kept after the operation: its commit is in the history the keep saw.
        let before = (try? repository.isDescendant(keptAt, of: operation.commit.id)) ?? false
        return before ? (keep, operation) : (nil, operation)
    }

    /// Undoes the newest thing this device did: a keep (nothing committed) or an operation (`cards undo`);
    /// a keep that came with the undone commit is forgotten with it.
    @discardableResult
    package func undoLatest() throws(StoreError) -> DeviceUndo {
        let (keep, _) = try latestUndoable()
        if let keep {
            try changingKept { kept in
                if let index = kept.lastIndex(of: keep) { kept.remove(at: index) }
            }
            return .keep(keep)
        }
        let result = try undo()
        let undone = result.undone.commit.id.hex
        try changingKept { kept in kept.removeAll { $0.commit == undone } }
        return .operation(subject: result.undone.commit.subject, undone: result.undone, skipped: result.skipped)
    }
}
