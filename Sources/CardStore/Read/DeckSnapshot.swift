import CardModel
import GitCore

/// A problem with one file of the deck: its path and what is wrong, for `list`, `status` and `fsck`.
public struct CardProblem: Sendable, Hashable, CustomStringConvertible {
    /// The path inside the deck (`cards/3f/….json`).
    public var path: String
    /// What is wrong with it, and what to do when that is not obvious.
    public var reason: String
    /// Whether its bytes could not be read (a missing object, an I/O error), which says nothing of the
    /// file itself and may pass.
    public var couldNotRead: Bool

    /// Creates a problem record.
    package init(path: String, reason: String, couldNotRead: Bool = false) {
        self.path = path
        self.reason = reason
        self.couldNotRead = couldNotRead
    }

    /// "path: reason".
    public var description: String { "\(path): \(reason)" }
}

/// The deck as of one commit: reads card files out of its tree on demand.
public struct DeckSnapshot {
    /// The commit, or nil for an empty deck with no history.
    public let commit: ObjectID?
    /// Its root tree, or nil for an empty deck.
    package let tree: ObjectID?
    let repository: Repository
    /// The trees `blobID(at:)` read (raw, from the packs), for the splice of a change built on this
    /// snapshot (`Deck.commitChange`), which then reads none of them again.
    let trees: RawTreeCache

    /// Largest blob we read as a card: anything bigger is refused without inflating it.
    static let readLimit = Card.maximumFileSize

    /// `trees`: what an earlier read of the same repository kept (any commit's: trees are known by id).
    init(repository: Repository, commit: ObjectID?, trees: RawTreeCache = RawTreeCache()) throws(StoreError) {
        self.repository = repository
        self.commit = commit
        self.trees = trees
        if let commit {
            tree = try withStoreError("reading commit \(commit.short)") { () throws(GitError) in
                try repository.commitTree(commit, cache: trees)
            }
        } else {
            tree = nil
        }
    }

    /// The blob at a path, or nil.
    func blobID(at path: String) throws(StoreError) -> ObjectID? {
        guard let tree else { return nil }
        let entry = try withStoreError("reading \(path)") { () throws(GitError) in
            try repository.treeEntry(in: tree, path: path, cache: trees)
        }
        guard let entry, entry.kind == .blob else { return nil }
        return entry.id
    }

    /// The deck's name as its `deck.json` gives it at this commit (`"name"`), or nil when there is no
    /// `deck.json`, it is not JSON (or bigger than a card may be), or it names none. Throws only when it
    /// cannot be read.
    public func name() throws(StoreError) -> String? {
        try deckDescription()?["name"]?.stringValue
    }

    /// The card with this exact id, or nil when there is none. Throws when its file is invalid.
    public func card(id: String) throws(StoreError) -> Card? {
        let path = CardID.path(for: id)
        guard let blob = try blobID(at: path) else { return nil }
        return try decodeCard(blob: blob, path: path, id: id)
    }

    func decodeCard(blob: ObjectID, path: String, id: String?) throws(StoreError) -> Card {
        do {
            return try DeckSnapshot.decodeCard(
                DeckSnapshot.readCardBytes(
                    blob: blob, in: repository, reader: nil, packs: trees.reader(for: repository)),
                id: id)
        } catch {
            throw StoreError(
                .invalidCard,
                error.couldNotRead
                    ? "\(path): could not be read: \(error.reason); `git fsck` says why"
                    : "\(path): \(error.reason); fix the file by hand, then `cards commit` (`cards fsck` lists such files)"
            )
        }
    }

    /// Why a card file could not be read as a card, without its path.
    struct CardFileError: Error {
        var reason: String
        /// Its bytes could not be read (not: they are too many).
        var couldNotRead = false
    }

    /// The bytes of a card blob, through `reader` when it can, else through `readBlob`, which says
    /// what is wrong.
    static func readCardBytes(
        blob: ObjectID, in repository: Repository, reader: BlobReader?, packs: PackReader? = nil
    ) throws(CardFileError) -> [UInt8] {
        if let bytes = packs?.readBlob(blob, limit: readLimit) { return bytes }
        if let bytes = reader?.read(blob, limit: readLimit) { return bytes }
        do {
            return try repository.readBlob(blob, limit: readLimit)
        } catch {
            // The size refusal is about the file; anything else is about reading it.
            throw CardFileError(reason: error.message, couldNotRead: error.code != .tooLarge)
        }
    }

    /// Decodes the bytes of a card file; `id` is the id its path names.
    static func decodeCard(_ bytes: [UInt8], id: String?) throws(CardFileError) -> Card {
        do {
            return try Card.decode(bytes, expectedID: id)
        } catch {
            throw CardFileError(reason: "\(error)")
        }
    }

    /// The full id named by `reference`: a full id or a unique prefix of at least 4 hex digits.
    /// Only the one fan-out folder the prefix falls in is read.
    package func resolve(_ reference: String) throws(StoreError) -> String {
        let lowered = reference.lowercased()
        if let full = CardID.normalize(reference) {
            guard try blobID(at: CardID.path(for: full)) != nil else {
                throw StoreError(.cardNotFound, "no card with id \(full) in this deck; `cards list` shows the ids")
            }
            return full
        }
        let hex = lowered.filter { $0 != "-" }
        let isHex = lowered.allSatisfy { $0.isHexDigit || $0 == "-" }
        guard isHex, hex.count >= 4, lowered.count <= 36, !lowered.hasPrefix("-") else {
            throw StoreError(
                .invalidInput,
                "'\(CommitMessage.shown(reference))' is not a card id: give the full id or its first 4 or more hex digits (see `cards list`)"
            )
        }
        let folder = "\(Deck.cardsFolder)/\(lowered.prefix(2))"
        var matches: [String] = []
        if let tree,
            let entry = try withStoreError(
                "reading \(folder)",
                { () throws(GitError) in try repository.treeEntry(in: tree, path: folder, cache: trees) }),
            entry.kind == .tree
        {
            let entries = try withStoreError("reading \(folder)") { () throws(GitError) in
                try repository.treeEntries(entry.id, namePrefix: lowered, cache: trees)
            }
            // Entries named with the prefix only (`namePrefix`): the card files among them.
            for item in entries where item.name.hasSuffix(".json") {
                matches.append(String(item.name.dropLast(5)))
            }
        }
        if matches.isEmpty {
            throw StoreError(
                .cardNotFound, "no card id starts with '\(CommitMessage.shown(reference))'; `cards list` shows the ids")
        }
        if matches.count > 1 {
            throw StoreError(
                .ambiguousID,
                "'\(CommitMessage.shown(reference))' matches \(matches.count) cards: \(matches.joined(separator: ", ")); give more digits"
            )
        }
        return matches[0]
    }

    /// The card named by `reference` (see `resolve`).
    package func card(matching reference: String) throws(StoreError) -> Card {
        let id = try resolve(reference)
        guard let card = try card(id: id) else {
            throw StoreError(.cardNotFound, "no card with id \(id) in this deck")
        }
        return card
    }
}

extension Deck {
    /// A snapshot of the deck at `main` (empty when there is no commit yet).
    public func snapshot() throws(StoreError) -> DeckSnapshot {
        let trees = openingTrees ?? RawTreeCache()
        openingTrees = nil
        return try DeckSnapshot(repository: repository, commit: headCommit(), trees: trees)
    }

    /// A snapshot of the deck at any commit.
    package func snapshot(at commit: ObjectID) throws(StoreError) -> DeckSnapshot {
        try DeckSnapshot(repository: repository, commit: commit)
    }

    /// The cards in deck order, each sort key read once (not once per comparison: 100,000 cards
    /// make ~1.7 million comparisons).
    package static func sortedInDeckOrder(_ cards: [Card]) -> [Card] {
        positionsInDeckOrder(cards.map(DeckSortKey.init)).map { cards[$0] }
    }

    /// The positions of `keys` in deck order.
    static func positionsInDeckOrder(_ keys: [DeckSortKey]) -> [Int] {
        var order = keys.indices.map { (high: keys[$0].high, low: keys[$0].low, index: $0) }
        order.sort { left, right in
            if left.high != right.high { return left.high < right.high }
            if left.low != right.low { return left.low < right.low }
            return keys[left.index].precedes(keys[right.index])
        }
        return order.map(\.index)
    }

    /// Deck order: by rank, then by id, so the order is total even when two ranks are equal.
    package static func deckOrder(_ lhs: Card, _ rhs: Card) -> Bool {
        DeckSortKey(lhs).precedes(DeckSortKey(rhs))
    }

    static func describe(kind: TreeEntry.Kind) -> String {
        switch kind {
        case .symlink: return "a symbolic link, not a card file (remove it with `git rm`)"
        case .tree: return "a folder where a card file belongs (remove it with `git rm -r`)"
        case .submodule: return "a submodule entry, not a card file (remove it with `git rm`)"
        case .blob, .other: return "not a regular file"
        }
    }

    static func stripPath(_ message: String, _ path: String) -> String {
        let prefix = "\(path): "
        return message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
    }
}

/// A card's deck-order key, read once: rank, id, and the rank's first sixteen bytes packed in two
/// integers. Ranks made by import are ~10 bytes that share their first eight, so the integers
/// decide almost every comparison without walking a string (comparing byte arrays per step made
/// the sort a tenth of `cards list`).
struct DeckSortKey: Sendable {
    var high: UInt64
    var low: UInt64
    var rank: String
    var id: String

    init(_ card: Card) {
        self.init(rank: card.rank, id: card.id)
    }

    init(rank: String, id: String) {
        self.rank = rank
        self.id = id
        (high, low) = DeckSortKey.packedHead(rank.utf8)
    }

    /// Deck order on the whole strings: rank bytes, then id bytes.
    func precedes(_ other: DeckSortKey) -> Bool {
        if !rank.utf8.elementsEqual(other.rank.utf8) { return rank.utf8.lexicographicallyPrecedes(other.rank.utf8) }
        return id.utf8.lexicographicallyPrecedes(other.id.utf8)
    }

    /// The first sixteen bytes, big-endian, zero-padded, as two integers: `a < b` between two of
    /// these implies the same order of the whole byte strings (padding never puts a shorter string
    /// after a longer one), and equal values leave the order to the full comparison.
    static func packedHead(_ bytes: String.UTF8View) -> (high: UInt64, low: UInt64) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var taken = 0
        for byte in bytes.prefix(16) {
            high = high << 8 | low >> 56
            low = low << 8 | UInt64(byte)
            taken += 1
        }
        for _ in taken..<16 {
            high = high << 8 | low >> 56
            low = low << 8
        }
        return (high, low)
    }
}
