import CGit2
import Glibc

extension GitError {
    /// The pack libgit2 names in "invalid packfile '<path>'" when that file is no longer there, else
    /// nil: libgit2 read the pack's index, and a `git repack` (gc, maintenance) deleted the pack before
    /// libgit2 opened it. libgit2 1.5 never forgets a pack it listed, so every later read of those
    /// objects through the same handle fails, where git looks at the folder again
    /// (`Repository.reloadObjectDatabase`).
    package var vanishedPack: String? {
        let prefix = "invalid packfile '"
        guard let start = message.firstRange(of: prefix)?.upperBound,
            let end = message[start...].firstIndex(of: "'")
        else { return nil }
        let path = String(message[start..<end])
        guard path.hasSuffix(".pack"), access(path, F_OK) != 0, errno == ENOENT else { return nil }
        return path
    }
}

extension Repository {
    /// Gives this handle a new object database, which lists the packs as they are now: what git does
    /// when an object is not where its list of packs said (`GitError.vanishedPack`). Objects already
    /// read stay valid; an object database a caller holds keeps the old list until it is let go.
    package func reloadObjectDatabase() throws(GitError) {
        var odb: OpaquePointer?
        try check(git_odb_open(&odb, commonDirectory + "objects"), "git_odb_open")
        defer { git_odb_free(odb) }
        try check(git_repository_set_odb(pointer, odb), "git_repository_set_odb")
    }
}
