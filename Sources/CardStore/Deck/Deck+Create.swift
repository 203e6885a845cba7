import CardModel
import GitCore
import Glibc
import SystemCalls

extension Deck {
    /// The merge driver command registered in every deck's config, for plain `git merge`: `cards` when the
    /// `cards` on PATH is this program, else this program's absolute path (so it works before installing).
    package static var mergeDriverCommand: String {
        let suffix = " merge-driver %O %A %B %P"
        guard let executable = FileSystem.executablePath(), !executable.contains(" ") else { return "cards" + suffix }
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        for folder in path.split(separator: ":") where FileSystem.exists("\(folder)/cards") {
            return (FileSystem.canonical(String(folder)) == FileSystem.parent(of: executable) ? "cards" : executable)
                + suffix
        }
        return executable + suffix
    }

    /// A new deck's git settings (`cards init` and `cards clone`): the merge driver, and `pull.rebase
    /// false` unless the user chose a `pull.rebase` of their own (git 2.33.1 and later stop a diverged
    /// `git pull` and ask how to reconcile when none is set).
    static func configureGit(_ repository: Repository) throws(GitError) {
        try repository.setConfig("merge.cards.name", "CardDeck field-level card merge")
        try repository.setConfig("merge.cards.driver", mergeDriverCommand)
        if try repository.configString("pull.rebase") == nil { try repository.setConfig("pull.rebase", "false") }
    }

    /// The name of a deck created in `folder` without one: the folder's name, less a `.git` ending
    /// (`decks/work.git` is "work", as git names a clone of it).
    static func defaultName(forFolder folder: String) -> String {
        let name = FileSystem.basename(of: Repository.trimmedSlash(folder))
        return name.count > 4 && name.hasSuffix(".git") ? String(name.dropLast(4)) : name
    }

    /// The branch a new deck starts on: `init.defaultBranch` when it is a valid branch name, else main.
    static func initialBranch() -> String {
        guard let name = Repository.defaultBranchSetting(), Repository.isValidBranchName(name) else { return "main" }
        return name
    }

    /// Creates a new deck at `path`: a git repository on `main` (or `init.defaultBranch`) with `deck.json`, `.gitattributes`,
    /// the merge-driver config and a first commit; then, with `source`, a second commit importing
    /// the cards of that folder (laid out like a deck, e.g. `sample-repo/`). Without `name` (nor a
    /// source's), the deck is named after its folder, less a `.git` ending.
    ///
    /// A folder already laid out as a deck (a `deck.json` or a `cards/` folder, say a deck's files copied
    /// without their `.git`) becomes a deck of those files: its `deck.json` and valid card files are
    /// taken as they are. Inside another git repository's working tree the new deck would be a
    /// repository nested in it: refused unless `nested`.
    public static func create(
        at path: String, name: String?, bare: Bool, from source: String? = nil, nested: Bool = false
    ) throws(StoreError) -> Deck {
        let absolute = FileSystem.absolute(path)
        if FileSystem.exists("\(absolute)/.git") || (bare && FileSystem.exists("\(absolute)/HEAD")) {
            throw StoreError(
                .alreadyExists,
                "\(path) is already a git repository; `cards init` makes a deck in a folder that is not one yet")
        }
        try refuseInsideDeck(absolute, shownAs: path, instead: "create the new deck in a folder")
        if !nested, let (root, _) = enclosingRepository(of: absolute) {
            throw StoreError(
                .alreadyExists,
                "\(path) is inside the git repository at \(root): a deck there would be a repository nested in "
                    + "it, which that repository's git shows as an untracked folder; run `cards init --nested` to "
                    + "make it anyway, or choose a folder outside \(root)")
        }
        let adopting =
            !bare && source == nil && FileSystem.isDirectory(absolute)
            && (FileSystem.exists("\(absolute)/\(Deck.metadataPath)")
                || FileSystem.isDirectory("\(absolute)/\(Deck.cardsFolder)"))
        // Read and check the source first, so a bad source leaves nothing behind.
        var imported: [Card] = []
        var sourceName: String?
        if let source {
            (imported, sourceName) = try readDeckFolder(source)
        }
        let existingMetadata = adopting ? try adoptedMetadata(absolute, shownAs: path, name: name) : nil
        if let existingMetadata { sourceName = (try? JSONValue.parse(existingMetadata))?["name"]?.stringValue }
        let deckName = name ?? sourceName ?? Deck.defaultName(forFolder: absolute)
        guard Deck.isValidNewName(deckName) else {
            let folderFile = "\(source ?? path)/\(Deck.metadataPath)"
            let given = name != nil ? "--name" : sourceName != nil ? "the name in \(folderFile)" : "the folder's name"
            throw StoreError(
                .invalidInput,
                "a deck's name must be 1 to 200 characters on one line, without control characters; \(given) is "
                    + "\(Card.quoted(deckName))\(name == nil ? ": give one with --name" : "")")
        }
        if FileSystem.exists(absolute) && !FileSystem.isDirectory(absolute) {
            throw StoreError(.alreadyExists, "\(path) exists and is not a folder; give a new or empty folder")
        }
        // A failure from here on (no author identity, a full disk) removes what this command made, so
        // that the folder is as it was and `cards init` can simply be run again. A new folder is made as
        // a hidden one beside its name and renamed to it once whole, as a clone is: killed half way
        // (Ctrl-C, SIGKILL), the command leaves no half-made deck under the name.
        let existed = FileSystem.isDirectory(absolute)
        let entriesBefore = existed ? Set(FileSystem.list(absolute)) : nil
        let work = existed ? absolute : partialClonePath(for: absolute, kind: "init")
        if !existed { removeAbandonedClones(of: absolute, kind: "init") }
        do throws(StoreError) {
            let deck = try createRepository(
                at: work, shownAs: path, bare: bare, name: deckName, imported: imported, source: source,
                existingMetadata: existingMetadata)
            guard !existed else { return deck }
            guard rename(work, absolute) == 0 else {
                throw StoreError(
                    .io,
                    "could not move the new deck into \(path): \(SystemError.reason(errno)); nothing was made")
            }
            let opened = try withStoreError("opening the new deck at \(path)") { () throws(GitError) in
                try Repository.open(at: absolute)
            }
            return try Deck(repository: opened)
        } catch {
            FileSystem.removeCreated(at: work, entriesBefore: entriesBefore)
            throw error
        }
    }

    private static func createRepository(
        at absolute: String, shownAs path: String, bare: Bool, name deckName: String, imported: [Card],
        source: String?, existingMetadata: [UInt8]?
    ) throws(StoreError) -> Deck {
        let initialBranch = Deck.initialBranch()
        let repository = try withStoreError("creating a repository at \(path)") { () throws(GitError) in
            // The first branch as `git init` names it (`init.defaultBranch`), else main.
            let repository = try Repository.create(at: absolute, bare: bare, initialBranch: initialBranch)
            if initialBranch != "main" { try repository.setConfig(Deck.branchSetting, initialBranch) }
            return repository
        }
        try withStoreError("configuring the merge driver") { () throws(GitError) in try Deck.configureGit(repository) }
        let deck = try Deck(repository: repository)
        let metadata =
            existingMetadata
            ?? JSONValue.object(["format": .number("1"), "name": .string(deckName)]).canonicalBytes()
        // An adopted folder's own .gitattributes is kept, with the merge driver's line added when missing.
        var attributes = Array((Deck.attributesLine + "\n").utf8)
        let attributesPath = "\(absolute)/.gitattributes"
        if existingMetadata != nil, FileSystem.exists(attributesPath) {
            let present = try FileSystem.read(attributesPath, limit: Card.maximumFileSize)
            let text = String(decoding: present, as: UTF8.self)
            attributes =
                text.split(separator: "\n").contains { $0 == Deck.attributesLine }
                ? present
                : present
                    + Array(((text.hasSuffix("\n") || text.isEmpty ? "" : "\n") + Deck.attributesLine + "\n").utf8)
        }
        try deck.commitChange(recordingHandEdits: existingMetadata != nil) { (_) throws(StoreError) in
            DeckChange(
                files: [(Deck.metadataPath, metadata), (".gitattributes", attributes)],
                message: CommitMessage(subject: "Create deck \"\(deckName)\"", trailers: [("Op", "init")]))
        }
        if existingMetadata != nil {
            // The folder's card files, as `cards commit` takes hand edits: valid ones committed as they are,
            // an invalid one named (and nothing made).
            _ = try deck.commitHandEdits(
                message: "Take the card files of \(FileSystem.basename(of: absolute))", refusal: "no deck was made",
                retry: "cards init")
        }
        if !imported.isEmpty {
            try deck.importCards(imported, source: FileSystem.basename(of: Repository.trimmedSlash(source ?? "")))
        }
        return deck
    }

    /// The `deck.json` of a folder `cards init` adopts (a new one, named `name` or after the folder,
    /// when it has none), refused when it is not a deck's.
    private static func adoptedMetadata(_ folder: String, shownAs path: String, name: String?) throws(StoreError)
        -> [UInt8]
    {
        let file = "\(folder)/\(Deck.metadataPath)"
        guard FileSystem.exists(file) else {
            let name = name ?? Deck.defaultName(forFolder: folder)
            return JSONValue.object(["format": .number("1"), "name": .string(name)]).canonicalBytes()
        }
        let bytes = try FileSystem.read(file, limit: Card.maximumFileSize)
        guard let value = try? JSONValue.parse(bytes), value["format"] != nil, value["name"]?.stringValue != nil else {
            throw StoreError(
                .invalidInput,
                "\(path)/\(Deck.metadataPath) is not a deck's deck.json (an object with \"format\" and \"name\"); "
                    + "fix or remove it, then run `cards init` again; nothing was made")
        }
        do {
            _ = try DeckOwner.from(deckDescription: value)
        } catch {
            throw StoreError(
                .invalidInput,
                "\(path)/\(Deck.metadataPath): the deck's owner is not valid (\(error)); fix or remove it, then run "
                    + "`cards init` again; nothing was made")
        }
        return bytes
    }

    /// Reads every card file of a folder laid out like a deck (`cards/**/<id>.json`, optional `deck.json`).
    /// Fails, naming each bad file and why, when any is not a valid card.
    static func readDeckFolder(_ folder: String) throws(StoreError) -> (cards: [Card], name: String?) {
        guard FileSystem.isDirectory(folder) else {
            guard FileSystem.exists(folder) else {
                throw StoreError(.invalidInput, "--from \(folder): no such folder")
            }
            throw StoreError(
                .invalidInput,
                "--from \(folder) is a file; --from takes a folder laid out like a deck (such as sample-repo/). "
                    + "For a JSON or JSON Lines file: create the deck, then `cards import \(ShellWord.quoted(folder))`")
        }
        var name: String?
        if FileSystem.exists("\(folder)/deck.json") {
            let bytes = try FileSystem.read("\(folder)/deck.json", limit: Card.maximumFileSize)
            name = (try? JSONValue.parse(bytes))?["name"]?.stringValue
        }
        let cardsFolder = "\(folder)/\(Deck.cardsFolder)"
        guard FileSystem.isDirectory(cardsFolder) else {
            throw StoreError(
                .invalidInput, "--from \(folder): it has no cards/ folder (a deck folder holds cards/<xx>/<id>.json)")
        }
        var cards: [Card] = []
        var problems: [String] = []
        for sub in FileSystem.list(cardsFolder) {
            let subPath = "\(cardsFolder)/\(sub)"
            guard FileSystem.isDirectory(subPath) else {
                problems.append("\(Deck.cardsFolder)/\(sub): not a fan-out folder")
                continue
            }
            for file in FileSystem.list(subPath) {
                let relative = "\(Deck.cardsFolder)/\(sub)/\(file)"
                guard let id = CardID.id(fromPath: relative) else {
                    problems.append("\(relative): not a card file name (cards/<2 hex digits>/<lowercase uuid>.json)")
                    continue
                }
                do {
                    let bytes = try FileSystem.read("\(folder)/\(relative)", limit: Card.maximumFileSize)
                    cards.append(try Card.decode(bytes, expectedID: id))
                } catch {
                    problems.append("\(relative): \(error)")
                }
            }
        }
        if !problems.isEmpty {
            throw StoreError(.invalidCard, "\(folder) has invalid card files:\n  " + problems.joined(separator: "\n  "))
        }
        return (cards, name)
    }
}
