import CardModel
import GitCore

/// The committed files under `cards/` that are not valid cards, for `cards status`: kept in
/// `.git/cards-invalid` with the tree they were found in, so that the next look checks only what changed
/// since (a status of a 100,000-card deck would otherwise read every card).
extension Deck {
    /// The first line of the cache file: the version of the card rules it was judged by, and the tree.
    static let invalidCacheHeader = "cards-invalid \(Card.rulesVersion) "

    /// Every committed file under `cards/` on main that is not a valid card, in path order.
    package func committedInvalidCards() throws(StoreError) -> [CardProblem] {
        let snapshot = try snapshot()
        guard let tree = snapshot.tree else { return [] }
        let cachePath = "\(gitDirectory)/cards-invalid"
        let cache = readInvalidCache(cachePath)
        if let cache, cache.tree == tree { return cache.problems }
        var problems: [String: CardProblem]
        if let cache, let changes = try? TreeDiff.changes(in: repository, from: cache.tree, to: tree) {
            problems = Dictionary(cache.problems.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
            let trees = RawTreeCache()
            defer { trees.emptyInBackground() }
            for path in Deck.judgedEntries(changes.map(\.path)) {
                problems[path] = problem(at: path, in: tree, trees: trees)
            }
        } else {
            let all = try snapshot.allCards(transforming: { _ in () })
            problems = Dictionary(all.problems.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        }
        let sorted = problems.values.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        writeInvalidCache(cachePath, tree: tree, sorted)
        return sorted
    }

    /// The files among `paths` (changed ones, say) that are not valid cards in `tree`, in path order.
    func invalidCards(amongChanged paths: [String], in tree: ObjectID) -> [CardProblem] {
        // The folders and blobs read from the packs where they lie (`RawTreeCache`), not through libgit2's
        // objects (a sync judges the ~100-200 cards it sends or takes in: ~25,000 instructions a path).
        let trees = RawTreeCache()
        defer { trees.emptyInBackground() }
        return Deck.judgedEntries(paths).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            .compactMap { problem(at: $0, in: tree, trees: trees) }
    }

    /// Where `allCards` judges each changed path under `cards/`: a card file, or the entry of `cards/` or
    /// of one of its folders that holds it (its first three names).
    static func judgedEntries(_ paths: [String]) -> Set<String> {
        var entries: Set<String> = []
        for path in paths {
            // On the bytes, as git names paths (split by `Character`, a "/" with a combining mark after it
            // was no separator, and it cost ~30,000 instructions a path): the path up to its third "/".
            var path = path
            let end: Int? = path.withUTF8 { bytes in
                guard CardListing.bytes(bytes, at: 0, are: "cards") else { return nil }
                if bytes.count == 5 { return 5 }
                guard bytes[5] == UInt8(ascii: "/") else { return nil }
                var slashes = 1
                for index in 6..<bytes.count where bytes[index] == UInt8(ascii: "/") {
                    slashes += 1
                    if slashes == 3 { return index }
                }
                return bytes.count
            }
            guard let end else { continue }
            entries.insert(end == path.utf8.count ? path : String(decoding: path.utf8.prefix(end), as: UTF8.self))
        }
        return entries
    }

    /// What is wrong with the entry at `path` (`cards`, `cards/x` or `cards/x/y`) of `tree`, as
    /// `allCards` says it; nil when it is a valid card, a folder of `cards/`, or not there.
    private func problem(at path: String, in tree: ObjectID, trees: RawTreeCache) -> CardProblem? {
        // (A path through what is a file now is not there.)
        guard let entry = try? repository.treeEntry(in: tree, path: path, cache: trees) else { return nil }
        // Split on the byte (by `Character` it was most of judging a card); empty parts left out as before.
        let parts = path.utf8.split(separator: UInt8(ascii: "/")).map { String(Substring($0)) }
        // `cards` and its folders are folders; their files are judged on their own.
        if parts.count < 3 && entry.kind == .tree { return nil }
        guard parts.count == 3, entry.kind == .blob, let id = CardID.id(folder: parts[1], fileName: parts[2]) else {
            return DeckSnapshot.problem(path, kind: entry.kind)
        }
        do {
            let bytes = try DeckSnapshot.readCardBytes(
                blob: entry.id, in: repository, reader: nil, packs: trees.reader(for: repository))
            // A file the listing reads is certainly a valid card (`CardListing`): no decoding needed.
            if CardListing.title(canonical: bytes, expectedID: id) != nil { return nil }
            _ = try DeckSnapshot.decodeCard(bytes, id: id)
            return nil
        } catch {
            return CardProblem(path: path, reason: error.reason, couldNotRead: error.couldNotRead)
        }
    }

    private func readInvalidCache(_ path: String) -> (tree: ObjectID, problems: [CardProblem])? {
        guard let bytes = try? FileSystem.read(path, limit: 1 << 24) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.first, first.hasPrefix(Deck.invalidCacheHeader),
            let tree = ObjectID(hex: String(first.dropFirst(Deck.invalidCacheHeader.count))),
            lines.last == ""
        else { return nil }
        var problems: [CardProblem] = []
        for line in lines.dropFirst().dropLast() {
            guard let tab = line.firstIndex(of: "\t") else { return nil }
            problems.append(CardProblem(path: String(line[..<tab]), reason: String(line[line.index(after: tab)...])))
        }
        return (tree, problems)
    }

    /// A cache: written whole under another name and renamed, not flushed (lost, it is made again).
    private func writeInvalidCache(_ path: String, tree: ObjectID, _ problems: [CardProblem]) {
        // A path with a tab or a line break would not read back, and a file that could not be read may read
        // later: then the deck is looked at whole next time.
        if problems.contains(where: { $0.couldNotRead || $0.path.contains(where: { $0 == "\t" || $0.isNewline }) }) {
            try? FileSystem.remove(path)
            return
        }
        var text = Deck.invalidCacheHeader + tree.hex + "\n"
        for problem in problems {
            let reason = problem.reason.map { $0 == "\n" || $0 == "\t" ? " " : $0 }
            text += "\(problem.path)\t\(String(reason))\n"
        }
        try? FileSystem.writeAtomically(Array(text.utf8), to: path, durable: false)
    }
}
