import CardModel
import GitCore

/// A card file changed by hand in the working tree.
public struct HandEdit: Sendable, Hashable {
    /// How the file differs from `main`.
    public enum Change: String, Sendable, Hashable {
        /// A new file.
        case new
        /// A changed file.
        case changed
        /// A file removed by hand.
        case deleted
    }
    /// The path in the deck.
    public var path: String
    /// What changed.
    public var change: Change
    /// Why the file is not a valid card, or nil when it is (or was deleted).
    public var problem: String?
    /// The card as edited (valid new or changed files only).
    public var card: Card?
}

extension Deck {
    /// Hand edits under `cards/` in the working tree (a scan: for `status` and `commit` only).
    public func handEdits() throws(StoreError) -> [HandEdit] {
        guard let workingDirectory else { return [] }
        // Against main, the files of another branch or a git merge half done would all look hand-edited.
        try checkNoUnfinishedGitOperation()
        let entries = try git("reading the working tree's status") { () throws(GitError) in
            try repository.status(under: Deck.cardsFolder + "/")
        }
        var edits: [HandEdit] = []
        for entry in entries {
            let change: HandEdit.Change
            switch entry.change {
            case .added: change = .new
            case .deleted: change = .deleted
            case .modified, .other: change = .changed
            }
            if change == .deleted {
                edits.append(HandEdit(path: entry.path, change: change))
                continue
            }
            // Leftovers of an interrupted write are not hand edits.
            if FileSystem.basename(of: entry.path).hasPrefix(".") && entry.path.hasSuffix(".tmp") { continue }
            guard let id = CardID.id(fromPath: entry.path) else {
                edits.append(
                    HandEdit(
                        path: entry.path, change: change,
                        problem: "not a card file name (cards/<2 hex digits>/<lowercase uuid>.json)"))
                continue
            }
            do {
                let bytes = try FileSystem.read("\(workingDirectory)/\(entry.path)", limit: Card.maximumFileSize)
                let card = try Card.decode(bytes, expectedID: id)
                edits.append(HandEdit(path: entry.path, change: change, card: card))
            } catch let error as StoreError {
                edits.append(
                    HandEdit(
                        path: entry.path, change: change,
                        problem: Deck.stripPath(error.message, "\(workingDirectory)/\(entry.path)")))
            } catch {
                edits.append(HandEdit(path: entry.path, change: change, problem: "\(error)"))
            }
        }
        return edits.sorted { $0.path < $1.path }
    }

    /// Validates and commits every hand edit (op `commit`), writing each card back in canonical form.
    /// Refuses, naming every invalid file and why, when any is invalid; nil when there is nothing to commit.
    @discardableResult
    public func commitHandEdits(
        message: String?, refusal: String = "not committed", retry: String = "cards commit"
    ) throws(StoreError) -> (outcome: CommitOutcome, edits: [HandEdit])? {
        guard !isBare else { throw StoreError(.invalidInput, "a bare deck has no working tree to commit from") }
        var committed: [HandEdit] = []
        let outcome = try commitChange(recordingHandEdits: true) { (_) throws(StoreError) in
            let edits = try handEdits()
            try Deck.refuseInvalid(edits, saying: refusal, retry: retry)
            if edits.isEmpty { return nil }
            committed = edits
            var trailers = edits.compactMap { CardID.id(fromPath: $0.path) }.map { ("Card-Id", $0) }
            trailers.append(("Op", "commit"))
            let subject = message ?? "Commit hand edits to \(edits.count) card\(edits.count == 1 ? "" : "s")"
            return DeckChange(
                files: edits.map { ($0.path, $0.card?.encoded()) },
                message: CommitMessage(subject: CommitMessage.oneLine(subject), trailers: trailers))
        }
        guard let outcome else { return nil }
        return (outcome, committed)
    }

    /// Fails, naming every invalid card file and why, when any edit is invalid: `refusal` says what was
    /// not done, `retry` is the command to run once they are fixed.
    static func refuseInvalid(_ edits: [HandEdit], saying refusal: String, retry: String) throws(StoreError) {
        let invalid = edits.filter { $0.problem != nil }
        guard !invalid.isEmpty else { return }
        throw StoreError(
            .invalidCard,
            "\(refusal): \(invalid.count) card file\(invalid.count == 1 ? " is" : "s are") invalid:\n  "
                + invalid.map { "\($0.path): \($0.problem ?? "")" }.joined(separator: "\n  ")
                + "\nfix or remove \(invalid.count == 1 ? "it" : "them"), then run `\(retry)` again")
    }
}
