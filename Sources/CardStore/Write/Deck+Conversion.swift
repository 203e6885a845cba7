import GitCore
import Glibc
import SystemCalls

/// What a deck knows of git's conversion of its files, for a second: a long-lived deck (`cards serve`)
/// sees a changed `core.autocrlf` or `.gitattributes` soon after, while a command that writes many files
/// looks once.
struct ConversionCache {
    /// `core.autocrlf` as git reads it: true, input, or false (unset).
    var autocrlf: AutoCRLF
    /// An attributes file outside the deck's folders names a converting attribute (`Deck.attributesMayConvert()`).
    var attributes: Bool
    /// When it was looked up (`MonotonicClock.now()`).
    var lookedAt: Double
    /// Whether a folder (below the root, other than `cards`) has a `.gitattributes`, as found.
    var folders: [String: Bool] = [:]

    /// `core.autocrlf`'s three values.
    enum AutoCRLF { case off, on, input }
}

/// Files as git has them on both sides: what a checkout writes in the working tree (CRLF endings with
/// `core.autocrlf=true` or `eol=crlf`, an LFS image for its pointer) and what `git add` would store for a
/// working file (its "clean" form). A deck with no such configuration, most of them, never loads a
/// filter: `lookUpConversion` runs once a second at most (`ConversionCache`), and each folder's
/// `.gitattributes` is looked for once (`attributesMayApply`). With `core.autocrlf` and no attribute,
/// a checkout converts by git's rule here (`autoCRLFCheckout`), without libgit2's attribute lookup.
extension Deck {
    /// What can make git convert files here (`ConversionCache`): `core.autocrlf`, and whether
    /// an attributes file names a converting attribute (`Repository.attributesMayConvert`): the system's,
    /// the user's (`core.attributesFile`, else `$XDG_CONFIG_HOME/git/attributes`), `info/attributes`,
    /// and the working tree's `.gitattributes` at the root and in `cards/`. Folders deeper down are
    /// looked at per path.
    func lookUpConversion(at now: Double) -> ConversionCache {
        // (`core.eol` alone converts nothing: it applies to files a `text` attribute marks, git 2.39 checked.)
        let autocrlf: ConversionCache.AutoCRLF
        if let on = repository.configBool("core.autocrlf") {
            autocrlf = on ? .on : .off
        } else {
            let input = ((try? repository.configString("core.autocrlf")) ?? nil)?.lowercased() == "input"
            autocrlf = input ? .input : .off
        }
        return ConversionCache(autocrlf: autocrlf, attributes: attributesMayConvert(), lookedAt: now)
    }

    /// Whether an attributes file that applies everywhere (all but the deck's deeper folders') names a
    /// converting attribute.
    private func attributesMayConvert() -> Bool {
        guard let workingDirectory else { return false }
        let environment = { (name: String) in Deck.environment(name).flatMap { $0.isEmpty ? nil : $0 } }
        var sources = [
            "/etc/gitattributes", "\(Repository.trimmedSlash(repository.commonDirectory))/info/attributes",
            "\(workingDirectory)/.gitattributes", "\(workingDirectory)/\(Deck.cardsFolder)/.gitattributes",
        ]
        if let file = (try? repository.configString("core.attributesFile")) ?? nil {
            sources.append(RepositoryOwnership.expandedPath(file) ?? file)
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

    /// What is known of conversion here, looked up again when a second old.
    private func conversion() -> ConversionCache {
        let now = MonotonicClock.now()
        if let cache = conversionCache, now - cache.lookedAt <= 1 { return cache }
        let cache = lookUpConversion(at: now)
        conversionCache = cache
        return cache
    }

    /// Whether git may convert the file at `path` (a deck path): `core.autocrlf` set, or
    /// `attributesMayApply`.
    func conversionMayApply(to path: String) -> Bool {
        guard workingDirectory != nil else { return false }
        let cache = conversion()
        return cache.autocrlf != .off || attributesMayApply(to: path)
    }

    /// Whether an attributes file may convert the file at `path`: one that applies everywhere, or a
    /// `.gitattributes` in one of the folders on its way below `cards/` (a card's fan-out folder) or
    /// outside it. Each folder is looked for once a second.
    func attributesMayApply(to path: String) -> Bool {
        guard let workingDirectory else { return false }
        if conversion().attributes { return true }
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
        if !attributesMayApply(to: path) {
            // `core.autocrlf` alone, no attribute: git's rule, without libgit2's attribute lookup (which
            // reads the whole index). `input` and `core.eol` convert nothing on checkout without a `text`
            // attribute.
            return conversion().autocrlf == .on ? Deck.autoCRLFCheckout(bytes) : bytes
        }
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
        if attributesMayApply(to: path), ((try? repository.filterDriver(for: path)) ?? nil) != nil,
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
                    } else if entry.kind == .blob, hasFilterDriver(path) {
                        found.append(path)
                    }
                }
            }
            return (found, tree)
        }
        guard !filtered.0.isEmpty else { return }
        try updateWorkingTree(filtered.0, snapshotTree: filtered.1)
    }

    /// `bytes` as git's checkout writes them with `core.autocrlf=true` and no attribute (convert.c's
    /// `crlf_to_worktree` for `CRLF_AUTO_CRLF`): every LF made CRLF, unless the text has a CR already,
    /// has no LF, or is binary (a NUL, a lone CR, or more than one non-printable byte in 128 printable).
    static func autoCRLFCheckout(_ bytes: [UInt8]) -> [UInt8] {
        var lonelf = 0
        var printable = 0
        var nonprintable = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\r"): return bytes  // a CRLF or a lone CR: git leaves the text alone
            case UInt8(ascii: "\n"): lonelf += 1
            case 0: return bytes  // binary
            case 127: nonprintable += 1
            case 8, 9, 27, 12: printable += 1  // BS, HT, ESC, FF
            case ..<32: nonprintable += 1
            default: printable += 1
            }
        }
        // A final ^Z (DOS end of file) is not counted as non-printable.
        if bytes.last == 26 { nonprintable -= 1 }
        guard lonelf > 0, printable >> 7 >= nonprintable else { return bytes }
        var converted: [UInt8] = []
        converted.reserveCapacity(bytes.count + lonelf)
        for byte in bytes {
            if byte == UInt8(ascii: "\n") { converted.append(UInt8(ascii: "\r")) }
            converted.append(byte)
        }
        return converted
    }

    /// Whether a `filter=` driver (LFS) applies to `path`: libgit2 would not run it.
    func hasFilterDriver(_ path: String) -> Bool {
        attributesMayApply(to: path) && ((try? repository.filterDriver(for: path)) ?? nil) != nil
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
