import Dispatch
import CardModel
import GitCore
import Glibc
import SystemCalls

/// The working tree following a change or a tree: files written (one by one, or many in bulk with two
/// `syncfs`), removed, made executable, then their index entries updated (`Deck+Index.swift`).
extension Deck {
    /// From this many files on, writing the working tree spreads over two threads (`inHalves`, from
    /// eight times as many) and is counted as an import's bulk write.
    static let bulkThreshold = 256

    /// From this many files on, a change updates the working tree with one `syncfs` per phase instead
    /// of one fsync per file: on this VM 100 files took 300–365 ms fsynced one by one and 10–72 ms with
    /// the two `syncfs` (a merge or fast-forward of 100 changed cards; docs/PERFORMANCE.md, Sync). A
    /// change of a few files keeps its fsyncs, which cost less than a flush of the whole file system.
    static let syncfsThreshold = 16

    /// Brings the working tree and index in line with a change just committed, from the bytes and blob
    /// ids already at hand (`files` and `updates` are parallel; for a path given twice the last wins).
    /// With `.ordered` the files are only written out: the caller's last fsync makes them durable.
    /// `skips`: paths git keeps out of the working tree (`WorkingTreeSkips`): only their index entries
    /// follow, with the skip-worktree bit.
    func updateWorkingTree(
        _ files: [(path: String, content: [UInt8]?)], updates: [TreeUpdate], tree: ObjectID, flush: FlushMode,
        indexLock: IndexLock? = nil, outside: Set<Int> = [], skips: WorkingTreeSkips = .none
    ) throws(StoreError) {
        guard let workingDirectory else { return }
        // Keyed by bytes: two names that differ only in Unicode normalization are two files.
        let keys = files.map { Array($0.path.utf8) }
        var last: [[UInt8]: Int] = [:]
        for (position, key) in keys.enumerated() { last[key] = position }
        var writes: [(full: String, bytes: [UInt8])] = []
        var entries: [(path: String, blob: ObjectID?, mode: UInt32)] = []
        var executables: [String] = []
        var skipModes: [String: UInt32] = [:]
        // Attributes files first: what they say decides how the other files are written, as in git's checkout.
        for position in Deck.attributesFilesFirst(files.map(\.path)) where last[keys[position]] == position {
            let file = files[position]
            let mode = updates[position].mode
            if skips.contains(file.path) {
                // Outside the sparse checkout: the entry follows (bit kept), the file is never written or removed.
                if updates[position].blob != nil { skipModes[file.path] = mode }
                entries.append((file.path, updates[position].blob, mode))
                continue
            }
            let full = try workingFile(file.path) ?? "\(workingDirectory)/\(file.path)"
            if outside.contains(position), let blob = updates[position].blob {
                // A link, a submodule, a huge file a merge carries: into the index only (`notCheckedOut`).
                entries.append((file.path, blob, mode))
            } else if let content = file.content, let blob = updates[position].blob {
                // As git's checkout writes it (CRLF endings, an LFS image): the blob stays the content.
                let bytes = try checkoutBytes(content, blob: blob, path: file.path)
                if Deck.isAttributesFile(file.path) {
                    try FileSystem.writeAtomically(bytes, to: full, flush: flush)
                    conversionCache = nil
                } else {
                    writes.append((full, bytes))
                }
                if mode == 0o100755 { executables.append(full) }
                entries.append((file.path, blob, mode))
            } else {
                try FileSystem.remove(full)
                if Deck.isAttributesFile(file.path) { conversionCache = nil }
                entries.append((file.path, nil, mode))
            }
        }
        if writes.count >= Deck.bulkThreshold {
            try Deck.writeFilesInBulk(writes, durable: durable)
        } else if writes.count >= Deck.syncfsThreshold && flush == .strict {
            try Deck.writeFilesInBulk(writes, durable: true, flushingRenames: false)
        } else {
            for write in writes { try FileSystem.writeAtomically(write.bytes, to: write.full, flush: flush) }
        }
        for path in executables { try Deck.setExecutable(path, 0o100755) }
        try updateIndexEntries(entries, tree: tree, flush: flush, indexLock: indexLock, skipModes: skipModes)
    }

    /// Brings the working tree and index in line with `tree` for the given paths only. `indexLock`:
    /// git's index lock as the caller holds it (and keeps holding). `skippingUnchanged`: a file already
    /// as `tree` has it is not written again (putting back).
    /// `skips`: what git keeps out of the working tree, as the caller read it before its write (else
    /// read from the index now).
    func updateWorkingTree(
        _ paths: [String], snapshotTree tree: ObjectID, indexLock: IndexLock? = nil, skippingUnchanged: Bool = false,
        skips known: WorkingTreeSkips? = nil
    ) throws(StoreError) {
        guard let workingDirectory else { return }
        let skips = known ?? workingTreeSkips(for: paths)
        var entries: [(path: String, blob: ObjectID?, mode: UInt32)] = []
        var skipModes: [String: UInt32] = [:]
        // Written together after the loop (many of them: two `syncfs`, not an fsync each).
        var writes: [(full: String, bytes: [UInt8], mode: UInt32)] = []
        // Attributes files first: what they say decides how the other files are written, as in git's checkout.
        for path in Deck.attributesFilesFirst(paths).map({ paths[$0] }) {
            let entry = try withStoreError("reading \(path)") { () throws(GitError) in
                try repository.treeEntry(in: tree, path: path)
            }
            if skips.contains(path) {
                // Outside the sparse checkout: the entry follows (bit kept), the file is left as it is.
                if let entry { skipModes[path] = entry.mode }
                entries.append((path, entry?.id, entry?.mode ?? 0))
                continue
            }
            let full = try workingFile(path) ?? "\(workingDirectory)/\(path)"
            // Putting back: a file a failed write never reached (a read-only one, say) is left alone.
            let present =
                skippingUnchanged ? workingBlobID(full, path: path) : nil
            if let entry, notCheckedOut(entry) == nil {
                if !skippingUnchanged || present != entry.id {
                    let bytes = try withStoreError("reading \(path)") { () throws(GitError) in
                        try repository.readBlob(entry.id)
                    }
                    let checkedOut = try checkoutBytes(bytes, blob: entry.id, path: path)
                    if Deck.isAttributesFile(path) {
                        try FileSystem.writeAtomically(checkedOut, to: full, durable: durable)
                        conversionCache = nil
                    } else {
                        writes.append((full, checkedOut, entry.mode))
                        entries.append((path, entry.id, entry.mode))
                        continue
                    }
                }
                try Deck.setExecutable(full, entry.mode)
                entries.append((path, entry.id, entry.mode))
            } else if let entry {
                // A link, a submodule, a huge file: in the index, not checked out (`notCheckedOut`); the
                // working tree keeps what it has there.
                entries.append((path, entry.id, entry.mode))
            } else {
                if !skippingUnchanged || present != nil {
                    try FileSystem.remove(full)
                    if Deck.isAttributesFile(path) { conversionCache = nil }
                }
                entries.append((path, nil, 0))
            }
        }
        // A path named twice is written once, as the last of them has it. Keyed by its bytes: Swift's
        // String equality takes an NFC and an NFD spelling for one path, which git keeps apart.
        var lastWrite: [[UInt8]: Int] = [:]
        for (position, write) in writes.enumerated() { lastWrite[Array(write.full.utf8)] = position }
        writes = writes.enumerated().filter { lastWrite[Array($0.element.full.utf8)] == $0.offset }.map(\.element)
        if writes.count >= Deck.syncfsThreshold && durable {
            try Deck.writeFilesInBulk(writes.map { ($0.full, $0.bytes) }, durable: true, flushingRenames: false)
        } else {
            for write in writes { try FileSystem.writeAtomically(write.bytes, to: write.full, durable: durable) }
        }
        for write in writes { try Deck.setExecutable(write.full, write.mode) }
        try updateIndexEntries(entries, tree: tree, indexLock: indexLock, skipModes: skipModes)
    }

    /// Gives a file just written the executable bits its git mode asks for (git keeps only that bit).
    static func setExecutable(_ path: String, _ mode: UInt32) throws(StoreError) {
        guard mode == 0o100755 else { return }
        guard chmod(path, 0o755) == 0 else {
            throw StoreError(.io, "cannot make \(path) executable: \(SystemError.reason(errno))")
        }
    }

    /// Writes many files: every temp file first, one `syncfs` (durable), then every rename, and one
    /// more `syncfs`; so a crash leaves each file either as it was or complete, at two flushes in all.
    /// `flushingRenames` false: no second `syncfs`, the renames left to the file system as a file written
    /// on its own leaves its rename (`FileSystem.writeAtomically`: data flushed, then renamed): what a
    /// commit's working tree needs, whose index and `main` follow (a crash between is `Deck+Recovery`'s).
    static func writeFilesInBulk(
        _ files: [(full: String, bytes: [UInt8])], durable: Bool, flushingRenames: Bool = true
    ) throws(StoreError) {
        var folders: Set<String> = []
        var temps: [String] = []
        temps.reserveCapacity(files.count)
        // The folders made here, parents first: taken away again when the write fails, so that a failure
        // leaves no empty card folders behind (on a disk out of inodes they were its last ones).
        var made: [String] = []
        defer {
            for temp in temps { unlink(temp) }
            // Only a folder left empty goes (rmdir refuses any other).
            if !temps.isEmpty { for folder in made.reversed() { rmdir(folder) } }
        }
        for file in files {
            let folder = FileSystem.parent(of: file.full)
            if folders.insert(folder).inserted {
                var missing: [String] = []
                var walk = folder
                while !walk.isEmpty && walk != "/" && !FileSystem.exists(walk) {
                    missing.append(walk)
                    walk = FileSystem.parent(of: walk)
                }
                made += missing.reversed()
                try FileSystem.makeDirectories(folder)
            }
            temps.append(FileSystem.temporaryPath(for: file.full, in: folder))
        }
        let paths = temps
        try inHalves(files.count) { (index) throws(StoreError) in
            try writeNewFile(files[index].bytes, to: paths[index])
        }
        if durable { try syncFileSystem(of: files[0].full) }
        try inHalves(files.count) { (index) throws(StoreError) in
            guard rename(paths[index], files[index].full) == 0 else {
                throw StoreError(.io, "cannot write \(files[index].full): \(SystemError.reason(errno))")
            }
        }
        temps.removeAll()
        if durable && flushingRenames { try syncFileSystem(of: files[0].full) }
    }

    /// Runs `step` for each index below `count`, the first half and the second half on two threads
    /// when there are many (creating and renaming a file is mostly the kernel's inode and folder-entry
    /// work, which spreads over both cores; the halves are not split by folder: grouping them so was
    /// measured no faster, docs/PERFORMANCE.md "Import, list, export"); the first error thrown, after
    /// both halves stop.
    static func inHalves(_ count: Int, _ step: (Int) throws(StoreError) -> Void) throws(StoreError) {
        // A hundred thousand files at ~20-100 µs each: worth a second thread from a few thousand.
        guard count >= Deck.bulkThreshold * 8, Repository.processors > 1 else {
            for index in 0..<count { try step(index) }
            return
        }
        var failures: [StoreError?] = [nil, nil]
        failures.withUnsafeMutableBufferPointer { slots in
            withoutActuallyEscaping(step) { step in
                let shared = UncheckedSendable((slots, step))
                DispatchQueue.concurrentPerform(iterations: 2) { half in
                    let (slots, step) = shared.value
                    let range = half == 0 ? 0..<(count / 2) : (count / 2)..<count
                    for index in range {
                        do throws(StoreError) {
                            try step(index)
                        } catch {
                            slots[half] = error
                            return
                        }
                    }
                }
            }
        }
        if let failure = failures[0] ?? failures[1] { throw failure }
    }

    /// Writes a file in place (a temp file of our own, renamed by the caller), without fsync.
    static func writeNewFile(_ bytes: [UInt8], to path: String) throws(StoreError) {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard fd >= 0 else { throw StoreError(.io, "cannot write \(path): \(SystemError.reason(errno))") }
        defer { close(fd) }
        let failure = FileSync.writeAll(fd, bytes)
        guard failure == 0 else { throw StoreError(.io, "cannot write \(path): \(SystemError.reason(failure))") }
    }

    /// Flushes the file system that holds `path` (one call instead of an fsync per file).
    static func syncFileSystem(of path: String) throws(StoreError) {
        let failure = FileSync.syncFileSystem(holding: FileSystem.parent(of: path))
        if failure != 0 {
            throw StoreError(.io, "cannot flush the working tree to disk: \(SystemError.reason(failure))")
        }
    }
}
