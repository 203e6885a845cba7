import CardModel
import Dispatch
import GitCore
import Glibc
import Synchronization

extension DeckSnapshot {
    /// Every card in deck order (rank, then id), and every file under `cards/` that is not a valid card.
    ///
    /// Problems come in tree order. Reading and checking the card files is most of `cards list` of a
    /// big deck, so it runs on every core for big decks (`decodeAll`); the result is the same as one
    /// by one.
    public func allCards() throws(StoreError) -> (cards: [Card], problems: [CardProblem]) {
        try allCards(transforming: { $0 })
    }

    /// Every card in deck order as the bytes `encode` makes of it, and every file under `cards/` that
    /// is not a valid card (in tree order).
    ///
    /// `encode` runs on the worker that decoded the card, right after, on several threads at once:
    /// what a command needs from 100,000 cards (a table line, the card's JSON) is made in parallel,
    /// while the card is in the cache, and the card itself is freed there too. Bytes, not any type:
    /// a generic result crossing the module would be copied through runtime witnesses.
    package func allCards(encoding encode: @Sendable (Card) -> [UInt8]) throws(StoreError) -> (
        encoded: [[UInt8]], problems: [CardProblem]
    ) {
        let (encoded, problems) = try allCards(transforming: encode)
        return (encoded, problems)
    }

    /// Every valid card in deck order as the bytes `encode` makes of what a listing shows of it, and every
    /// file under `cards/` that is not a valid card (in tree order): `allCards(encoding:)` for `cards list`.
    ///
    /// A card file in the common canonical form is read straight into its listing, no card decoded
    /// (`CardListing.init?(canonical:expectedID:)`); any other goes through `Card.decode`, as there.
    package func allListings(encoding encode: @Sendable (CardListing) -> [UInt8]) throws(StoreError) -> (
        encoded: [[UInt8]], problems: [CardProblem]
    ) {
        let (encoded, problems) = try allFiles { (bytes, id) throws(CardFileError) in
            let listing: CardListing
            if let fast = CardListing(canonical: bytes, expectedID: id) {
                listing = fast
            } else {
                listing = CardListing(try DeckSnapshot.decodeCard(bytes, id: id))
            }
            return (encode(listing), DeckSortKey(rank: listing.rank, id: listing.id))
        }
        return (encoded, problems)
    }

    /// Every card in deck order as `transform` makes it; see `allCards(encoding:)`.
    func allCards<T>(transforming transform: @Sendable (Card) -> T) throws(StoreError) -> (
        cards: [T], problems: [CardProblem]
    ) {
        try allFiles { (bytes, id) throws(CardFileError) in
            let card = try DeckSnapshot.decodeCard(bytes, id: id)
            return (transform(card), DeckSortKey(card))
        }
    }

    /// Every card file in deck order as `decode` makes it (from its bytes and the id its path names),
    /// and the problems of those it refuses and of every other entry under `cards/`, in tree order.
    func allFiles<T>(_ decode: @Sendable ([UInt8], String) throws(CardFileError) -> (T, DeckSortKey))
        throws(StoreError) -> (cards: [T], problems: [CardProblem])
    {
        var entries: [Entry] = []
        var files: [CardFile] = []
        try forEachCardEntry { entry in
            guard let folder = entry.folder else {
                entries.append(.problem(DeckSnapshot.problem(entry.path, kind: entry.entry.kind)))
                return
            }
            let file = entry.entry
            guard file.kind == .blob, let id = CardID.id(folder: folder, fileName: file.name) else {
                entries.append(.problem(DeckSnapshot.problem(entry.path, kind: file.kind)))
                return
            }
            entries.append(.file(files.count))
            files.append(CardFile(folder: folder, name: file.name, blob: file.id, id: id))
        }
        let decoded = decodeAll(files, decode)
        var items: [T] = []
        var keys: [DeckSortKey] = []
        items.reserveCapacity(files.count)
        keys.reserveCapacity(files.count)
        var problems: [CardProblem] = []
        for entry in entries {
            switch entry {
            case .problem(let problem):
                problems.append(problem)
            case .file(let index):
                switch decoded[index] {
                case nil:
                    continue  // never: decodeAll fills every slot
                case .card(let item, let key):
                    items.append(item)
                    keys.append(key)
                case .problem(let error):
                    problems.append(
                        CardProblem(path: files[index].path, reason: error.reason, couldNotRead: error.couldNotRead))
                }
            }
        }
        return (Deck.positionsInDeckOrder(keys).map { items[$0] }, problems)
    }

    /// The problem of an entry that is not a card: of its kind, or of its name.
    static func problem(_ path: String, kind: TreeEntry.Kind) -> CardProblem {
        guard kind == .blob else { return CardProblem(path: path, reason: Deck.describe(kind: kind)) }
        return CardProblem(path: path, reason: "not a card file name (cards/<2 hex digits>/<lowercase uuid>.json)")
    }

    /// Visits every entry under `cards/` (two levels) in tree order. The path of an entry is built
    /// only when a message names it: building 100,000 paths showed in the profile of `cards list`.
    func forEachCardEntry(_ body: (PathedEntry) throws(StoreError) -> Void) throws(StoreError) {
        guard let tree else { return }
        guard
            let cardsEntry = try withStoreError(
                "reading cards/", { () throws(GitError) in try repository.treeEntry(in: tree, path: Deck.cardsFolder) })
        else {
            return
        }
        guard cardsEntry.kind == .tree else {
            try body(PathedEntry(folder: nil, entry: cardsEntry, isTop: true))
            return
        }
        let folders = try withStoreError("reading cards/") { () throws(GitError) in
            try repository.treeEntries(cardsEntry.id, cache: trees)
        }
        for folder in folders {
            guard folder.kind == .tree else {
                try body(PathedEntry(folder: nil, entry: folder, isTop: false))
                continue
            }
            let files = try withStoreError("reading \(Deck.cardsFolder)/\(folder.name)") { () throws(GitError) in
                try repository.treeEntries(folder.id, cache: trees)
            }
            for file in files {
                try body(PathedEntry(folder: folder.name, entry: file, isTop: false))
            }
        }
    }

    /// An entry under `cards/` and what its path is made of.
    struct PathedEntry {
        /// The folder in `cards/` that holds it; nil for `cards` itself or an entry directly in it.
        var folder: String?
        var entry: TreeEntry
        /// Whether this is the `cards` entry itself (not a folder).
        var isTop: Bool

        /// `cards`, `cards/<name>` or `cards/<folder>/<name>`.
        var path: String {
            if isTop { return Deck.cardsFolder }
            guard let folder else { return "\(Deck.cardsFolder)/\(entry.name)" }
            return "\(Deck.cardsFolder)/\(folder)/\(entry.name)"
        }
    }

    /// One entry of the listing, in tree order: a problem found from the tree alone, or a card file
    /// to read (an index into the files).
    private enum Entry {
        case problem(CardProblem)
        case file(Int)
    }

    /// A card file to read: a blob at a card path.
    struct CardFile: Sendable {
        var folder: String
        var name: String
        var blob: ObjectID
        /// The id its path names.
        var id: String

        var path: String { "\(Deck.cardsFolder)/\(folder)/\(name)" }
    }

    /// What reading one card file gave.
    enum DecodedFile<T> {
        /// The card as `transform` made it, and its place in the deck.
        case card(T, DeckSortKey)
        /// Why it is not a card, without its path.
        case problem(CardFileError)
    }

    /// Below this many files one thread does it all: waking threads would cost more than it saves.
    static let parallelThreshold = 2_000

    /// Card files read by this thread before their decoding is handed to a worker.
    static let batchSize = 1_000

    /// Reads and decodes every file. Every result is there (not nil); optional only so that the
    /// workers can fill the array in place.
    ///
    /// Big decks are read from the mapped packs by every worker at once (`decodeFromPacks`). Without
    /// them, a pipeline: libgit2 reading does not scale over threads (its pack locks are global: two
    /// threads with a handle each read 100,000 blobs no faster than one), decoding does. So one thread
    /// at a time reads a batch of blobs through this snapshot's handle while the others decode batches
    /// already read; whoever is free reads next, since reading is the slow part. `concurrentPerform`
    /// runs the steps on the calling thread too and nothing waits on a queue, so it finishes even when
    /// no other thread is free to help.
    func decodeAll<T>(
        _ files: [CardFile], _ decode: @Sendable ([UInt8], String) throws(CardFileError) -> (T, DeckSortKey)
    ) -> [DecodedFile<T>?] {
        let reader = try? BlobReader(repository)
        // Many cards: read from the mapped packs where they lie whole (`PackReader`, each blob checked
        // against its id by SHA-1 in hardware), libgit2 only for the rest. Through libgit2 each blob was
        // found again, inflated into a buffer of its own and hashed by its collision-detecting SHA-1: a
        // fifth of `cards list`'s instructions at 100,000 cards.
        let packs = files.count >= DeckSnapshot.parallelThreshold ? trees.reader(for: repository) : nil
        let processors = Repository.processors
        guard files.count >= DeckSnapshot.parallelThreshold, processors > 1 else {
            return files.map { file in
                DeckSnapshot.decode(
                    file, DeckSnapshot.read(file, in: repository, reader: reader, packs: packs), decode)
            }
        }
        if let packs { return decodeFromPacks(files, packs: packs, blobReader: reader, processors: processors, decode) }
        var results = [DecodedFile<T>?](repeating: nil, count: files.count)
        var blobs = [Result<[UInt8], CardFileError>?](repeating: nil, count: files.count)
        // The handles are used by one thread at a time: `Pipeline.reading` is the turn, taken and
        // given back under its mutex.
        let git = UncheckedSendable((repository: repository, reader: reader, packs: packs))
        let pipeline = Pipeline(count: files.count, batchSize: DeckSnapshot.batchSize)
        results.withUnsafeMutableBufferPointer { resultBuffer in
            blobs.withUnsafeMutableBufferPointer { blobBuffer in
                // Each index is written by exactly one worker, and read only after all have finished.
                let results = UncheckedSendable(resultBuffer)
                let blobs = UncheckedSendable(blobBuffer)
                DispatchQueue.concurrentPerform(iterations: processors) { _ in
                    while true {
                        switch pipeline.next() {
                        case .read(let batch):
                            for index in batch {
                                let (repository, reader, packs) = git.value
                                blobs.value[index] = DeckSnapshot.read(
                                    files[index], in: repository, reader: reader, packs: packs)
                            }
                            pipeline.finishedReading(batch)
                        case .decode(let batch):
                            for index in batch {
                                guard let blob = blobs.value[index] else { continue }
                                results.value[index] = DeckSnapshot.decode(files[index], blob, decode)
                                blobs.value[index] = nil
                            }
                        case .wait:
                            usleep(100)
                        case .done:
                            return
                        }
                    }
                }
            }
        }
        return results
    }

    /// `decodeAll` for a deck whose packs are mapped: every worker reads its batches from the packs
    /// through a reader of its own (`PackReader.sibling()`, no lock: the packs are only read) and decodes
    /// them, each blob decoded as soon as it is read, in the cache. What the packs do not hand back
    /// (a loose object, a delta, a file too big) is read afterwards on this thread, through libgit2, which
    /// reads or explains it as before. With the listing's decoder (`CardListing`) reading had become
    /// the slow half of the pipeline above, one thread at a time.
    private func decodeFromPacks<T>(
        _ files: [CardFile], packs: PackReader, blobReader: BlobReader?, processors: Int,
        _ decode: @Sendable ([UInt8], String) throws(CardFileError) -> (T, DeckSortKey)
    ) -> [DecodedFile<T>?] {
        var results = [DecodedFile<T>?](repeating: nil, count: files.count)
        let readers = [packs] + (1..<processors).map { _ in packs.sibling() }
        let batches = Batches(count: files.count, batchSize: DeckSnapshot.batchSize)
        results.withUnsafeMutableBufferPointer { resultBuffer in
            // Each index is written by exactly one worker, and read only after all have finished; each
            // worker uses only its own reader (`concurrentPerform` runs one iteration per reader).
            let shared = UncheckedSendable((resultBuffer, readers))
            DispatchQueue.concurrentPerform(iterations: readers.count) { worker in
                let (results, readers) = shared.value
                let reader = readers[worker]
                while let batch = batches.next() {
                    for index in batch {
                        let file = files[index]
                        guard let bytes = reader.readBlob(file.blob, limit: DeckSnapshot.readLimit) else { continue }
                        results[index] = DeckSnapshot.decode(file, .success(bytes), decode)
                    }
                }
            }
        }
        for sibling in readers.dropFirst() { packs.count(blobsReadBy: sibling) }
        for index in files.indices where results[index] == nil {
            let file = files[index]
            results[index] = DeckSnapshot.decode(
                file, DeckSnapshot.read(file, in: repository, reader: blobReader, packs: nil), decode)
        }
        return results
    }

    /// A card file's bytes, or why they cannot be read.
    private static func read(_ file: CardFile, in repository: Repository, reader: BlobReader?, packs: PackReader?)
        -> Result<[UInt8], CardFileError>
    {
        Result { () throws(CardFileError) in
            try readCardBytes(blob: file.blob, in: repository, reader: reader, packs: packs)
        }
    }

    private static func decode<T>(
        _ file: CardFile, _ blob: Result<[UInt8], CardFileError>,
        _ decode: ([UInt8], String) throws(CardFileError) -> (T, DeckSortKey)
    ) -> DecodedFile<T> {
        do {
            let (item, key) = try decode(blob.get(), file.id)
            return .card(item, key)
        } catch {
            return .problem(error)
        }
    }
}

/// Who reads or decodes which batch next, for `decodeAll`'s workers.
private final class Pipeline: Sendable {
    enum Step {
        case read(Range<Int>)
        case decode(Range<Int>)
        case wait
        case done
    }

    private struct State {
        var nextToRead = 0
        var reading = false
        var readyToDecode: [Range<Int>] = []
    }

    private let state = Mutex(State())
    private let count: Int
    private let batchSize: Int

    init(count: Int, batchSize: Int) {
        self.count = count
        self.batchSize = batchSize
    }

    /// The next step for a free worker: reading when nobody is (it is the slow part), else
    /// decoding a batch already read, else waiting for one, or done when nothing is left.
    func next() -> Step {
        state.withLock { state in
            if !state.reading && state.nextToRead < count {
                state.reading = true
                let batch = state.nextToRead..<min(state.nextToRead + batchSize, count)
                state.nextToRead = batch.upperBound
                return .read(batch)
            }
            if let batch = state.readyToDecode.popLast() { return .decode(batch) }
            return state.reading ? .wait : .done
        }
    }

    /// Gives back the turn to read, with the batch just read (its blobs written before this call).
    func finishedReading(_ batch: Range<Int>) {
        state.withLock { state in
            state.reading = false
            state.readyToDecode.append(batch)
        }
    }
}

/// The next batch of indices for a free worker (`decodeFromPacks`).
private final class Batches: Sendable {
    private let nextStart = Mutex(0)
    private let count: Int
    private let batchSize: Int

    init(count: Int, batchSize: Int) {
        self.count = count
        self.batchSize = batchSize
    }

    /// The next batch, or nil when every index has been handed out.
    func next() -> Range<Int>? {
        nextStart.withLock { start in
            guard start < count else { return nil }
            let batch = start..<min(start + batchSize, count)
            start = batch.upperBound
            return batch
        }
    }
}
