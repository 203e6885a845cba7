import GitCore
import Glibc

/// What a deck knows of git's conversion of its files, for a second: a long-lived deck (`cards serve`)
/// sees a changed `core.autocrlf` or `.gitattributes` soon after, while a command that writes many files
/// looks once.
struct ConversionCache {
    /// `Deck.lookUpConversion()`.
    var anywhere: Bool
    /// When it was looked up (`DeckLock.now()`).
    var lookedAt: Double
    /// Whether a folder (below the root, other than `cards`) has a `.gitattributes`, as found.
    var folders: [String: Bool] = [:]
}

/// Files as git has them on both sides: what a checkout writes in the working tree (CRLF endings with
/// `core.autocrlf=true` or `eol=crlf`, an LFS image for its pointer) and what `git add` would store for a
/// working file (its "clean" form). A deck with no such configuration, most of them, never loads a
/// filter: `lookUpConversion` runs once a second at most (`ConversionCache`), and each folder's
/// `.gitattributes` is looked for once (`conversionMayApply`).
extension Deck {
    /// Whether anything can make git convert files here: `core.autocrlf` (true or input), `core.eol`, or an
    /// attributes file naming a converting attribute (`Repository.attributesMayConvert`): the system's,
    /// the user's (`core.attributesFile`, else `$XDG_CONFIG_HOME/git/attributes`), `info/attributes`,
    /// and the working tree's `.gitattributes` at the root and in `cards/`. Folders deeper down are
    /// looked at per path.
    func lookUpConversion() -> Bool {
        guard let workingDirectory else { return false }
        let autocrlf = ((try? repository.configString("core.autocrlf")) ?? nil)?.lowercased()
        if let autocrlf, ["true", "yes", "on", "1", "input"].contains(autocrlf) { return true }
        if ((try? repository.configString("core.eol")) ?? nil) != nil { return true }
        let environment = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        var sources = [
            "/etc/gitattributes", "\(Repository.trimmedSlash(repository.commonDirectory))/info/attributes",
            "\(workingDirectory)/.gitattributes", "\(workingDirectory)/\(Deck.cardsFolder)/.gitattributes",
        ]
        if var file = (try? repository.configString("core.attributesFile")) ?? nil {
            if file.hasPrefix("~/"), let home = environment("HOME") { file = home + file.dropFirst() }
            sources.append(file)
        } else if let xdg = environment("XDG_CONFIG_HOME") {
            sources.append("\(xdg)/git/attributes")
        } else if let home = environment("HOME") {
            sources.append("\(home)/.config/git/attributes")
        }
        for source in sources where FileSystem.exists(source) {
            // Unreadable: git would not read it either, but a wrong "no" costs a comparison, not a file.
            guard let bytes = try? FileSystem.read(source, limit: 1 << 24) else { return true }
            if Repository.attributesMayConvert(bytes) { return true }
        }
        return false
    }

    /// Whether git may convert the file at `path` (a deck path): `lookUpConversion`, or a `.gitattributes`
    /// in one of the folders on its way below `cards/` (a card's fan-out folder) or outside it.
    func conversionMayApply(to path: String) -> Bool {
        guard let workingDirectory else { return false }
        let now = DeckLock.now()
        if conversionCache.map({ now - $0.lookedAt > 1 }) ?? true {
            conversionCache = ConversionCache(anywhere: lookUpConversion(), lookedAt: now)
        }
        if conversionCache?.anywhere == true { return true }
        var folder = ""
        for part in path.utf8.split(separator: UInt8(ascii: "/")).dropLast() {
            folder += (folder.isEmpty ? "" : "/") + String(decoding: part, as: UTF8.self)
            if folder == Deck.cardsFolder { continue }
            if let known = conversionCache?.folders[folder] {
                if known { return true }
                continue
            }
            let found = FileSystem.exists("\(workingDirectory)/\(folder)/.gitattributes")
            conversionCache?.folders[folder] = found
            if found { return true }
        }
        return false
    }

    /// The bytes git's checkout writes at `path` for blob `blob` whose content is `bytes`: the same bytes
    /// unless end-of-line conversion, `ident` or a filter driver (`git cat-file --filters`) applies.
    func checkoutBytes(_ bytes: [UInt8], blob: ObjectID, path: String) throws(StoreError) -> [UInt8] {
        guard conversionMayApply(to: path) else { return bytes }
        return try withStoreError("converting \(path) for the working tree as git's checkout does") {
            () throws(GitError) in
            if try repository.filterDriver(for: path) != nil {
                return try repository.checkoutThroughGit(blob, path: path)
            }
            return try repository.converted(bytes, path: path, toWorkingTree: true) ?? bytes
        }
    }

    /// The bytes `git add` would store for `bytes` read from the working file at `path`, end of line
    /// normalised (a CRLF checkout read as LF). A filter driver's clean side is not run here (a card
    /// file has none); `cleanedID` says what git would store through it.
    func cleaned(_ bytes: [UInt8], path: String) -> [UInt8] {
        guard conversionMayApply(to: path) else { return bytes }
        return ((try? repository.converted(bytes, path: path, toWorkingTree: false)) ?? nil) ?? bytes
    }

    /// The blob id `git add` would store for `bytes`, read from the working file at `path`: through its
    /// filter driver (`git hash-object`, which runs the clean side and writes nothing) when it has one,
    /// else through end-of-line conversion. As `git status` compares it, so a CRLF checkout or an LFS
    /// image is no hand edit.
    func cleanedID(_ bytes: [UInt8], path: String) -> ObjectID {
        guard conversionMayApply(to: path) else { return ObjectID.blobHash(of: bytes) }
        if ((try? repository.filterDriver(for: path)) ?? nil) != nil,
            let id = ((try? repository.cleanIDsThroughGit([path])) ?? nil)?.first
        {
            return id
        }
        return ObjectID.blobHash(of: cleaned(bytes, path: path))
    }

    /// After a clone's checkout (libgit2's, which converts line endings but runs no filter driver): the
    /// files a `filter=` driver applies to (LFS images) written again through git, as `git clone` leaves
    /// them, and their index entries refreshed. Looks at no attribute when no attributes file can apply.
    func checkOutThroughFilterDrivers(at commit: ObjectID) throws(StoreError) {
        guard workingDirectory != nil else { return }
        let filtered = try withStoreError("checking out files through their filter drivers") { () throws(GitError) in
            let tree = try repository.commit(commit).tree
            var found: [String] = []
            var folders: [(prefix: String, tree: ObjectID)] = [("", tree)]
            while let (prefix, folder) = folders.popLast() {
                for entry in try repository.treeEntries(folder) {
                    let path = prefix + entry.name
                    if entry.kind == .tree {
                        folders.append((path + "/", entry.id))
                    } else if entry.kind == .blob, conversionMayApply(to: path),
                        try repository.filterDriver(for: path) != nil
                    {
                        found.append(path)
                    }
                }
            }
            return (found, tree)
        }
        guard !filtered.0.isEmpty else { return }
        try updateWorkingTree(filtered.0, snapshotTree: filtered.1)
    }

    /// Whether a `filter=` driver (LFS) applies to `path`: libgit2 would not run it.
    func hasFilterDriver(_ path: String) -> Bool {
        conversionMayApply(to: path) && ((try? repository.filterDriver(for: path)) ?? nil) != nil
    }

    /// The positions of `paths`, git attributes files first: written before the rest, since what they
    /// say decides how the rest are written (git's checkout does the same).
    static func attributesFilesFirst(_ paths: [String]) -> [Int] {
        let indices = Array(paths.indices)
        return indices.filter { isAttributesFile(paths[$0]) } + indices.filter { !isAttributesFile(paths[$0]) }
    }

    /// Whether `path` is a `.gitattributes` file.
    static func isAttributesFile(_ path: String) -> Bool {
        path == ".gitattributes" || path.hasSuffix("/.gitattributes")
    }
}
