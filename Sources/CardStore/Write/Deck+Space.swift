import Glibc

/// A full disk must stop a write before `main` moves, not halfway through the working tree: before
/// writing anything, a change is checked against the free space of the device holding the deck and
/// against the file size limit (`ulimit -f`). The estimate is generous (each file counted twice, as
/// its object and its working-tree file, rounded up to whole blocks, plus the index and a margin for
/// trees, the commit, the ref and its log). A disk filled by someone else in the middle of a write can
/// still stop it after `main` moved: `.git/cards-pending` then lets the next command finish it.
extension Deck {
    /// Room kept for trees, the commit, the ref lock, the reflogs and the pending flag.
    static let spaceMargin = 256 * 1024

    /// Fails, before anything is written, when the device cannot take files of these sizes
    /// (nil: a removal), or one of them is over the file size limit.
    /// `CARDS_SPACE_CHECK=0` skips it (a file system whose free-space figure is wrong; tests of the fallback).
    func checkSpace(forFileSizes sizes: [Int?]) throws(StoreError) {
        if let setting = getenv("CARDS_SPACE_CHECK"), String(cString: setting) == "0" { return }
        var info = statvfs()
        guard statvfs(gitDirectory, &info) == 0 else { return }
        let block = max(Int(info.f_frsize), 512)
        func blocks(_ bytes: Int) -> Int { (bytes + block - 1) / block * block }
        // The index grows by an entry (~70 bytes and the path) per new file.
        let indexSize = isBare ? 0 : Deck.fileSize("\(gitDirectory)/index") + 160 * sizes.count
        var needed = Deck.spaceMargin + blocks(indexSize) + blocks(16 * 1024) * Set(sizes.indices).count / 64
        for size in sizes { if let size { needed += 2 * blocks(size) + blocks(1) } }
        let available = Int(info.f_bavail) * block
        if available < needed {
            throw StoreError(
                .io,
                "not enough space on the device holding \(location): \(Deck.kibibytes(available)) free, this change "
                    + "needs about \(Deck.kibibytes(needed)); nothing was changed: free some space and try again")
        }
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0 && limit.rlim_cur != rlim_t.max {
            let largest = max(indexSize + 16 * 1024, sizes.compactMap { $0 }.max() ?? 0)
            if UInt64(largest) > UInt64(limit.rlim_cur) {
                throw StoreError(
                    .io,
                    "the file size limit (ulimit -f) of \(limit.rlim_cur) bytes is too small: this change writes a "
                        + "file of about \(largest) bytes (the index); nothing was changed: raise the limit and try again"
                )
            }
        }
    }

    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    static func kibibytes(_ bytes: Int) -> String {
        bytes >= 10 * 1024 * 1024 ? "\(bytes / 1024 / 1024) MiB" : "\(bytes / 1024) KiB"
    }
}
