import CGit2
import Glibc
import SystemCalls

extension Repository {
    /// This repository's other working trees (`git worktree add`, and the main one seen from a linked
    /// one: `linked` false) that have `branch` (`refs/heads/main`) checked out, by folder. A linked
    /// worktree whose folder is gone is git's to prune and not counted. Read from the files git keeps,
    /// as git reads them (a relative `gitdir`, as git 2.48 can write, counts from the worktree's own
    /// administrative folder).
    package func otherWorktrees(checkingOut branch: String) -> [(folder: String, linked: Bool)] {
        let common = Repository.trimmedSlash(commonDirectory)
        let own = Repository.trimmedSlash(gitDirectory)
        var others: [(head: String, folder: String, linked: Bool)] = []
        // From a linked worktree: the main one (its folder as libgit2 finds it, `core.worktree` too),
        // unless the repository is bare.
        if common != own, let main = try? Repository.open(at: common), let folder = main.workingDirectory {
            others.append((common + "/HEAD", Repository.trimmedSlash(folder), false))
        }
        for name in LockFiles.list(common + "/worktrees") {
            let administrative = common + "/worktrees/" + name
            guard administrative != own, var link = Repository.firstLine(of: administrative + "/gitdir") else {
                continue
            }
            if !link.hasPrefix("/") { link = administrative + "/" + link }
            // `<worktree>/.git`: the worktree is its folder.
            guard let slash = link.lastIndex(of: "/") else { continue }
            let folder = String(link[..<slash])
            var info = stat()
            if stat(folder, &info) == 0 { others.append((administrative + "/HEAD", folder, true)) }
        }
        return others.filter { Repository.firstLine(of: $0.head) == "ref: " + branch }.map { ($0.folder, $0.linked) }
    }

    /// `path` without trailing slashes (`/` stays `/`).
    package static func trimmedSlash(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// A small file's text without its trailing line feed (and spaces), or nil when it cannot be read.
    static func firstLine(of path: String) -> String? {
        guard let bytes = readSmallFile(path, followingLinks: false) else { return nil }
        var text = Substring(String(decoding: bytes, as: UTF8.self))
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
