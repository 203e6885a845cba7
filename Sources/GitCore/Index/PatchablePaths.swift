/// The paths an index patch may change, as the caller lays them out: `FOLDER/`, a fan-out folder of
/// `fanOutLength` bytes, `/`, then a file name of `fileNameLength` bytes (no `/` in it) that ends in
/// `suffix`. CardStore's cards are `cards/xx/<36-character id>.json` (`Deck.cardPaths`); any other
/// path is left to libgit2's index.
///
/// Fixed lengths, so that the patch tells a patchable path, or a file in the way of one, from the
/// rest of a 100,000-entry index by its length before it compares a byte.
package struct PatchablePaths: Sendable {
    /// The top-level folder's name.
    let folder: [UInt8]
    /// Where the fan-out folder's name ends: the offset of the `/` after it.
    let fanOutEnd: Int
    /// The length of a whole patchable path.
    let pathLength: Int
    /// How the file name ends.
    let suffix: [UInt8]

    /// The layout `FOLDER/<fanOutLength bytes>/<fileNameLength bytes ending in suffix>`.
    package init(folder: String, fanOutLength: Int, fileNameLength: Int, suffix: String) {
        self.folder = Array(folder.utf8)
        fanOutEnd = self.folder.count + 1 + fanOutLength
        pathLength = fanOutEnd + 1 + fileNameLength
        self.suffix = Array(suffix.utf8)
    }

    /// Whether `path` has this layout's shape.
    func contains(_ path: [UInt8]) -> Bool {
        guard path.count == pathLength, path[fanOutEnd] == UInt8(ascii: "/"), path[folder.count] == UInt8(ascii: "/"),
            path.starts(with: folder), path.suffix(suffix.count).elementsEqual(suffix)
        else { return false }
        return !path[(fanOutEnd + 1)..<(pathLength - suffix.count)].contains(UInt8(ascii: "/"))
    }

    /// Whether an index entry named `name` is a file where a patchable path needs a folder: the
    /// folder itself, a fan-out folder, or a patchable path used as a folder. A top-level file that
    /// only starts like the folder (`cards.md`) is in nobody's way.
    func isInTheWay(_ name: UnsafeRawBufferPointer) -> Bool {
        let slash = UInt8(ascii: "/")
        let count = name.count
        let separator = folder.count
        // Lengths first: most entries are patchable paths, whose length never needs the prefix compared.
        guard
            count == separator || (count == fanOutEnd && name[separator] == slash)
                || (count > pathLength && name[pathLength] == slash && name[separator] == slash)
        else {
            return false
        }
        return name.starts(with: folder)
    }

    /// The cached-tree nodes a change of `path` (a patchable path) invalidates below the root: the
    /// folder's and its fan-out folder's.
    func folders(of path: [UInt8]) -> [[UInt8]] {
        [folder, Array(path[0..<fanOutEnd])]
    }
}
