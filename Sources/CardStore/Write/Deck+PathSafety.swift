import GitCore
import Glibc

extension Deck {
    /// The blob id `git add` would store for the working file at `full` (`workingFile(path)`), nil when it
    /// cannot be read (gone, a folder, over 64 MB): how the write and the checks tell whose a file is.
    /// Compared as git compares it (`cleanedID`): a CRLF checkout of a card is the card.
    func workingBlobID(_ full: String, path: String) -> ObjectID? {
        guard let bytes = try? FileSystem.read(full, limit: 1 << 26) else { return nil }
        return cleanedID(bytes, path: path)
    }

    /// The absolute working-tree path of a deck path, after checking that writing there stays inside
    /// the deck: the path has no `..`, `.git` or empty part, and every folder on the way (`cards`,
    /// `cards/3f`) is a real folder, not a symbolic link that would lead the write out of the deck.
    /// Nil for a bare deck.
    func workingFile(_ path: String) throws(StoreError) -> String? {
        guard let workingDirectory else { return nil }
        guard Deck.isSafeWorkingPath(path) else {
            throw StoreError(.invalidInput, "'\(path)' is not a path inside the deck; refused")
        }
        var prefix = workingDirectory
        // Split on the byte: "/" followed by a combining mark is one Character, and a Character split
        // would skip the folder before it (a link there would then be written through).
        let parts = path.utf8.split(separator: UInt8(ascii: "/"))
        for part in parts.dropLast() {
            prefix += "/" + String(decoding: part, as: UTF8.self)
            var info = stat()
            guard lstat(prefix, &info) == 0 else { break }
            if (info.st_mode & S_IFMT) != S_IFDIR {
                let relative = String(prefix.dropFirst(workingDirectory.count + 1))
                if (info.st_mode & S_IFMT) != S_IFLNK {
                    throw StoreError(
                        .invalidInput,
                        "\(relative) is a file, where \(path) needs a folder; nothing was written there (`cards "
                            + "status` says whose the file is)")
                }
                throw StoreError(
                    .invalidInput,
                    "\(relative) is a symbolic link, not a folder: card files are only written in real folders "
                        + "inside the deck, never through a link; remove it (`rm \(ShellWord.quoted(relative))`), "
                        + "then try again")
            }
        }
        return "\(workingDirectory)/\(path)"
    }
}
