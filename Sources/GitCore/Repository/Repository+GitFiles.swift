import SystemCalls

/// The names of git's own files that a deck's checks and recoveries look for, kept here with the rest
/// of what GitCore knows of git's layout: CardStore asks for them instead of spelling them.
extension Repository {
    /// The common git folder's pack folder (`objects/pack`): a linked worktree has none of its own.
    package var packFolder: String { commonDirectory + "objects/pack" }

    /// The lock files at the top of a git folder that an interrupted git, libgit2 or `cards` command can
    /// leave behind (a branch's own lock, `refs/heads/NAME.lock`, is the caller's to add).
    package static let topLevelLockFiles = ["index.lock", "HEAD.lock", "config.lock", "packed-refs.lock"]

    /// What the temp file of a pack this package writes is named from (`PackFile.install`). Not `tmp_`:
    /// `git prune` removes every `tmp_` file in `objects/pack` older than its expiry, which for a plain
    /// `git prune` is now, and would take a pack being written from under its writer.
    static let ownPackTemporaryPrefix = "cards_tmp_pack_"

    /// The names temp files of object and pack writes start with: libgit2's (`tmp_object_git2_`,
    /// `pack_git2_`), git's (`tmp_pack_`, `tmp_idx_`) and ours (`cards_tmp_pack_`, and `tmp_cards_pack_`
    /// and `tmp_cards_obj_` of earlier versions).
    package static let objectTemporaryPrefixes = [
        "tmp_object_git2_", "pack_git2_", "tmp_pack_", "tmp_idx_", ownPackTemporaryPrefix, "tmp_cards_pack_",
        "tmp_cards_obj_",
    ]

    /// Whether `name` (a file in `objects/XX` or `objects/pack`) is a temp file of an object or pack write.
    package static func isObjectTemporary(_ name: String) -> Bool {
        objectTemporaryPrefixes.contains(where: name.hasPrefix)
    }

    /// The temp files of object and pack writes in the object folders (`objects/XX`, `objects/pack`),
    /// full paths, whether or not their writers are still at work (the caller asks who has them open).
    package func objectWriteTemporaries() -> [String] {
        let objects = commonDirectory + "objects"
        var found: [String] = []
        for folder in LockFiles.list(objects) where folder.count == 2 || folder == "pack" {
            for name in LockFiles.list("\(objects)/\(folder)") where Repository.isObjectTemporary(name) {
                found.append("\(objects)/\(folder)/\(name)")
            }
        }
        return found.sorted()
    }
}
