import CGit2
import Dispatch
import Glibc
import SystemCalls

/// Trees read as raw bytes during one operation, kept so that a later step (building the merged
/// tree from the folders the walk read) does not read or inflate them again. Like its repository,
/// not for use on several threads at once.
public final class RawTreeCache {
    var trees: [ObjectID: RawTree] = [:]
    /// The trees each folder path had in the walk that read it ("" for the root, "cards/" ...): a
    /// rebuilt folder equal to one of them is that tree, known without hashing or writing it.
    var versions: [String: [ObjectID]] = [:]
    /// The root tree of each commit read through this cache (`Repository.commitTree`): opening a deck
    /// and its first snapshot ask for the same one.
    var commitTrees: [ObjectID: ObjectID] = [:]

    /// The reader of the packs, made on the first read through this cache (`PackReader`).
    private var packReader: PackReader?

    /// An empty cache.
    public init() {}

    /// The reader of `repository`'s packs for this cache's operation, made on first use (each index
    /// mapped then, each pack's data when an object is first found in it).
    package func reader(for repository: Repository) -> PackReader {
        if let packReader { return packReader }
        let reader = PackReader(objectsDirectory: repository.commonDirectory + "objects/", counting: repository)
        packReader = reader
        return reader
    }

    /// Empties the cache, its trees freed and its packs unmapped on a thread of their own
    /// (`Background.release`): ~1 ms after a merge that read a few hundred folders, which the
    /// caller need not wait for once the commit is made. A tree still held elsewhere keeps its pack
    /// mapped (each tree holds the pack its bytes lie in, its `owner`).
    package func emptyInBackground() {
        let held = Held(trees: trees, versions: versions, packReader: packReader)
        trees = [:]
        versions = [:]
        commitTrees = [:]
        packReader = nil
        Background.release(held)
    }

    /// What `emptyInBackground` hands over, in one object for one release.
    private final class Held {
        let trees: [ObjectID: RawTree]
        let versions: [String: [ObjectID]]
        let packReader: PackReader?
        init(trees: [ObjectID: RawTree], versions: [String: [ObjectID]], packReader: PackReader?) {
            self.trees = trees
            self.versions = versions
            self.packReader = packReader
        }
    }

    func remember(_ id: ObjectID, at path: String) {
        // One lookup of the path, changed in place (every folder version a merge's walk reads).
        RawTreeCache.appendIfNew(id, to: &versions[path, default: []])
    }

    private static func appendIfNew(_ id: ObjectID, to list: inout [ObjectID]) {
        if !list.contains(id) { list.append(id) }
    }
}

/// Why the raw path gave way to libgit2's: the caller runs libgit2's path, which gives its own
/// answer (or error) for the tree at hand.
struct RawTreeFallback: Error {}

extension Repository {
    /// `treeEntry(in:path:)` through `cache`: the trees on the way read as raw bytes from the mapped
    /// packs (CRC-checked, parsed strictly) and kept for a later step of the same operation, such as the
    /// splice that builds the commit's tree, which then reads none of them again. Through libgit2 each
    /// was read apart and hashed whole by its collision-detecting SHA-1 (a card folder is ~27 KB at
    /// 100,000 cards: a sixth of a one-card commit's instructions). A tree not read so (not canonical,
    /// loose, a delta) gives the question to libgit2, which answers it as before.
    package func treeEntry(in treeID: ObjectID, path: String, cache: RawTreeCache) throws(GitError) -> TreeEntry? {
        do {
            return try rawTreeEntry(in: treeID, path: path, cache: cache)
        } catch {
            return try treeEntry(in: treeID, path: path)
        }
    }

    /// `readBlob(_:limit:)` through `cache`'s pack reader: a blob stored whole in a pack is read where
    /// it lies and hashed in hardware against `id`; anything else (loose, a delta, too big) through
    /// libgit2, which reads or explains it.
    package func readBlob(_ id: ObjectID, limit: Int, cache: RawTreeCache) throws(GitError) -> [UInt8] {
        if let bytes = cache.reader(for: self).readBlob(id, limit: limit) { return bytes }
        return try readBlob(id, limit: limit)
    }

    /// The entries of tree `id` (as `treeEntries(_:)` has them), read through `cache` as
    /// `treeEntry(in:path:cache:)` reads: from the mapped packs, parsed where they lie. Through libgit2
    /// each card folder (~27 KB at 100,000 cards) was hashed whole by its collision-detecting SHA-1 and
    /// parsed into an object of its own: ~7 MB hashed to list a deck of 100,000 cards.
    package func treeEntries(_ id: ObjectID, cache: RawTreeCache) throws(GitError) -> [TreeEntry] {
        if let tree = try? rawTree(id, cache: cache) { return tree.entries.map { tree.treeEntry($0) } }
        return try treeEntries(id)
    }

    /// The entries of tree `id` whose names start with the bytes of `namePrefix` (as `treeEntries(_:)`
    /// has them, in the same order), read through `cache` as `treeEntry(in:path:cache:)` reads: only the
    /// matching entries are made into values (a card folder has ~400, a prefix picks one or two).
    package func treeEntries(_ id: ObjectID, namePrefix: String, cache: RawTreeCache) throws(GitError) -> [TreeEntry] {
        let prefix = Array(namePrefix.utf8)
        if let tree = try? rawTree(id, cache: cache), let base = tree.bytes.baseAddress {
            return tree.entries.filter { entry in
                entry.nameEnd - entry.nameStart >= prefix.count
                    && prefix.withUnsafeBufferPointer { wanted in
                        wanted.indices.allSatisfy { base[entry.nameStart + $0] == wanted[$0] }
                    }
            }.map { tree.treeEntry($0) }
        }
        return try treeEntries(id).filter { Array($0.name.utf8).starts(with: prefix) }
    }

    /// The entry at `path`, nil when there is none (as libgit2 says "not found": a missing name, or a
    /// path through a file), or `RawTreeFallback`.
    private func rawTreeEntry(in treeID: ObjectID, path: String, cache: RawTreeCache) throws(RawTreeFallback)
        -> TreeEntry?
    {
        // Split on the "/" byte, as git and libgit2 split a path (by `Character`, a "/" with a combining
        // mark after it was no separator, and such a path was "not there" here while libgit2 found it).
        let components = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard !components.isEmpty, !components.contains(where: \.isEmpty) else { throw RawTreeFallback() }
        var current = try rawTree(treeID, cache: cache)
        for (index, component) in components.enumerated() {
            let name = Array(component)
            if index == components.count - 1 {
                guard let entry = current.find(name, isTree: false) ?? current.find(name, isTree: true) else {
                    return nil
                }
                return current.treeEntry(entry)
            }
            guard let folder = current.find(name, isTree: true) else { return nil }
            current = try rawTree(current.id(folder), cache: cache)
        }
        return nil
    }
}

extension Repository {
    /// The id of the tree with no entries.
    static let emptyTreeID = ObjectID(bytes: [
        0x4b, 0x82, 0x5d, 0xc6, 0x42, 0xcb, 0x6e, 0xb9, 0xa0, 0x60, 0xe5, 0x4b, 0xf8, 0xd6, 0x92, 0x88, 0xfb, 0xee,
        0x49, 0x04,
    ])

    /// The canonical tree `id` as raw bytes, from `cache` or read; throws `RawTreeFallback` for a
    /// tree that is not in canonical form, or that cannot be read this way.
    ///
    /// Read out of the mapped packs (`PackReader`, each entry checked against the CRC-32 its pack
    /// index records), else from the object database's backends directly (zlib's checksum checked):
    /// `git_odb_read` would hash the ~27 KB of each card folder again to check it (strict
    /// verification, on in this process), which cost as much as inflating it; git does not hash on
    /// read either. What that trades: a tree whose bytes no longer match its id although its entry's
    /// checksum does (written wrong, not damaged since) is used as it reads instead of refused; it
    /// still has to parse as a canonical tree. Damage on disk fails the checksum, and then libgit2's
    /// own read reports it.
    ///
    /// `sibling`: another version of the same folder, whose entries a parse may take where the bytes
    /// are alike (`RawTree(canonical:owner:like:)`).
    func rawTree(_ id: ObjectID, cache: RawTreeCache?, like sibling: RawTree? = nil) throws(RawTreeFallback)
        -> RawTree
    {
        if let known = cache?.trees[id] { return known }
        // libgit2 knows the empty tree without storing it.
        if id == Repository.emptyTreeID { return RawTree.empty }
        let parsed: RawTree?
        if let view = cache?.reader(for: self).readTree(id) {
            parsed = RawTree(canonical: view.bytes, owner: view.owner, like: sibling)
        } else {
            parsed = readRawObject(id, type: GIT_OBJECT_TREE).flatMap { RawTree(canonical: $0) }
        }
        guard let tree = parsed else { throw RawTreeFallback() }
        cache?.trees[id] = tree
        return tree
    }

    /// The content of object `id` when it is of `type`, read from the first backend that has it
    /// (in the odb's priority order, as `git_odb_read` asks them); nil for anything else (missing,
    /// another type, an error), which libgit2's own read then reports.
    func readRawObject(_ id: ObjectID, type expected: git_object_t) -> [UInt8]? {
        var odb: OpaquePointer?
        guard git_repository_odb(&odb, pointer) == 0, let odb else {
            git_error_clear()
            return nil
        }
        defer { git_odb_free(odb) }
        var oid = id.raw
        for position in 0..<git_odb_num_backends(odb) {
            var backend: UnsafeMutablePointer<git_odb_backend>?
            guard git_odb_get_backend(&backend, odb, position) == 0, let backend, let read = backend.pointee.read
            else {
                git_error_clear()
                continue
            }
            var data: UnsafeMutableRawPointer?
            var length = 0
            var type = GIT_OBJECT_INVALID
            let result = read(&data, &length, &type, backend, &oid)
            if result == GIT_ENOTFOUND.rawValue || result == GIT_PASSTHROUGH.rawValue {
                git_error_clear()
                continue
            }
            defer { if data != nil { git_odb_backend_data_free(backend, data) } }
            guard result == 0, type == expected else {
                git_error_clear()
                return nil
            }
            guard length > 0, let data else { return [] }
            return Array(UnsafeRawBufferPointer(start: data, count: length))
        }
        return nil
    }
}

extension Repository {
    /// Below this many trees to read, one thread reads them: a second handle and thread cost ~0.5 ms.
    static let readAheadThreshold = 24
    /// Trees smaller than this are read on one thread (see `readAhead`).
    static let readAheadTreeSize = 8_192
    /// The processors online, asked once: glibc reads a file in /sys for each `sysconf` of it.
    package static let processors = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))

    /// Reads the trees `ids` into `cache` ahead of the walk that needs them, half of them on a second
    /// thread (a repository is not for two threads: it reads the packs through a `PackReader` of its
    /// own and anything else through a handle of its own). Checking and parsing ~27 KB card folders
    /// scales over two threads, unlike reading small blobs (`DeckSnapshot.decodeAll`). A tree either half cannot read or parse is left out: the walk
    /// reads it itself and decides. `concurrentPerform` runs both halves on the calling thread when no
    /// other is free, so nothing ever waits on a queue.
    func readAhead(_ ids: [ObjectID], cache: RawTreeCache) {
        // Most calls are for a card folder, with no folders under it.
        guard ids.count >= Repository.readAheadThreshold, Repository.processors > 1 else { return }
        // Small folders (a deck of 10,000 cards has ~40 per folder, ~3 KB) read faster on one thread
        // than a second handle and thread cost: judge by the first, before the rest are even counted
        // (a set of every id was most of this for a small deck's merge).
        guard let firstID = ids.first(where: { cache.trees[$0] == nil }),
            let first = try? rawTree(firstID, cache: cache), first.bytes.count >= Repository.readAheadTreeSize
        else { return }
        var seen: Set<ObjectID> = [firstID]
        let missing = [firstID] + ids.filter { cache.trees[$0] == nil && seen.insert($0).inserted }
        guard missing.count >= Repository.readAheadThreshold else { return }
        let middle = (missing.count + 1) / 2
        let mine = Array(missing[1..<middle])
        let other = Array(missing[middle...])
        let path = gitDirectory
        let helper = ReadAhead()
        // This handle and the cache are used by the first half only, on whichever thread runs it; the
        // second reads the same mapped packs through a reader of its own, and what is not in them
        // (loose, a delta) through a handle of its own, opened only then.
        let own = UncheckedSendable((repository: self, cache: cache))
        let packs = UncheckedSendable(cache.reader(for: self).sibling())
        // The versions of one folder come one after another (the walk lists each folder's base, ours,
        // theirs): each tree is parsed like the one before it (`RawTree(canonical:owner:like:)`).
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            if half == 0 {
                var previous: RawTree? = first
                for id in mine {
                    previous = try? own.value.repository.rawTree(id, cache: own.value.cache, like: previous)
                }
                return
            }
            var repository: Repository?
            var trees: [(ObjectID, RawTree)] = []
            for id in other {
                if let view = packs.value.readTree(id),
                    let tree = RawTree(canonical: view.bytes, owner: view.owner, like: trees.last?.1)
                {
                    trees.append((id, tree))
                    continue
                }
                if repository == nil { repository = try? Repository.open(at: path) }
                if let tree = try? repository?.rawTree(id, cache: nil) { trees.append((id, tree)) }
            }
            helper.trees = trees
        }
        for (id, tree) in helper.trees { cache.trees[id] = tree }
    }
}

/// What the second half read. Written by its iteration only, read after `concurrentPerform`
/// returns, which waits for every iteration.
private final class ReadAhead: @unchecked Sendable {
    var trees: [(ObjectID, RawTree)] = []
}

/// A value handed to worker threads whose safety the code around it ensures (said where it is made).
package struct UncheckedSendable<Value>: @unchecked Sendable {
    /// The value.
    package let value: Value

    /// Wraps `value`.
    package init(_ value: Value) {
        self.value = value
    }
}
