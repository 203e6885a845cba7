import Glibc

/// A `.keep` file held on a pack of ours from before the pack is named until the ref that reaches its
/// objects has been written: git's own protection of a pack it receives (index-pack and fetch write
/// `pack-<hash>.keep` first and remove it after the ref update). `git repack -a -d` (and so `git gc`)
/// never deletes a kept pack nor drops its objects, and `git multi-pack-index expire` never expires
/// one; without it, a repack that read the refs between our pack being named and `main` moving finds
/// the new objects unreachable and deletes them, and `main` then names a commit that is gone.
///
/// Not flushed: a `.keep` only ever protects. One left by a killed writer (its content names this
/// machine and a dead pid) is removed by the next write's recovery and by `cards fsck --repair`
/// (`isAbandoned`); left alone, it would only keep its pack from ever being repacked.
package final class PackKeep {
    /// The pack's path without its extension (`…/objects/pack/pack-<hash>`).
    package let base: String
    /// Whether this process made the file, and so removes it (a `.keep` already there is another's).
    private var owned: Bool

    private init(base: String, owned: Bool) {
        self.base = base
        self.owned = owned
    }

    deinit { release() }

    /// What the file says: who keeps the pack, as git's `fetch-pack <pid> on <host>`.
    static func reason(pid: Int32 = getpid()) -> String {
        "\(ownPrefix)\(pid) on \(hostName())\n"
    }

    /// The start of every `.keep` this program writes.
    static let ownPrefix = "cards "

    /// This machine's name, as `.keep` files and git's `gc.pid` name it.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Creates `<base>.keep` (before `<base>.pack` is named). A `.keep` already there (the same pack
    /// made again, kept by the user or another writer) protects it as well and is left as it is.
    static func create(base: String) throws(GitError) -> PackKeep {
        let path = base + ".keep"
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            if errno == EEXIST { return PackKeep(base: base, owned: false) }
            throw GitError(
                code: .system(errno), message: "cannot write \(path): \(String(cString: strerror(errno)))",
                function: "pack")
        }
        let failure = FileSync.writeAll(descriptor, Array(reason().utf8))
        close(descriptor)
        guard failure == 0 else {
            unlink(path)
            throw GitError(
                code: .system(failure), message: "cannot write \(path): \(String(cString: strerror(failure)))",
                function: "pack")
        }
        return PackKeep(base: base, owned: true)
    }

    /// Whether the pack and its index are still in place: two `access` calls, checked before a ref is
    /// moved to a commit in it.
    package var isPresent: Bool {
        access(base + ".idx", F_OK) == 0 && access(base + ".pack", F_OK) == 0
    }

    /// Removes the `.keep` (once the ref that reaches the pack is written, or the write gave up); the
    /// pack is then git's like any other. Idempotent.
    package func release() {
        guard owned else { return }
        owned = false
        unlink(base + ".keep")
    }

    /// Whether a `.keep` file (`path`) was left by a `cards` process of this machine that no longer
    /// runs: its first line is `cards <pid> on <this host>` and that pid is dead. Anything else (the
    /// user's, git's, another machine's on a shared disk) is not ours to remove.
    package static func isAbandoned(_ path: String) -> Bool {
        guard let bytes = Repository.readSmallFile(path, limit: 512, followingLinks: false) else { return false }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix(ownPrefix), let line = text.split(separator: "\n").first else { return false }
        let words = line.split(separator: " ")
        guard words.count == 4, words[2] == "on", let pid = Int32(words[1]), String(words[3]) == hostName() else {
            return false
        }
        return pid != getpid() && !LockFiles.isAlive(pid)
    }

    /// The `.keep` files in `packFolder` that `isAbandoned` says a dead `cards` process left.
    package static func abandoned(in packFolder: String) -> [String] {
        LockFiles.list(packFolder).filter { $0.hasPrefix("pack-") && $0.hasSuffix(".keep") }
            .map { packFolder + "/" + $0 }.filter(isAbandoned)
    }
}
