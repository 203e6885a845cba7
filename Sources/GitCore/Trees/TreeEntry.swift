import CGit2

/// One entry of a tree, copied out of libgit2.
public struct TreeEntry: Hashable, Sendable {
    /// What an entry points to.
    public enum Kind: Sendable, Hashable {
        /// A file (regular or executable).
        case blob
        /// A symbolic link (its blob holds the target).
        case symlink
        /// A sub-folder.
        case tree
        /// A submodule (a commit in another repository).
        case submodule
        /// Anything libgit2 reports that is none of the above.
        case other
    }

    /// The entry's name within its tree (no slashes).
    public var name: String
    /// The object the entry points to.
    public var id: ObjectID
    /// The kind, from the file mode.
    public var kind: Kind
    /// The raw git file mode (0o100644, 0o40000, ...).
    public var mode: UInt32

    /// Creates an entry value.
    public init(name: String, id: ObjectID, kind: Kind, mode: UInt32) {
        self.name = name
        self.id = id
        self.kind = kind
        self.mode = mode
    }

    /// The kind an entry of this git file mode is.
    public static func kind(ofMode mode: UInt32) -> Kind {
        switch mode {
        case 0o100644, 0o100755: return .blob
        case 0o120000: return .symlink
        case 0o40000: return .tree
        case 0o160000: return .submodule
        default: return .other
        }
    }

    init(_ entry: OpaquePointer) {
        name = String(cString: git_tree_entry_name(entry))
        id = ObjectID(git_tree_entry_id(entry))
        let rawMode = git_tree_entry_filemode(entry).rawValue
        mode = UInt32(rawMode)
        switch rawMode {
        case GIT_FILEMODE_BLOB.rawValue, GIT_FILEMODE_BLOB_EXECUTABLE.rawValue: kind = .blob
        case GIT_FILEMODE_LINK.rawValue: kind = .symlink
        case GIT_FILEMODE_TREE.rawValue: kind = .tree
        case GIT_FILEMODE_COMMIT.rawValue: kind = .submodule
        default: kind = .other
        }
    }
}

/// One change to apply to a tree: put a blob at a path, or remove the path.
public struct TreeUpdate: Sendable, Hashable {
    /// The slash-separated path from the root tree.
    public var path: String
    /// The object to put there (a blob; a commit for a submodule), or nil to remove the path.
    public var blob: ObjectID?
    /// The entry's git file mode: a plain file (`0o100644`) unless the entry came with another one (an
    /// executable, a symbolic link, a submodule), which the tree keeps as it came.
    public var mode: UInt32

    /// A plain file's mode, the one card files have.
    public static let fileMode: UInt32 = 0o100644

    /// Creates an update; `blob == nil` removes the path.
    public init(path: String, blob: ObjectID?, mode: UInt32 = TreeUpdate.fileMode) {
        self.path = path
        self.blob = blob
        self.mode = mode
    }
}
