import GitCore
import Glibc

/// A failure of a deck operation, with a message that names the file, card or argument at fault
/// and says what to do.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure, for callers that branch on it (exit codes, retries, tests).
    ///
    /// An extensible set of named codes (as swift-nio's are): a code added later breaks no caller's
    /// `switch`, which compares with `==` or `case .cardNotFound:` and keeps a `default:`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name (`cardNotFound`, `git`…), stable across versions.
        public let name: String
        /// The git layer's code of a `git` code, else nil.
        public let gitCode: GitError.Code?

        init(_ name: String, git: GitError.Code? = nil) {
            self.name = name
            self.gitCode = git
        }

        /// The name, with the git layer's code for a `git` code.
        public var description: String { gitCode.map { "git(\($0))" } ?? name }

        /// The folder is not a deck.
        public static let notADeck = Code("notADeck")
        /// A deck already exists where one was to be created.
        public static let alreadyExists = Code("alreadyExists")
        /// No card has that id or prefix.
        public static let cardNotFound = Code("cardNotFound")
        /// The prefix matches more than one card.
        public static let ambiguousID = Code("ambiguousID")
        /// A card (given or in the deck) breaks a rule.
        public static let invalidCard = Code("invalidCard")
        /// Some argument value is unusable.
        public static let invalidInput = Code("invalidInput")
        /// No author name and email are configured.
        public static let noIdentity = Code("noIdentity")
        /// Another process holds a lock for too long.
        public static let locked = Code("locked")
        /// The working tree has hand edits that the command would overwrite.
        public static let uncommittedChanges = Code("uncommittedChanges")
        /// Nothing to undo or restore.
        public static let nothingToDo = Code("nothingToDo")
        /// A file could not be read or written.
        public static let io = Code("io")
        /// A remote or merge problem.
        public static let sync = Code("sync")
        /// The caller said to stop (a signal), and what was begun was undone.
        public static let interrupted = Code("interrupted")
        /// A deck made by a newer version (its `deck.json` format), which this one must not change.
        public static let newerFormat = Code("newerFormat")
        /// A failure of the git layer, with its code (`cause` holds the whole `GitError`).
        public static func git(_ code: GitError.Code) -> Code { Code("git", git: code) }
    }

    /// The kind of failure.
    public var code: Code
    /// One line (or a few) for a person: what went wrong and what to do.
    public var message: String
    /// The card field at fault (`title`, `color`, …) when `code` is `.invalidCard` and one field is to
    /// blame: a form can mark it without reading the message.
    public var field: String?
    /// The git layer's error this one came from, when it came from one: its code, libgit2's or git's
    /// own words, the server's messages (`serverMessages`) and the URL the transfer used, for a caller
    /// that shows them or branches on them.
    public var cause: GitError?

    /// Creates an error.
    package init(_ code: Code, _ message: String, field: String? = nil, cause: GitError? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.cause = cause
    }

    /// The same error (code, field, cause) told in other words.
    func reworded(_ message: String) -> StoreError {
        var copy = self
        copy.message = message
        return copy
    }

    /// The message.
    public var description: String { message }

    /// Wraps a libgit2 failure with what we were doing.
    static func git(_ error: GitError, while doing: String) -> StoreError {
        StoreError(.git(error.code), "\(doing) failed: \(error.message)\(damageHint(error))", cause: error)
    }

    /// What to do when libgit2 says an object is missing or its bytes are damaged: a shallow clone lacks
    /// the history before its cut; otherwise the repository is damaged, which `git fsck` locates.
    static func damageHint(_ error: GitError) -> String {
        // Out of file descriptors, libgit2 cannot open a pack and says the object is missing: the limit is
        // to blame, not the deck.
        if let limit = openFileLimitReached() { return limit }
        if let gone = error.vanishedPack {
            return "; \(gone) was removed while this command read it (git gc, git repack or git maintenance "
                + "ran beside it): the deck is not damaged; try again"
        }
        let message = error.message.lowercased()
        if message.contains("object not found") || message.contains("no match for id") {
            return "; the repository lacks an object it needs: a shallow clone (`git clone --depth`) lacks old "
                + "history (`git fetch --unshallow` brings it); otherwise it is damaged: `git fsck` names what is "
                + "missing, and `cards clone` from a remote makes a whole copy"
        }
        // zlib's "incorrect header/data/length check", libgit2's words for a damaged pack or object.
        let damage = [
            "incorrect", "corrupt", "inflate", "decompress", "invalid object", "truncated", "packfile", "pack header",
            "zlib", "checksum", "invalid block", "invalid distance", "invalid stored", "invalid code",
            "invalid literal",
            "too many length", "failed to parse", "object hash mismatch", "object is corrupted",
        ]
        if damage.contains(where: message.contains) {
            return "; the deck's object files are damaged: `git fsck` names the damaged pack or object, and "
                + "`cards clone` from a remote makes a whole copy"
        }
        return ""
    }
}

extension StoreError {
    /// When this process cannot open one more file (`ulimit -n`): what to say instead of blaming the deck.
    static func openFileLimitReached() -> String? {
        let probe = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if probe >= 0 {
            close(probe)
            return nil
        }
        guard errno == EMFILE || errno == ENFILE else { return nil }
        var limit = rlimit()
        let shown = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 ? " (\(limit.rlim_cur))" : ""
        return "; this process reached its limit of open files\(shown), so git could not open the deck's files: raise "
            + "it (`ulimit -n 1024`) and try again; the deck itself is not damaged"
    }
}

/// Runs a GitCore call and turns its failure into a `StoreError` that says what we were doing.
@inline(__always)
func withStoreError<T>(_ doing: @autoclosure () -> String, _ body: () throws(GitError) -> T) throws(StoreError) -> T {
    do {
        return try body()
    } catch {
        throw StoreError.git(error, while: doing())
    }
}
