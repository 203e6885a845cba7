import CGit2
import Dispatch
import Glibc

extension Repository {
    /// `updatedTree(base:updates:)` built from raw tree bytes: each folder on an updated path is
    /// copied entry run by entry run from its raw bytes (read through `cache`, where a walk left
    /// them), with the updated entries spliced in. A rebuilt folder whose bytes equal a tree that
    /// folder had in the walk (the other side's, when only it changed the folder) is that tree: no
    /// hashing, no writing. The rest are hashed and written.
    ///
    /// Gives the same tree as `updatedTree` (which is `git_tree_create_updated`), and falls back to
    /// it whenever that is not plainly so: a tree not in canonical form on the way, a name libgit2
    /// might refuse, a file where a folder is needed or the other way round, a path given both as a
    /// file and as a folder.
    ///
    /// New trees go through `writer` when given (a pack in the making), else `git_odb_write`.
    package func splicedTree(
        base: ObjectID?, updates: [TreeUpdate], cache: RawTreeCache, writer: PackWriter? = nil
    ) throws(GitError) -> ObjectID {
        if let id = try? splice(base: base, updates: updates, cache: cache, writer: writer) { return id }
        // What the splice wrote before it gave way is no part of the tree libgit2 builds now, through
        // the writer's handle when there is one (so that its trees go to the pack).
        guard let writer else { return try updatedTree(base: base, updates: updates) }
        writer.forgetWrittenTrees()
        return try (try writer.repository).updatedTree(base: base, updates: updates)
    }

    /// The spliced tree, or `RawTreeFallback` (or a write's error) when libgit2 must do it (internal for
    /// the tests that check which of the two made a tree).
    func splice(
        base: ObjectID?, updates: [TreeUpdate], cache: RawTreeCache, writer: PackWriter?
    ) throws
        -> ObjectID
    {
        // An entry of another mode (a link, a submodule, an executable a merge carries): libgit2 writes it.
        if updates.contains(where: { $0.mode != RawTree.blobMode }) { throw RawTreeFallback() }
        // The last update of a path counts, as in `updatedTree`. Keyed by String, which takes é and e + U+0301
        // for one path: such names are not plain (below), so libgit2 gets all of them as they were given.
        var lastByPath: [String: ObjectID?] = [:]
        for update in updates { lastByPath[update.path] = .some(update.blob) }
        var pending: [(components: [Substring], blob: ObjectID?)] = []
        pending.reserveCapacity(lastByPath.count)
        for (path, blob) in lastByPath {
            // Split on the byte (a merge gives hundreds of paths: split by `Character` they were a tenth
            // of building its tree); a name that is not plain ASCII goes to libgit2 whole anyway.
            var components: [Substring] = []
            var rest = path[...]
            while let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/")) {
                components.append(rest[..<slash])
                rest = rest[rest.utf8.index(after: slash)...]
            }
            components.append(rest)
            guard components.allSatisfy(Repository.isPlainName) else { throw RawTreeFallback() }
            pending.append((components, blob))
        }
        // A path that is also a folder of another path: libgit2 decides what that means. Each path's
        // folders (its bytes up to each "/") looked up among the paths, no string joined per path.
        for var path in lastByPath.keys {
            let clash = path.withUTF8 { bytes in
                bytes.indices.contains { index in
                    bytes[index] == UInt8(ascii: "/")
                        && lastByPath[String(decoding: UnsafeBufferPointer(rebasing: bytes[..<index]), as: UTF8.self)]
                            != nil
                }
            }
            if clash { throw RawTreeFallback() }
        }
        guard !pending.isEmpty else {
            if let base { return base }
            return try store([], id: Repository.emptyTreeID, writer: writer)
        }
        let rebuilt = try rebuild(
            base, prefix: "", updates: pending[...].map { ($0.components[...], $0.blob) }, cache: cache, writer: writer)
        switch rebuilt {
        case .unchanged:
            if let base { return base }
            return try store([], id: Repository.emptyTreeID, writer: writer)
        case .tree(let id): return id
        // The root is written even when empty, as libgit2 does (into the pack with the rest).
        case .empty: return try store([], id: Repository.emptyTreeID, writer: writer)
        }
    }

    private enum Rebuilt {
        /// Nothing under this folder changed (only removals of paths that are not there).
        case unchanged
        /// The folder's new tree.
        case tree(ObjectID)
        /// Every entry is gone: the folder is pruned from its parent.
        case empty
    }

    /// A folder worked out but not written yet.
    private enum Prepared {
        case unchanged
        case empty
        /// A tree already stored: the new bytes equal a version of this folder the walk read.
        case tree(ObjectID)
        /// New bytes, with their id when worked out off the calling thread.
        case new([UInt8], ObjectID?)
    }

    /// The folder `id` (nil: absent) at `prefix` with `updates` (paths relative to it) applied.
    private func rebuild(
        _ id: ObjectID?, prefix: String, updates: [(components: ArraySlice<Substring>, blob: ObjectID?)],
        cache: RawTreeCache, writer: PackWriter?
    ) throws -> Rebuilt {
        try written(
            try prepare(id, prefix: prefix, updates: updates, cache: cache, writer: writer, hashed: false), writer)
    }

    /// A prepared folder as rebuilt: its new bytes, if any, stored now.
    private func written(_ prepared: Prepared, _ writer: PackWriter?) throws -> Rebuilt {
        switch prepared {
        case .unchanged: return .unchanged
        case .empty: return .empty
        case .tree(let id): return .tree(id)
        case .new(let bytes, let id): return .tree(try store(bytes, id: id, writer: writer))
        }
    }

    /// The new bytes of the folder `id` at `prefix` with `updates` applied (its sub-folders rebuilt
    /// and written), not written themselves; with their id when `hashed`.
    private func prepare(
        _ id: ObjectID?, prefix: String, updates: [(components: ArraySlice<Substring>, blob: ObjectID?)],
        cache: RawTreeCache, writer: PackWriter?, hashed: Bool
    ) throws -> Prepared {
        let tree = try id.map { (id) throws(RawTreeFallback) in try rawTree(id, cache: cache) } ?? RawTree.empty
        // What replaces each touched name: an entry (mode, id) or nothing.
        var replacements: [String: (mode: UInt32, id: ObjectID)?] = [:]
        var byFolder: [Substring: [(components: ArraySlice<Substring>, blob: ObjectID?)]] = [:]
        for update in updates {
            guard let first = update.components.first else { throw RawTreeFallback() }
            if update.components.count == 1 {
                replacements[String(first)] = .some(update.blob.map { (RawTree.blobMode, $0) })
            } else {
                byFolder[first, default: []].append((update.components.dropFirst(), update.blob))
            }
        }
        // The entries these names have now, found by bisection: a card folder holds ~400 entries and
        // a merge touches one or two of them.
        var existing: [String: RawTree.Entry] = [:]
        for name in replacements.keys {
            let bytes = Array(name.utf8)
            existing[name] = tree.find(bytes, isTree: false) ?? tree.find(bytes, isTree: true)
        }
        for name in byFolder.keys {
            let bytes = Array(name.utf8)
            existing[String(name)] = tree.find(bytes, isTree: true) ?? tree.find(bytes, isTree: false)
        }
        var changed = false
        for (name, replacement) in replacements {
            guard let old = existing[name] else {
                // Removing what is not there is skipped; adding is a change.
                if replacement != nil { changed = true } else { replacements[name] = nil }
                continue
            }
            // A file replaces only a file or a link (libgit2 refuses the rest); only a file is removed here.
            if old.isTree || old.mode == RawTree.submoduleMode { throw RawTreeFallback() }
            changed = true
        }
        let children = try rebuiltFolders(
            byFolder, in: tree, existing: existing, prefix: prefix, cache: cache, writer: writer)
        for (name, child) in children {
            switch child {
            case .unchanged: continue
            case .tree(let id): replacements[String(name)] = (RawTree.treeMode, id)
            case .empty: replacements[String(name)] = .some(nil)
            }
            changed = true
        }
        guard changed else { return .unchanged }
        // Every touched name that is there now leaves its old entry out (replaced, or removed).
        let left = replacements.keys.compactMap { existing[$0]?.start }.sorted()
        let bytes = try splicedBytes(tree, leavingOut: left, replacements: replacements)
        if bytes.isEmpty { return .empty }
        // The same bytes as a tree this folder had in the walk: that tree, nothing to write.
        for candidate in cache.versions[prefix] ?? []
        where cache.trees[candidate].map({ same($0.bytes, bytes) }) == true {
            return .tree(candidate)
        }
        guard hashed else { return .new(bytes, nil) }
        return .new(bytes, try ObjectID.hash(of: bytes, type: GIT_OBJECT_TREE))
    }

    /// Below this many changed sub-folders of one folder they are rebuilt one after another.
    static let sideBySideFolders = 16

    /// The sub-folders of `tree` named in `byFolder`, rebuilt with their updates, in name order.
    ///
    /// Many folders holding only files (a merge's card folders: ~250 of ~27 KB at 100,000 cards, each
    /// copied with its changes and hashed), all read already by the walk that planned the change, are
    /// worked out on two threads and then written one after another (the pack writer's store is not
    /// shared between threads): a 1000+1000 merge spent ~13 ms here on one.
    private func rebuiltFolders(
        _ byFolder: [Substring: [(components: ArraySlice<Substring>, blob: ObjectID?)]], in tree: RawTree,
        existing: [String: RawTree.Entry], prefix: String, cache: RawTreeCache, writer: PackWriter?
    ) throws -> [(name: Substring, rebuilt: Rebuilt)] {
        let names = byFolder.keys.sorted()
        var olds: [ObjectID?] = []
        for name in names {
            let old = existing[String(name)]
            if let old, !old.isTree { throw RawTreeFallback() }
            olds.append(old.map { tree.id($0) })
        }
        let sideBySide =
            writer != nil && names.count >= Repository.sideBySideFolders && Repository.processors > 1
            && byFolder.values.allSatisfy { $0.allSatisfy { $0.components.count == 1 } }
            && olds.allSatisfy { old in old.map { cache.trees[$0] != nil } ?? true }
        guard sideBySide else {
            var rebuilt: [(name: Substring, rebuilt: Rebuilt)] = []
            for (index, name) in names.enumerated() {
                rebuilt.append(
                    (
                        name,
                        try rebuild(
                            olds[index], prefix: prefix + name + "/", updates: byFolder[name] ?? [], cache: cache,
                            writer: writer)
                    ))
            }
            return rebuilt
        }
        // Each thread fills its own half of the slots; the cache is only read (every tree is in it).
        var prepared = [Result<Prepared, any Error>?](repeating: nil, count: names.count)
        prepared.withUnsafeMutableBufferPointer { buffer in
            let shared = UncheckedSendable((slots: buffer, names: names, olds: olds, byFolder: byFolder))
            let repository = UncheckedSendable((self, cache))
            DispatchQueue.concurrentPerform(iterations: 2) { half in
                let count = shared.value.names.count
                for index in half == 0 ? 0..<count / 2 : count / 2..<count {
                    let name = shared.value.names[index]
                    shared.value.slots[index] = Result {
                        try repository.value.0.prepare(
                            shared.value.olds[index], prefix: prefix + name + "/",
                            updates: shared.value.byFolder[name] ?? [], cache: repository.value.1, writer: nil,
                            hashed: true)
                    }
                }
            }
        }
        var rebuilt: [(name: Substring, rebuilt: Rebuilt)] = []
        for (index, name) in names.enumerated() {
            guard let outcome = prepared[index] else { throw RawTreeFallback() }
            rebuilt.append((name, try written(try outcome.get(), writer)))
        }
        return rebuilt
    }

    /// Writes a new tree: into `writer` when given (a pack in the making; `id` spares hashing again),
    /// else through `git_odb_write`.
    private func store(_ bytes: [UInt8], id: ObjectID?, writer: PackWriter?) throws -> ObjectID {
        if let writer { return try writer.write(tree: bytes, id: id) }
        // The empty tree (a root left without entries) as libgit2 writes it: no bytes to hand over.
        if bytes.isEmpty { return try emptyTree() }
        var oid = git_oid()
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        let result = bytes.withUnsafeBytes { buffer in
            git_odb_write(&oid, odb, buffer.baseAddress, buffer.count, GIT_OBJECT_TREE)
        }
        try check(result, "git_odb_write")
        return ObjectID(oid)
    }

    /// The tree's bytes with the entries starting at `leftOut` (sorted) left out and the new entries
    /// of `replacements` put in: runs of untouched entries copied as they are, the new ones serialised
    /// as git writes them ("<octal mode> <name>\0<20-byte id>"), all in git's order.
    private func splicedBytes(
        _ tree: RawTree, leavingOut leftOut: [Int], replacements: [String: (mode: UInt32, id: ObjectID)?]
    ) throws(RawTreeFallback) -> [UInt8] {
        // The new entries as a little tree of their own, in git's order (a folder's name sorts as if it
        // ended with "/"), so that one merge of two sorted lists orders them.
        var sorted: [(key: [UInt8], name: String, mode: UInt32, id: ObjectID)] = []
        for (name, replacement) in replacements {
            guard let replacement else { continue }
            let key = Array(name.utf8) + (replacement.mode == RawTree.treeMode ? [UInt8(ascii: "/")] : [])
            sorted.append((key, name, replacement.mode, replacement.id))
        }
        sorted.sort { $0.key.lexicographicallyPrecedes($1.key) }
        var added: [UInt8] = []
        for replacement in sorted {
            // "<octal mode> <name>\0<id>", each part appended where it lies (no array made for each).
            var digits = 1
            while replacement.mode >> (3 * digits) != 0 { digits += 1 }
            for place in stride(from: digits - 1, through: 0, by: -1) {
                added.append(UInt8(ascii: "0") + UInt8((replacement.mode >> (3 * place)) & 7))
            }
            added.append(UInt8(ascii: " "))
            added.append(contentsOf: replacement.key[..<replacement.name.utf8.count])
            added.append(0)
            added.append(contentsOf: replacement.id.bytes)
        }
        guard let addedTree = RawTree(canonical: added) else { throw RawTreeFallback() }
        // `newBytes` lives in `addedTree`'s buffer: kept to the end of this function.
        defer { withExtendedLifetime(addedTree) {} }
        let additions = addedTree.entries
        let newBytes = addedTree.bytes
        var out: [UInt8] = []
        out.reserveCapacity(tree.bytes.count + added.count)
        // Where the run of old entries not yet copied starts.
        var run = 0
        var nextAddition = 0
        var nextLeftOut = 0
        for entry in tree.entries {
            if nextAddition < additions.count && RawTree.order(newBytes, additions[nextAddition], tree.bytes, entry) < 0
            {
                out += UnsafeBufferPointer(rebasing: tree.bytes[run..<entry.start])
                run = entry.start
                while nextAddition < additions.count
                    && RawTree.order(newBytes, additions[nextAddition], tree.bytes, entry) < 0
                {
                    out += added[additions[nextAddition].start..<additions[nextAddition].end]
                    nextAddition += 1
                }
            }
            if nextLeftOut < leftOut.count && leftOut[nextLeftOut] == entry.start {
                out += UnsafeBufferPointer(rebasing: tree.bytes[run..<entry.start])
                run = entry.end
                nextLeftOut += 1
            }
        }
        out += UnsafeBufferPointer(rebasing: tree.bytes[run...])
        while nextAddition < additions.count {
            out += added[additions[nextAddition].start..<additions[nextAddition].end]
            nextAddition += 1
        }
        return out
    }

    /// Whether a tree's bytes and a byte array are the same bytes (memcmp: a card folder is ~27 KB).
    private func same(_ left: UnsafeBufferPointer<UInt8>, _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        return right.withUnsafeBufferPointer { y in
            guard let a = left.baseAddress, let b = y.baseAddress else { return true }
            return memcmp(a, b, left.count) == 0
        }
    }

    /// A name `git_tree_create_updated` takes as it is: ASCII letters, digits, ".", "-", "_", not
    /// "." or "..", and not ".git" in any case or with trailing dots (NTFS would read it as ".git").
    static func isPlainName(_ name: Substring) -> Bool {
        // On the bytes in place: this runs for every part of every path a change writes.
        var name = name
        return name.withUTF8(isPlainName)
    }

    private static func isPlainName(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                continue
            default: return false
            }
        }
        // ".", "..", and ".git" in any case followed by any number of dots (which NTFS would read as
        // ".git"). Only ASCII letters, digits, ".", "-" and "_" get here: `| 0x20` lowercases a letter,
        // and turns no other of them into "g", "i" or "t".
        var end = bytes.count
        while end > 0 && bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        if end == 0 { return bytes.count > 2 }
        return
            !(end == 4 && bytes[0] == UInt8(ascii: ".") && bytes[1] | 0x20 == UInt8(ascii: "g")
            && bytes[2] | 0x20 == UInt8(ascii: "i") && bytes[3] | 0x20 == UInt8(ascii: "t"))
    }
}
