import CardModel
import CardStore
import DeckMerge
import GitCore
import Glibc
import SystemCalls

/// One row of the results table.
struct Row {
    var operation: String
    var cards: Int
    /// Our median in ms (nil: not measured).
    var ours: Double?
    /// The git CLI's median in ms (nil: no git counterpart).
    var git: Double?
    /// Our peak RSS in KB.
    var peak: Int?
    /// What git ran, or a note.
    var note: String = ""
}

/// The benchmark: decks of each size, our operations against the git CLI's on an equivalent repo.
final class Bench {
    let root: String
    let cardsBinary: String
    let repeats: Int
    /// Only the merge rows (`--only merge`): a --bare deck, no working-tree deck, no git twin.
    let onlyMerge: Bool
    /// Only the one-card rows (`--only ops`): the list, export, merge and sync rows are skipped.
    let onlyOps: Bool
    /// Only the list and export rows with the vCard export and the published page (`--only share`).
    var onlyShare = false
    /// Only the sync rows (`--only sync`), from the imports and the git twin.
    var onlySync = false
    var rows: [Row] = []
    var generator = SplitMix(seed: 42)

    init(root: String, cardsBinary: String, repeats: Int, onlyMerge: Bool = false, onlyOps: Bool = false) {
        self.root = root
        self.cardsBinary = cardsBinary
        self.repeats = repeats
        self.onlyMerge = onlyMerge
        self.onlyOps = onlyOps
    }

    func record(_ row: Row) {
        rows.append(row)
        let ours = row.ours.map { Report.ms($0) } ?? "-"
        let git = row.git.map { Report.ms($0) } ?? "-"
        note("\(row.operation) @ \(row.cards): ours \(ours), git \(git) \(row.note)")
    }

    func cards(_ arguments: [String], capture: Bool = false, peakOwn: Bool = false) -> (
        run: ProcessRun, output: String
    ) {
        Measure.run(cardsBinary, arguments, capture: capture, peakOwn: peakOwn)
    }

    @discardableResult
    func git(_ directory: String, _ arguments: [String]) -> ProcessRun {
        Measure.must("git", ["-C", directory] + arguments)
    }

    /// A new card with a deterministic id.
    func newCard(_ label: String) -> Card {
        let id = CardID.random(using: &generator)
        return Card(
            id: id, title: "\(label) \(id.prefix(8))", indexURL: "https://example.com/\(id.prefix(8))",
            platformName: "Example", platformIcon: "example", color: "blue", rank: "a0")
    }

    /// Writes out everything the set-up left dirty in the page cache (the imports, the git twin's
    /// 100,000 copied files and loose objects: hundreds of MB at 100,000 cards), so that the kernel's
    /// writeback of it does not run under the measurements: an fsync there, ours or git's, waited
    /// behind it (a `--bare` one-card commit at 100,000 cards took 8.4 ms instead of ~6 ms).
    func settle() {
        Glibc.sync()
    }

    /// Everything for one deck size.
    func run(size: Int) throws {
        let folder = "\(root)/n\(size)"
        _ = mkdir(folder, 0o755)
        note("== \(size) cards")
        // The import file: JSON Lines without ranks (import hands them out).
        var lines: [UInt8] = []
        for index in 0..<size {
            var card = newCard("Card \(index)")
            card.fields["rank"] = nil
            lines += JSONValue.object(card.fields).canonicalBytes().filter { $0 != 0x0a }
            lines.append(0x0a)
        }
        let importFile = "\(folder)/cards.jsonl"
        try FileSystem.writeAtomically(lines, to: importFile, durable: false)

        let ours = "\(folder)/ours"
        let bare = "\(folder)/bare"
        let twin = "\(folder)/git"
        if onlyMerge {
            Measure.must(cardsBinary, ["init", "--bare", bare, "--name", "Bench"])
            if cards(["--deck", bare, "import", importFile]).run.status != 0 { fail("cards import failed at \(size)") }
            settle()
            try merges(size: size, bare: bare)
            return
        }
        Measure.must(cardsBinary, ["init", ours, "--name", "Bench"])
        let imported = cards(["--deck", ours, "import", importFile], peakOwn: true).run
        if imported.status != 0 { fail("cards import failed at \(size)") }
        Measure.must(cardsBinary, ["init", "--bare", bare, "--name", "Bench"])
        let importedBare = cards(["--deck", bare, "import", importFile], peakOwn: true).run
        // The git twin: the same files, added and committed by the git CLI.
        let gitImport = Measure.time {
            Measure.must("git", ["init", "-q", "-b", "main", twin])
            git(twin, ["config", "core.fsync", "all"])
            Measure.must("cp", ["-r", "\(ours)/cards", "\(ours)/deck.json", "\(ours)/.gitattributes", twin])
            git(twin, ["add", "-A"])
            git(twin, ["commit", "-q", "-m", "Import"])
        }
        // Packed like ours, and no `gc --auto` running in the background during the measurements.
        git(twin, ["repack", "-adq"])
        git(twin, ["config", "gc.auto", "0"])
        settle()
        record(
            Row(
                operation: "import N cards (process)", cards: size, ours: imported.milliseconds, git: gitImport,
                peak: imported.peakKilobytes, note: "git: cp files + git add -A + git commit; one run"))
        record(
            Row(
                operation: "import N cards, --bare (process)", cards: size, ours: importedBare.milliseconds,
                git: gitImport, peak: importedBare.peakKilobytes, note: "one run"))

        if onlyShare {
            reads(size: size, ours: ours, twin: twin)
            return
        }
        if onlySync {
            try sync(size: size, folder: folder, ours: ours, twin: twin)
            return
        }
        try oneCardOperations(size: size, ours: ours, bare: bare, twin: twin)
        if !onlyOps {
            reads(size: size, ours: ours, twin: twin)
            try merges(size: size, bare: bare)
            try sync(size: size, folder: folder, ours: ours, twin: twin)
        }
        // The decks stay until the whole run ends (`main.swift` removes them): on a file system without
        // a journal, ext4 skips inodes freed in the last minutes when it allocates new ones, so removing
        // a size's ~40,000 files here made the next size's working-tree import scan past them.
    }

    // MARK: add, edit, delete of one card

    func oneCardOperations(size: Int, ours: String, bare: String, twin: String) throws {
        let decks = [("", ours), (", --bare", bare)]
        for (label, path) in decks {
            // In-process library calls, with fsync (the default).
            let deck = try Deck.open(at: path, searchUpward: false)
            var ids: [String] = []
            var samples: [[Double]] = [[], [], []]
            Measure.resetPeak()
            for index in 0..<repeats {
                var id = ""
                samples[0].append(
                    try Measure.time {
                        id = try deck.add(title: "Library \(index)", indexURL: "https://example.com/l\(index)").id
                    })
                ids.append(id)
            }
            for id in ids {
                samples[1].append(try Measure.time { try deck.edit(id, CardEdit(title: "Edited in-process")) })
            }
            for id in ids { samples[2].append(try Measure.time { try deck.delete([id]) }) }
            let peak = Measure.peakKilobytes()
            for (index, name) in ["add", "edit", "delete"].enumerated() {
                record(
                    Row(
                        operation: "\(name) one card, in-process\(label)", cards: size,
                        ours: Measure.median(samples[index]), git: nil, peak: peak))
            }
        }
        // The whole `cards` process on each deck and git's commands on the twin, taking turns run by
        // run: this VM's fsync latency drifts from minute to minute, and a ratio is only fair when both
        // sides were measured in the same minutes. Each timed run follows an untimed one of the same
        // kind on the same deck (as hyperfine's `--warmup`), ours and git's alike: taking turns, a run
        // otherwise started with the caches full of the previous command's pages (a `--bare` commit
        // at 100,000 cards: ~5.3 ms after another, ~5.8 ms after a working-tree one).
        var processSamples = [[[ProcessRun]]](repeating: [[], [], []], count: decks.count)
        var gitSamples: [[Double]] = [[], [], []]
        var ids = [[String]](repeating: [], count: decks.count)
        var spareIDs = [[String]](repeating: [], count: decks.count)
        var gitPaths: [String] = []
        var spareGitPaths: [String] = []
        func addCard(_ path: String, _ title: String, _ url: String) -> (run: ProcessRun, id: String) {
            let result = cards(["--deck", path, "add", "--title", title, "--url", url], capture: true)
            return (result.run, String(result.output.prefix(36)))
        }
        // The card made before the clock starts, as for ours (`cards add` gets it on its command line).
        func gitAdd(_ card: Card) -> String {
            let gitPath = CardID.path(for: card.id)
            try? FileSystem.writeAtomically(card.encoded(), to: "\(twin)/\(gitPath)", durable: false)
            git(twin, ["add", gitPath])
            git(twin, ["commit", "-q", "-m", "Add card"])
            return gitPath
        }
        func gitEdit(_ gitPath: String) {
            var bytes = (try? FileSystem.read("\(twin)/\(gitPath)")) ?? []
            bytes.insert(contentsOf: Array("{\"edited\": true, ".utf8), at: 0)
            bytes.remove(at: 17)  // the array's own "{"
            try? FileSystem.writeAtomically(bytes, to: "\(twin)/\(gitPath)", durable: false)
            git(twin, ["add", gitPath])
            git(twin, ["commit", "-q", "-m", "Edit card"])
        }
        func gitDelete(_ gitPath: String) {
            git(twin, ["rm", "-q", gitPath])
            git(twin, ["commit", "-q", "-m", "Delete card"])
        }
        for index in 0..<repeats {
            for (position, (_, path)) in decks.enumerated() {
                spareIDs[position].append(addCard(path, "Spare \(index)", "https://example.com/s\(index)").id)
                let added = addCard(path, "Process \(index)", "https://example.com/p\(index)")
                processSamples[position][0].append(added.run)
                ids[position].append(added.id)
            }
            spareGitPaths.append(gitAdd(newCard("Git spare")))
            let card = newCard("Git")
            var gitPath = ""
            gitSamples[0].append(Measure.time { gitPath = gitAdd(card) })
            gitPaths.append(gitPath)
        }
        for index in 0..<repeats {
            for (position, (_, path)) in decks.enumerated() {
                if cards(["--deck", path, "edit", spareIDs[position][index], "--title", "Warm"]).run.status != 0 {
                    fail("cards edit (warm-up) failed on \(path)")
                }
                processSamples[position][1].append(
                    cards(["--deck", path, "edit", ids[position][index], "--title", "Edited"]).run)
            }
            gitEdit(spareGitPaths[index])
            gitSamples[1].append(Measure.time { gitEdit(gitPaths[index]) })
        }
        for index in 0..<repeats {
            for (position, (_, path)) in decks.enumerated() {
                if cards(["--deck", path, "delete", spareIDs[position][index]]).run.status != 0 {
                    fail("cards delete (warm-up) failed on \(path)")
                }
                processSamples[position][2].append(cards(["--deck", path, "delete", ids[position][index]]).run)
            }
            gitDelete(spareGitPaths[index])
            gitSamples[2].append(Measure.time { gitDelete(gitPaths[index]) })
        }
        for (position, (label, path)) in decks.enumerated() {
            // One more of each through /usr/bin/time for the process's own peak memory (not timed).
            let extra = cards(
                ["--deck", path, "add", "--title", "Peak", "--url", "https://example.com/peak"], capture: true,
                peakOwn: true)
            let extraID = String(extra.output.prefix(36))
            let peaks = [
                extra.run.peakKilobytes,
                cards(["--deck", path, "edit", extraID, "--title", "Peak 2"], peakOwn: true).run.peakKilobytes,
                cards(["--deck", path, "delete", extraID], peakOwn: true).run.peakKilobytes,
            ]
            for (index, name) in ["add", "edit", "delete"].enumerated() {
                let runs = processSamples[position][index]
                if runs.contains(where: { $0.status != 0 }) { fail("cards \(name) failed on \(path)") }
                record(
                    Row(
                        operation: "\(name) one card, cards process\(label)", cards: size,
                        ours: Measure.median(runs.map(\.milliseconds)), git: Measure.median(gitSamples[index]),
                        peak: peaks[index],
                        note: index == 2 ? "git: git rm + git commit" : "git: git add + git commit"))
            }
        }
    }

    // MARK: list and export

    func reads(size: Int, ours: String, twin: String) {
        let rounds = size >= 100_000 ? 3 : repeats
        // `git cat-file --batch` reading the very blobs `cards list` reads (their ids, listed before the
        // clock starts): the fair anchor for a list, which reads and decodes every card (issue 37);
        // `git ls-tree -r HEAD` reads only the trees (in the note).
        let blobList = "\(root)/blobs-\(size).txt"
        let tree = Measure.run("git", ["-C", ours, "ls-tree", "-r", "HEAD", "cards"], capture: true).output
        let ids = tree.split(separator: "\n").compactMap { $0.split(separator: " ").dropFirst(2).first }
            .map { $0.prefix(40) }
        try? FileSystem.writeAtomically(Array(ids.joined(separator: "\n").utf8) + [0x0a], to: blobList, durable: false)
        var treeRuns: [Double] = []
        for _ in 0..<rounds { treeRuns.append(git(twin, ["ls-tree", "-r", "HEAD"]).milliseconds) }
        for (name, arguments, gitArguments, input) in [
            ("list", ["list"], ["-C", ours, "cat-file", "--batch"], Optional(blobList)),
            ("export", ["export"], ["-C", twin, "archive", "HEAD"], nil),
        ] {
            var runs: [ProcessRun] = []
            var gitRuns: [Double] = []
            for _ in 0..<rounds {
                runs.append(cards(["--deck", ours] + arguments).run)
                gitRuns.append(Measure.must("git", gitArguments, input: input).milliseconds)
            }
            if runs.contains(where: { $0.status != 0 }) { fail("cards \(name) failed") }
            let peak = cards(["--deck", ours] + arguments, peakOwn: true).run.peakKilobytes
            record(
                Row(
                    operation: "cards \(name) of the deck (process)", cards: size,
                    ours: Measure.median(runs.map(\.milliseconds)), git: Measure.median(gitRuns), peak: peak,
                    note: "git: git \(gitArguments.dropFirst(2).joined(separator: " "))"
                        + (name == "list"
                            ? " of the same \(ids.count) blobs (git ls-tree -r HEAD: "
                                + "\(Report.ms(Measure.median(treeRuns))))" : "")))
        }
        shares(size: size, ours: ours, rounds: rounds)
    }

    /// The vCard export and the published page beside `cards export` to JSON (the "git" column holds the
    /// JSON export's time here: the target is within 2x of it).
    func shares(size: Int, ours: String, rounds: Int) {
        let folder = "\(root)/publish-\(size)"
        let json = ["export"]
        for (name, arguments) in [
            ("export --format vcard", ["export", "--format", "vcard"]), ("publish", ["publish", folder]),
        ] {
            var runs: [ProcessRun] = []
            var jsonRuns: [Double] = []
            for _ in 0..<rounds {
                runs.append(cards(["--deck", ours] + arguments).run)
                jsonRuns.append(cards(["--deck", ours] + json).run.milliseconds)
            }
            if runs.contains(where: { $0.status != 0 }) { fail("cards \(name) failed") }
            let peak = cards(["--deck", ours] + arguments, peakOwn: true).run.peakKilobytes
            record(
                Row(
                    operation: "cards \(name) of the deck (process)", cards: size,
                    ours: Measure.median(runs.map(\.milliseconds)), git: Measure.median(jsonRuns), peak: peak,
                    note: "beside: cards export (JSON), target within 2x"))
        }
    }

    // MARK: merge

    func merges(size: Int, bare: String) throws {
        // The deck that sets the merges up and resets main between them, opened without fsync: open all
        // along, a deck with fsync would keep libgit2's on for the unflushed merges too (`Libgit2.claimFsync`).
        setenv("CARDS_FSYNC", "0", 1)
        let deck = try Deck.open(at: bare, searchUpward: false)
        unsetenv("CARDS_FSYNC")
        guard let base = try deck.headCommit() else { fail("no commit in \(bare)") }
        // The cards each side edits, read before the measurements: the 100,000 decoded cards this takes
        // are the bench's, not the merge's.
        var editedCards: [Int: [Card]] = [:]
        do {
            let all = try deck.snapshot().allCards().cards
            for changed in [100, 1000] where all.count >= 2 * changed {
                editedCards[changed] = Array(all[0..<2 * changed])
            }
        }
        // Two sides from `base`, each editing `changed` cards of `pool` (side A the first ones, side B the
        // next), their titles labelled `label`, so that no merge of them was ever written.
        func sides(_ pool: [Card], _ changed: Int, _ label: String) throws -> (a: ObjectID, b: ObjectID) {
            let current = try deck.headCommit()
            try deck.repository.updateReference(deck.branch, to: base, expected: current, logMessage: "bench: reset")
            try deck.importCards(edited(pool.prefix(changed), "Side A \(label)"), source: "")
            guard let sideA = try deck.headCommit() else { fail("no side A") }
            try deck.repository.updateReference(deck.branch, to: base, expected: sideA, logMessage: "bench: reset")
            try deck.importCards(edited(pool.suffix(changed), "Side B \(label)"), source: "")
            guard let sideB = try deck.headCommit() else { fail("no side B") }
            try deck.repository.updateReference(deck.branch, to: sideA, expected: sideB, logMessage: "bench")
            // The setup's packs combined now, one short of the limit a commit combines at: the merge
            // measured next adds one pack and combines none (a commit of any kind pays that, about one
            // in eight; git merge-tree's loose trees wait for a `git gc` no row counts either).
            try PackConsolidation.consolidate(deck.repository, limit: PackConsolidation.limit - 1)
            // And flushed, so that neither tool's merge waits on the setup's writes.
            _ = FileSync.syncFileSystem(holding: bare)
            return (sideA, sideB)
        }
        // Peak memory from a `cards merge` process of two sides of its own, for both rows before any run
        // adds its sides' packs (the in-process figure would be this benchmark's own high-water mark: it
        // holds decks of its own). Named, so a kept deck can replay it:
        // `git merge-tree --write-tree side-a-100 side-b-100`, `cards merge side-b-100` from side-a-100.
        var peaks: [Int: Int] = [:]
        for changed in [100, 1000] {
            guard let pool = editedCards[changed] else { continue }
            let peakSides = try sides(pool, changed, "p")
            git(bare, ["update-ref", "refs/heads/side-a-\(changed)", peakSides.a.hex])
            git(bare, ["update-ref", "refs/heads/side-b-\(changed)", peakSides.b.hex])
            let process = cards(["--deck", bare, "merge", "side-b-\(changed)"], peakOwn: true).run
            if process.status != 0 { fail("cards merge side-b-\(changed) failed on \(bare)") }
            peaks[changed] = process.peakKilobytes
        }
        for changed in [100, 1000] {
            guard let pool = editedCards[changed] else {
                record(
                    Row(
                        operation: "merge, \(changed) changed each side", cards: size, ours: nil, git: nil, peak: nil,
                        note: "n/a (deck too small)"))
                continue
            }
            var samples: [Double] = []
            var cpuSamples: [Double] = []
            var gitSamples: [Double] = []
            // git merge-tree again on the same two commits, all its trees stored: the figure this bench
            // compared against before 2.1.1 (see docs/PERFORMANCE.md, "sixth round").
            var gitRepeatSamples: [Double] = []
            var unflushedSamples: [Double] = []
            var processSamples: [Double] = []
            for run in 0..<repeats {
                // Each merge, ours and git's, of two sides never merged before: a merge's new trees are
                // written, as in every real merge. (Merging the same two commits again, git merge-tree
                // finds its trees stored and writes none: several times faster, and no merge a user makes.)
                let gitSides = try sides(pool, changed, "g\(run)")
                let mergeTree = ["merge-tree", "--write-tree", gitSides.a.hex, gitSides.b.hex]
                gitSamples.append(git(bare, mergeTree).milliseconds)
                gitRepeatSamples.append(git(bare, mergeTree).milliseconds)
                let ours = try sides(pool, changed, "\(run)")
                // A deck opened for each run, before the clock starts: libgit2's object cache starts cold,
                // the packs' indexes mapped (the process row below counts the opening and the start).
                do {
                    // Closed at the end of this block, with its claim on libgit2's fsync.
                    let fresh = try Deck.open(at: bare, searchUpward: false)
                    let cpuBefore = Measure.cpuMilliseconds()
                    samples.append(
                        try Measure.time {
                            let report = try fresh.merge(
                                theirs: ours.b, theirsName: "B\(run)", policy: .keep, dryRun: false)
                            if report.kind != .merged { fail("the merge did not merge") }
                        })
                    cpuSamples.append(Measure.cpuMilliseconds() - cpuBefore)
                }
                // The same with nothing flushed (`CARDS_FSYNC=0`), as git merge-tree writes its loose trees
                // (git flushes no loose object by default, and merge-tree moves no ref).
                let unflushedSides = try sides(pool, changed, "u\(run)")
                setenv("CARDS_FSYNC", "0", 1)
                let unflushed = try Deck.open(at: bare, searchUpward: false)
                unsetenv("CARDS_FSYNC")
                unflushedSamples.append(
                    try Measure.time {
                        let report = try unflushed.merge(
                            theirs: unflushedSides.b, theirsName: "B\(run) unflushed", policy: .keep, dryRun: false)
                        if report.kind != .merged { fail("the merge did not merge") }
                    })
                if Libgit2.fsyncClaimed { fail("libgit2's fsync was on for the unflushed merge") }
                // A whole `cards merge` process, nothing flushed: start-up and opening the deck counted, as
                // git merge-tree's are.
                let processSides = try sides(pool, changed, "c\(run)")
                setenv("CARDS_FSYNC", "0", 1)
                let process = cards(["--deck", bare, "merge", processSides.b.hex]).run
                unsetenv("CARDS_FSYNC")
                if process.status != 0 { fail("cards merge \(processSides.b.hex) failed on \(bare)") }
                processSamples.append(process.milliseconds)
            }
            let current = try deck.headCommit()
            try deck.repository.updateReference(deck.branch, to: base, expected: current, logMessage: "bench: reset")
            let repeated = Report.ms(Measure.median(gitRepeatSamples))
            record(
                Row(
                    operation: "merge, \(changed) changed each side (in-process)", cards: size,
                    ours: Measure.median(samples), git: Measure.median(gitSamples), peak: peaks[changed],
                    note: "git: git merge-tree --write-tree, a process, each run of two sides never merged before "
                        + "(the same merge repeated, its trees stored: \(repeated)); git flushes none of its loose "
                        + "trees; our CPU \(Report.ms(Measure.median(cpuSamples))); peak: a `cards merge` process"))
            record(
                Row(
                    operation: "merge, \(changed) changed each side, nothing flushed (in-process)", cards: size,
                    ours: Measure.median(unflushedSamples), git: Measure.median(gitSamples), peak: nil,
                    note: "CARDS_FSYNC=0; git merge-tree flushes none of its loose trees either"))
            record(
                Row(
                    operation: "merge, \(changed) changed each side, nothing flushed (process)", cards: size,
                    ours: Measure.median(processSamples), git: Measure.median(gitSamples), peak: nil,
                    note: "`CARDS_FSYNC=0 cards merge`, a whole process against git merge-tree's (git's repeat: "
                        + "\(repeated))"))
        }
    }

    /// Copies of `cards` retitled "<label> <id prefix>": one side's edits.
    func edited(_ cards: ArraySlice<Card>, _ label: String) -> [Card] {
        cards.map { card in
            var copy = card
            copy.title = "\(label) \(card.id.prefix(8))"
            return copy
        }
    }

    // MARK: sync

    /// A bare `server` cloned from `repository`, which gets it as origin, and a `secondDevice` cloned
    /// from it, both through `network`'s URL for the server.
    func shareThroughServer(_ repository: String, server: String, secondDevice: String, network: Network) {
        Measure.must("git", ["clone", "-q", "--bare", repository, server])
        git(repository, ["remote", "add", "origin", network.url(server)])
        git(repository, ["fetch", "-q", "origin"])
        Measure.must("git", ["clone", "-q", network.url(server), secondDevice])
    }

    /// How the devices reach their server in a sync row.
    enum Network {
        case file
        case ssh(LoopbackSSH)

        func url(_ path: String) -> String {
            switch self {
            case .file: "file://\(path)"
            case .ssh(let daemon): "ssh://\(daemon.user)@127.0.0.1:\(daemon.port)\(path)"
            }
        }

        var name: String {
            switch self {
            case .file: "file://"
            case .ssh: "ssh to 127.0.0.1"
            }
        }
    }

    /// Sync rows over file:// and, where OpenSSH's sshd can be started here, over ssh on loopback.
    func sync(size: Int, folder: String, ours: String, twin: String) throws {
        // Copies made before anything changed, for the rows over ssh.
        let oursForSSH = "\(folder)/ours-ssh"
        let twinForSSH = "\(folder)/twin-ssh"
        copyRepository(ours, to: oursForSSH)
        copyRepository(twin, to: twinForSSH)
        try sync(size: size, folder: folder, ours: ours, twin: twin, network: .file)
        switch LoopbackSSH.start(in: "\(folder)/sshd") {
        case .success(let daemon):
            defer { daemon.stop() }
            try sync(
                size: size, folder: "\(folder)/over-ssh", ours: oursForSSH, twin: twinForSSH, network: .ssh(daemon))
        case .failure(let reason):
            print("note: no sync rows over ssh: \(reason.reason)")
        }
    }

    /// How many exchanges each sync row takes the median of (issue 37: one run was too noisy to read).
    static let syncRounds = 5

    /// A copy of a deck or repository with its index refreshed (`git update-index --refresh`): `cp -a`
    /// gives every file a new inode and ctime, and the first command to look would read and hash all of
    /// them (git and cards alike; ~6 s at 100,000 cards, once). Set-up, not measured: as a deck that was
    /// never copied.
    func copyRepository(_ source: String, to destination: String) {
        Measure.must("cp", ["-a", source, destination])
        _ = Measure.run("git", ["-C", destination, "update-index", "-q", "--refresh"])
    }

    func sync(size: Int, folder: String, ours: String, twin: String, network: Network) throws {
        Measure.must("mkdir", ["-p", folder])
        let changed = min(100, size / (2 * Bench.syncRounds))
        let oursServer = "\(folder)/server.git"
        let oursOther = "\(folder)/device-b"
        // The same exchange through libgit2's transport, from a copy made before anything changed.
        let oursLibgit2 = "\(folder)/ours-libgit2"
        copyRepository(ours, to: oursLibgit2)
        shareThroughServer(ours, server: oursServer, secondDevice: oursOther, network: network)
        shareThroughServer(
            oursLibgit2, server: "\(folder)/server-libgit2.git", secondDevice: "\(folder)/device-c", network: network)
        // git: the same exchange between two clones of a bare server.
        let server = "\(folder)/git-server.git"
        let other = "\(folder)/git-b"
        shareThroughServer(twin, server: server, secondDevice: other, network: network)
        git(other, ["config", "core.fsync", "all"])
        let all = try Deck.open(at: ours, searchUpward: false).snapshot().allCards().cards
        let listed = Measure.run("git", ["-C", twin, "ls-files", "cards"], capture: true).output
        let paths = listed.split(separator: "\n").map(String.init)
        var oursRuns: [ProcessRun] = []
        var libgit2Runs: [ProcessRun] = []
        var gitRuns: [Double] = []
        // Each round another device changes `changed` cards and pushes, this one changes as many others,
        // then syncs: new cards each round, so each round moves new objects both ways.
        for round in 0..<Bench.syncRounds {
            let theirs = (2 * round * changed)..<((2 * round + 1) * changed)
            let mine = ((2 * round + 1) * changed)..<((2 * round + 2) * changed)
            for (device, deck, transport) in [
                (oursOther, ours, "git"), ("\(folder)/device-c", oursLibgit2, "libgit2"),
            ] {
                if round > 0 { git(device, ["pull", "-q", "--ff-only", "origin", "main"]) }
                try Deck.open(at: device, searchUpward: false).importCards(
                    edited(all[theirs], "Device B \(round)"), source: "")
                git(device, ["push", "-q", "origin", "main"])
                try Deck.open(at: deck, searchUpward: false).importCards(
                    edited(all[mine], "Device A \(round)"), source: "")
                settle()
                if transport == "libgit2" { setenv("CARDS_TRANSPORT", "libgit2", 1) }
                let run = cards(["--deck", deck, "sync"], peakOwn: true).run
                unsetenv("CARDS_TRANSPORT")
                if transport == "git" { oursRuns.append(run) } else { libgit2Runs.append(run) }
            }
            if round > 0 { git(other, ["pull", "-q", "--ff-only", "origin", "main"]) }
            for (device, label, slice) in [(other, "B", theirs), (twin, "A", mine)] {
                for path in paths[slice] {
                    var bytes = (try? FileSystem.read("\(device)/\(path)")) ?? []
                    bytes.insert(contentsOf: Array("{\"device\": \"\(label)\(round)\", ".utf8), at: 0)
                    bytes.remove(at: 15 + label.utf8.count + "\(round)".utf8.count)
                    try FileSystem.writeAtomically(bytes, to: "\(device)/\(path)", durable: false)
                }
                git(device, ["commit", "-q", "-a", "-m", "Device \(label) edits \(round)"])
                if label == "B" { git(device, ["push", "-q", "origin", "main"]) }
            }
            settle()
            gitRuns.append(
                Measure.time {
                    git(twin, ["fetch", "-q", "origin"])
                    git(twin, ["merge", "-q", "--no-edit", "origin/main"])
                    git(twin, ["push", "-q", "origin", "main"])
                })
        }
        let over = if case .file = network { "" } else { ", \(network.name)" }
        func median(_ runs: [ProcessRun]) -> Double? {
            runs.contains { $0.status != 0 } ? nil : Measure.median(runs.map(\.milliseconds))
        }
        let failed = { (runs: [ProcessRun]) in
            runs.first { $0.status != 0 }.map { "; a sync failed (exit \($0.status))" } ?? ""
        }
        record(
            Row(
                operation: "sync, \(changed) changed each way\(over) (process)", cards: size, ours: median(oursRuns),
                git: Measure.median(gitRuns), peak: oursRuns.map(\.peakKilobytes).max(),
                note: "git: git fetch && git merge && git push, \(network.name); median of \(Bench.syncRounds) "
                    + "exchanges; cards.transport=git\(failed(oursRuns))"))
        record(
            Row(
                operation: "sync, \(changed) changed each way\(over), libgit2 transport (process)", cards: size,
                ours: median(libgit2Runs), git: Measure.median(gitRuns), peak: libgit2Runs.map(\.peakKilobytes).max(),
                note: "the same through cards.transport=libgit2; median of \(Bench.syncRounds)\(failed(libgit2Runs))"))
    }
}

/// A small seeded generator, so every run benchmarks the same ids.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
