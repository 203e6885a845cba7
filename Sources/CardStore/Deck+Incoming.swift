import GitCore

/// What a merge takes from another history: plain files at safe paths, of a sane size. Anything else
/// in an incoming tree (a symbolic link, a submodule, a path into `.git` or out of the deck, a huge
/// blob) is left out of `main` and named in the report: it stays in the other side's history only.
extension Deck {
    /// Largest incoming file a merge takes into the deck (a card is at most 16 KiB; this is for the rest).
    public static let maximumIncomingFileSize = 64 * 1024 * 1024

    /// Why an incoming entry at `path` is not taken into `main`, or nil when it may be.
    /// `fastForward`: also refuse what a fast-forward cannot write as the tree says (executable files).
    /// `oursTree`: this deck's tree the entry would join (a folder where this deck has a card file of
    /// that name is not taken).
    func quarantineReason(path: String, entry: TreeEntry, oursTree: ObjectID?, fastForward: Bool = false) -> String? {
        guard Deck.isSafeWorkingPath(path) else { return "a path that leads out of the deck or into .git" }
        // `cards/3f/<id>.json/…` where this deck has the card file `cards/3f/<id>.json`: a tree cannot hold
        // both, and the working tree's card file would have to give way. (Where it has none, the folder
        // comes in and is named as a file that is no card.)
        // Only a path longer than a card file's (`cards/3f/` and a 41-byte name) can be one: the paths of a
        // merge's thousand changed cards are not split.
        let parts =
            path.utf8.count > 50 ? path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) : []
        if parts.count > 3, parts[0].elementsEqual(Deck.cardsFolder.utf8), parts[2].count > 5,
            parts[2].suffix(5).elementsEqual(".json".utf8), let oursTree
        {
            let cardPath = parts.prefix(3).map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
            if (try? repository.treeEntry(in: oursTree, path: cardPath))??.kind == .blob {
                return "inside a folder where this deck's card file \(cardPath) is"
            }
        }
        switch entry.kind {
        case .blob: break
        case .symlink: return "a symbolic link"
        case .submodule: return "a submodule entry"
        case .tree, .other: return "not a plain file"
        }
        if fastForward && entry.mode != 0o100644 { return "an executable file" }
        guard let size = try? repository.objectSize(entry.id) else { return "its content is missing" }
        if size > Deck.maximumIncomingFileSize {
            return "\(size) bytes, more than the \(Deck.maximumIncomingFileSize) a deck takes in"
        }
        return nil
    }

    /// The entries between two trees that a fast-forward must not take, as "path: reason" lines.
    /// Refuses outright (nothing changes) a tree with a path into `.git` or out of the deck: git itself
    /// calls such a tree corrupt, and a server that checks pushes would refuse every later push.
    func quarantinedEntries(from old: ObjectID?, to new: ObjectID, theirsName: String) throws(StoreError) -> [String] {
        let changes = try git("comparing trees") { () throws(GitError) in
            try TreeDiff.changes(in: repository, from: old, to: new)
        }
        var lines: [String] = []
        for change in changes {
            guard let entry = change.new else { continue }
            try refuseUnsafePath(change.path, theirsName: theirsName)
            if let reason = quarantineReason(path: change.path, entry: entry, oursTree: old, fastForward: true) {
                lines.append("\(change.path): \(reason)")
            }
        }
        return lines
    }

    /// Fails, changing nothing, when an incoming path leads into `.git` or out of the deck.
    func refuseUnsafePath(_ path: String, theirsName: String) throws(StoreError) {
        guard Deck.isSafeWorkingPath(path) else {
            throw StoreError(
                .invalidInput,
                "\(theirsName) holds '\(path)', a path into .git or out of the deck (git fsck calls such a tree "
                    + "corrupt): refused, nothing changed")
        }
    }
}
