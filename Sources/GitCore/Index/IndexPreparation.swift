import Glibc

/// The index a commit with a working tree will need, written ahead on a second thread while the
/// commit itself is written (pack, ref, card files), then swapped in at the end.
///
/// A one-card commit on a 100,000-card deck spent ~6 ms hashing its 12 MB index after the card file
/// was in place, and writing and flushing it after that. The new index only waits for the card file
/// for the file's stat data; written ahead, a changed entry has none (`FileStat.unknown`: git and
/// libgit2 then compare that file by content, as after `git read-tree`, and a later patch fills it in:
/// `IndexPatch.build`'s `refresh`). The preparation rewrites the spare in place (`IndexSpare`) with
/// the index's checksum hashed beside it; `install` then takes `index.lock`, checks that the index
/// is still the very file the preparation read and the spare the file it wrote (else another writer
/// changed one and the caller patches the index as before), and swaps the spare in.
public final class IndexPreparation {
    /// What the preparation left, when the spare holds the new index: the identities of the index it
    /// read and of the spare it wrote, and the new index's checksum checkpoints (saved once it is the
    /// index).
    private typealias Prepared = (index: [Int], spare: [Int], checkpoints: IndexMidstates?)

    private let indexPath: String
    private let work: BackgroundWork<Prepared?>
    /// Set by the first `install`: a second would swap the old index back.
    private var installed = false

    /// Starts writing ahead the index at `indexPath` with `updates` (their stat data as the caller
    /// wants it recorded, usually `FileStat.unknown`), flushed as `flush` says. `refresh` is
    /// `IndexPatch.build`'s, called on the preparing thread, as is its `workingDirectory`. Nil where it
    /// cannot pay: a small index, no spare yet (the first patch keeps one), one processor, nothing
    /// flushed (`IndexSpare`).
    public init?(
        updates: [IndexUpdate], indexPath: String, flush: FlushMode, workingDirectory: String? = nil,
        refresh: @escaping @Sendable (_ path: String, _ blob: ObjectID) -> FileStat?
    ) {
        var index = stat()
        var spare = stat()
        guard !updates.isEmpty, flush != .none, Repository.processors > 1, stat(indexPath, &index) == 0,
            Int(index.st_size) >= IndexSpare.minimumSize, lstat(IndexSpare.path(for: indexPath), &spare) == 0
        else { return nil }
        self.indexPath = indexPath
        let shared = UncheckedSendable(updates)
        work = BackgroundWork { () -> Prepared? in
            guard case .success(let changes) = IndexPatch.sortedChanges(shared.value),
                case .success(let old) = IndexPatch.map(indexPath)
            else { return nil }
            defer { munmap(UnsafeMutableRawPointer(mutating: old.bytes.baseAddress), old.bytes.count) }
            let built = IndexPatch.build(
                old.bytes, changes: changes, indexTime: (old.seconds, old.nanoseconds), refresh: refresh,
                workingDirectory: workingDirectory)
            guard case .success(let image) = built else { return nil }
            // Hashed on one more thread while this one compares and writes the spare's pages.
            let hashed = BackgroundWork { image.checksum(over: old.bytes, indexPath: indexPath) }
            defer { _ = hashed.wait() }
            let spare = image.withVectors(over: old.bytes) { vectors in
                IndexSpare.prepare(vectors, checksum: { hashed.wait().digest }, indexPath: indexPath, flush: flush)
            }
            guard let spare else { return nil }
            return (old.identity, spare, hashed.wait().midstates)
        }
    }

    deinit {
        _ = work.wait()
    }

    /// Makes the index written ahead the index: waits for the preparation, takes `index.lock`, checks
    /// that the index and the spare are still the files the preparation read and wrote, and swaps the
    /// spare in. False, with nothing changed, when the preparation did not finish, either file
    /// changed meanwhile, another process holds `index.lock`, or on a second call: the caller then
    /// patches the index itself (and waits out the lock). `held`: `index.lock` as the caller holds it,
    /// and keeps holding (it gives it up).
    public func install(holding held: IndexLock? = nil) -> Bool {
        guard !installed, let prepared = work.wait() else { return false }
        guard let lock = held ?? (try? IndexLock(indexPath: indexPath)) else { return false }
        // A lock of our own is given up on every way out; the caller's only once it did its job.
        defer { if held == nil { lock.release() } }
        installed = true
        guard IndexPatch.identity(of: indexPath) == prepared.index,
            IndexPatch.identity(of: IndexSpare.path(for: indexPath)) == prepared.spare
        else { return false }
        guard IndexSpare.exchange(indexPath) else { return false }
        prepared.checkpoints?.save(for: indexPath)
        return true
    }
}
