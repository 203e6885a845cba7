import GitCore

/// What a merge takes from another history: every entry git would take, in the mode it came with
/// (a file, an executable, a symbolic link, a submodule), so that nothing another device or a plain git
/// user keeps in the repository is dropped from the trees this deck writes and pushes. Only a path git
/// itself calls corrupt (into `.git`, out of the deck) is refused, and a folder that would replace one
/// of this deck's card files is left out and named. Links and submodules are kept in the trees and the
/// index but not checked out (`notCheckedOut`).
extension Deck {
    /// Largest file read into memory to be checked, merged line by line or shown (a card is at most
    /// 16 KiB; this is for the rest): a larger one is carried by its object id, never read whole.
    package static let maximumIncomingFileSize = 64 * 1024 * 1024

    /// Why an incoming entry at `path` is not taken into `main`, or nil when it may be (nearly always).
    /// `oursTree`: this deck's tree the entry would join (a folder where this deck has a card file of
    /// that name is not taken).
    func quarantineReason(path: String, oursTree: ObjectID?) -> String? {
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
        return nil
    }

    /// Why `cards` leaves an entry out of the working tree, or nil when it writes it there (a file).
    /// Such an entry is kept in the trees and in the index, marked skip-worktree so that `git status`
    /// does not call it deleted: a symbolic link in the working tree is a way to make a later write land
    /// outside the deck, a submodule's checkout is the user's to ask git for, and a file larger than
    /// `maximumIncomingFileSize` (or one a partial clone has not fetched) is not read whole into memory.
    func notCheckedOut(_ entry: TreeEntry) -> String? {
        switch entry.kind {
        case .blob: break
        case .symlink: return "a symbolic link"
        case .submodule: return "a submodule"
        case .tree, .other: return "an entry of mode \(String(entry.mode, radix: 8))"
        }
        guard let size = try? repository.objectSize(entry.id) else {
            return "a file whose content this clone does not have (a partial clone)"
        }
        if size > Deck.maximumIncomingFileSize {
            return "a file of \(size) bytes, more than the \(Deck.maximumIncomingFileSize) cards writes out"
        }
        return nil
    }

    /// The note a merge or fast-forward gives for an entry it carries without checking it out.
    static func carriedNote(_ path: String, _ reason: String) -> String {
        "\(path): \(reason), kept in the deck's trees but not checked out (`git status` shows it as skipped)"
    }

    /// The entries between two trees that a fast-forward must not take, as "path: reason" lines.
    /// Refuses outright (nothing changes) a tree with a path into `.git` or out of the deck: git itself
    /// calls such a tree corrupt, and a server that checks pushes would refuse every later push.
    func quarantinedEntries(from old: ObjectID?, to new: ObjectID, theirsName: String) throws(StoreError) -> [String] {
        let changes = try withStoreError("comparing trees") { () throws(GitError) in
            try TreeDiff.changes(in: repository, from: old, to: new)
        }
        var lines: [String] = []
        for change in changes {
            guard change.new != nil else { continue }
            try refuseUnsafePath(change.path, theirsName: theirsName)
            if let reason = quarantineReason(path: change.path, oursTree: old) {
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
