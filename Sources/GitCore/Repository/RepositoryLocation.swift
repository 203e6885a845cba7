import Glibc

/// Where git finds a repository from a folder, found as git 2.39 finds it (setup.c's
/// `setup_git_directory_gently_1`), before anything of the repository is opened or read: the folder
/// and files whose owners git's `safe.directory` check looks at (`RepositoryOwnership`).
///
/// Found by looking at the files, not by libgit2: libgit2 reads the repository's config as it opens
/// it (`core.worktree`, `core.bare`…), and the check must come before that. The repository is then
/// opened at `folder` exactly (`Repository.open(at:)`), so that what is opened is what was checked.
package struct RepositoryLocation: Equatable, Sendable {
    /// The folder git names the repository by, in its messages and in `safe.directory`: the working
    /// tree's top folder (the one that holds `.git`), or a bare repository's own folder. Physical
    /// (links resolved, as git's `getcwd` gives it), without a trailing slash.
    package let folder: String
    /// The `.git` file that points to the git folder elsewhere (a linked worktree, a submodule,
    /// `git init --separate-git-dir`), or nil.
    package let gitFile: String?
    /// The working tree's top folder (`folder`), or nil for a bare repository.
    package let workingTree: String?
    /// The git folder: `folder/.git`, the folder a `.git` file names (its real path), or `folder`
    /// itself when it is bare.
    package let gitDirectory: String

    /// Creates a location from its parts (for tests; `find` finds them on disk).
    package init(folder: String, gitFile: String?, workingTree: String?, gitDirectory: String) {
        self.folder = folder
        self.gitFile = gitFile
        self.workingTree = workingTree
        self.gitDirectory = gitDirectory
    }

    /// The repository git would use from `path`: in `path` itself, or, when `searchUpward`, in the
    /// nearest folder above it that has one (stopping at a file-system boundary unless
    /// `GIT_DISCOVERY_ACROSS_FILESYSTEM` is set, and below `GIT_CEILING_DIRECTORIES`, as git does); nil
    /// when there is none. A `.git` file
    /// that names no repository is an error in git's words (`invalid gitfile format: …`).
    package static func find(from path: String, searchUpward: Bool) throws(GitError) -> RepositoryLocation? {
        guard var folder = realPath(path) else { return nil }
        let acrossFileSystems = environmentFlag("GIT_DISCOVERY_ACROSS_FILESYSTEM")
        var device = deviceOf(folder)
        // Not up into the nearest of `GIT_CEILING_DIRECTORIES` above the start, nor above it.
        let ceiling = nearestCeiling(above: folder)
        while true {
            if let found = try candidate(in: folder) { return found }
            guard searchUpward, folder != "/" else { return nil }
            let parent = parentFolder(of: folder)
            if let ceiling, parent.utf8.count <= ceiling.utf8.count { return nil }
            if !acrossFileSystems {
                let parentDevice = deviceOf(parent)
                if parentDevice != device { return nil }
                device = parentDevice
            }
            folder = parent
        }
    }

    /// The repository in `folder` itself: `.git` as a file naming a git folder, `.git` as a git folder,
    /// or `folder` as a (bare) git folder; the order git tries them in.
    private static func candidate(in folder: String) throws(GitError) -> RepositoryLocation? {
        let dotGit = folder == "/" ? "/.git" : folder + "/.git"
        var info = stat()
        if stat(dotGit, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFREG {
                let target = try readGitFile(dotGit)
                return RepositoryLocation(folder: folder, gitFile: dotGit, workingTree: folder, gitDirectory: target)
            }
            if isGitDirectory(dotGit) {
                return RepositoryLocation(folder: folder, gitFile: nil, workingTree: folder, gitDirectory: dotGit)
            }
        }
        if isGitDirectory(folder) {
            return RepositoryLocation(folder: folder, gitFile: nil, workingTree: nil, gitDirectory: folder)
        }
        return nil
    }

    /// The real path of the git folder a `.git` file names (`gitdir: PATH`, relative to the file's
    /// folder), as git's `read_gitfile_gently` reads it; an error in git's words when it names none.
    static func readGitFile(_ path: String) throws(GitError) -> String {
        func failure(_ message: String) -> GitError {
            GitError(code: .damaged, message: message, function: "read_gitfile")
        }
        guard let bytes = Repository.readSmallFile(path, limit: 1 << 20) else {
            throw failure("error opening '\(path)'")
        }
        var text = Array(bytes)
        guard text.starts(with: Array("gitdir: ".utf8)) else { throw failure("invalid gitfile format: \(path)") }
        while let last = text.last, last == 0x0A || last == 0x0D { text.removeLast() }
        guard text.count > 8 else { throw failure("no path in gitfile: \(path)") }
        var target = String(decoding: text[8...], as: UTF8.self)
        if !target.hasPrefix("/"), let slash = path.lastIndex(of: "/") {
            target = String(path[...slash]) + target
        }
        guard isGitDirectory(target), let real = realPath(target) else {
            throw failure("not a git repository: \(target)")
        }
        return real
    }

    /// Whether `suspect` is a git folder as git tells one (`is_git_directory`): a valid `HEAD`, and
    /// `objects/` and `refs/` that can be searched, in the common folder a `commondir` file names
    /// (a linked worktree's) or in `suspect` itself.
    static func isGitDirectory(_ suspect: String) -> Bool {
        let base = suspect.hasSuffix("/") ? suspect : suspect + "/"
        guard isValidHead(base + "HEAD") else { return false }
        var common = suspect
        if let named = Repository.firstLine(of: base + "commondir") {
            common = named.hasPrefix("/") ? named : base + named
        }
        if let objects = getenv("GIT_OBJECT_DIRECTORY") {
            if access(objects, X_OK) != 0 { return false }
        } else if access(common + "/objects", X_OK) != 0 {
            return false
        }
        return access(common + "/refs", X_OK) == 0
    }

    /// Whether `path` is a `HEAD` git accepts (`validate_headref`): a link into `refs/`, a file
    /// `ref: refs/…`, or a file holding an object id.
    static func isValidHead(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        if info.st_mode & S_IFMT == S_IFLNK {
            var buffer = [CChar](repeating: 0, count: 256)
            let count = readlink(path, &buffer, 255)
            guard count > 0 else { return false }
            return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix("refs/")
        }
        // git reads its first 255 bytes.
        guard let bytes = Repository.readSmallFile(path, limit: 1 << 16, followingLinks: false) else { return false }
        let text = Substring(String(decoding: bytes.prefix(255), as: UTF8.self))
        if text.hasPrefix("ref:"), text.dropFirst(4).drop(while: \.isWhitespace).hasPrefix("refs/") { return true }
        return text.utf8.count >= 40 && text.utf8.prefix(40).allSatisfy { isHexDigit($0) }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }

    /// The physical absolute path of an existing `path` (links and `..` resolved), or nil.
    static func realPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The longest of `GIT_CEILING_DIRECTORIES` (colon-separated absolute folders, their links resolved
    /// up to an empty entry, as git's `canonicalize_ceiling_entry` takes them) that is a folder above
    /// `start`: git looks for a repository in `start` and up to below it, never in it or above.
    static func nearestCeiling(above start: String) -> String? {
        guard let raw = getenv("GIT_CEILING_DIRECTORIES") else { return nil }
        var resolving = true
        var nearest: String?
        for entry in String(cString: raw).split(separator: ":", omittingEmptySubsequences: false) {
            guard !entry.isEmpty else {
                resolving = false
                continue
            }
            guard entry.hasPrefix("/") else { continue }
            var folder = resolving ? realPath(String(entry)) ?? String(entry) : String(entry)
            while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
            let above = folder == "/" ? start != "/" : start.hasPrefix(folder + "/")
            if above && folder.utf8.count > (nearest?.utf8.count ?? -1) { nearest = folder }
        }
        return nearest
    }

    /// The folder above `path` (an absolute path without a trailing slash); `/` above itself.
    static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    private static func deviceOf(_ path: String) -> UInt? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt(info.st_dev) : nil
    }

    /// A boolean from the environment as git reads one (`git_env_bool`): unset is false.
    static func environmentFlag(_ name: String) -> Bool {
        guard let raw = getenv(name) else { return false }
        return Repository.parseBool(String(cString: raw)) ?? false
    }
}
