import CGit2

/// A failure reported by libgit2, with the call that failed and a code a caller can act on.
public struct GitError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is, for callers that retry or explain.
    ///
    /// An extensible set of named codes (as swift-nio's error codes are): a code added later breaks no
    /// caller's `switch`, which compares with `==` or `case .notFound:` and keeps a `default:`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name (`notFound`, `system`, `libgit2`…), stable across versions.
        public let name: String
        /// The `errno` of a `system` code, libgit2's return code of a `libgit2` one; 0 otherwise.
        public let value: Int32

        init(_ name: String, _ value: Int32 = 0) {
            self.name = name
            self.value = value
        }

        /// The name, with its number for `system` and `libgit2` codes.
        public var description: String { value == 0 ? name : "\(name)(\(value))" }

        /// The object, reference or path does not exist (`GIT_ENOTFOUND`).
        public static let notFound = Code("notFound")
        /// The object or reference already exists (`GIT_EEXISTS`).
        public static let exists = Code("exists")
        /// A reference moved since it was read (`GIT_EMODIFIED`): re-read and retry.
        public static let referenceChanged = Code("referenceChanged")
        /// A lock file is held by another writer (`GIT_ELOCKED`).
        public static let locked = Code("locked")
        /// The remote has commits we do not (`GIT_ENONFASTFORWARD`): fetch, merge, push again.
        public static let nonFastForward = Code("nonFastForward")
        /// The server refused a push for a reason of its own (a hook, a branch rule, permissions):
        /// pushing again would meet the same refusal. Its words are in `message` and `serverMessages`.
        public static let pushRefused = Code("pushRefused")
        /// The server answered, with an error (a missing repository, an HTTP error status, a refused
        /// login shell): not a problem of reaching it. Its words are in `message` and `serverMessages`.
        public static let remoteFailed = Code("remoteFailed")
        /// The transfer gave up after the remote said nothing for too long, or took too long.
        public static let timedOut = Code("timedOut")
        /// Authentication failed (`GIT_EAUTH`).
        public static let authentication = Code("authentication")
        /// The server's certificate or host key was refused (`GIT_ECERTIFICATE`).
        public static let certificate = Code("certificate")
        /// The repository is owned by another user (`GIT_EOWNER`).
        public static let owner = Code("owner")
        /// A callback of ours failed; the original error is in `underlying`.
        public static let user = Code("user")
        /// An object larger than the caller allows (`readBlob(_:limit:)`): said before it is read.
        public static let tooLarge = Code("tooLarge")
        /// The caller asked to stop (`RemoteSettings.isInterrupted`, a signal): what was begun was undone.
        public static let interrupted = Code("interrupted")
        /// An argument or setting we were given cannot be used (a refspec, a remote name, a transport).
        public static let invalidArgument = Code("invalidArgument")
        /// A git configuration value is invalid, or a setting it needs is missing (`gpg.format`, a key).
        public static let invalidConfig = Code("invalidConfig")
        /// The repository's data is damaged (an object of the wrong type, a pack that cannot be read, a
        /// commit without an author): `git fsck` locates it.
        public static let damaged = Code("damaged")
        /// A push git or libgit2 refuses to make here (a branch checked out in the target's working tree,
        /// a working tree through libgit2's transport, a forced push).
        public static let refused = Code("refused")
        /// A `git` process or a signing program failed; its words are in `message`.
        public static let processFailed = Code("processFailed")
        /// libgit2 returned no object where it promises one: a failure of its own, not of the input.
        public static let unexpected = Code("unexpected")
        /// A ref was not moved because its new target was removed meanwhile (by git's maintenance, say):
        /// writing the object again and retrying is the remedy.
        public static let targetRemoved = Code("targetRemoved")
        /// The remote has none of the branches asked for (an empty repository, or not a deck).
        public static let noSuchBranch = Code("noSuchBranch")

        /// A system call failed (writing, creating or flushing a file, starting a process): `errorNumber`
        /// is its `errno` (`ENOSPC`, `EACCES`, `EROFS`…), for a caller that tells a full disk from a
        /// read-only one; the message names the file and says it in words.
        public static func system(_ errorNumber: Int32) -> Code { Code("system", errorNumber) }
        /// Any other libgit2 error code.
        public static func other(_ libgit2Code: Int32) -> Code { Code("libgit2", libgit2Code) }

        /// The `errno` of a `system` code, else nil.
        public var errorNumber: Int32? { name == "system" ? value : nil }
    }

    /// The failure's kind.
    public var code: Code
    /// libgit2's message, or our own when libgit2 gave none.
    public var message: String
    /// The libgit2 function that failed.
    public var function: String
    /// libgit2's error class (`GIT_ERROR_*`), when one was reported.
    public var errorClass: Int32
    /// What the server said on its side (`remote:` lines), as it said them, without the prefix.
    public var serverMessages: [String]
    /// The URL the transfer used, when it is not the remote's fetch URL (a push URL, say).
    public var url: String?

    /// Creates an error; used by the wrapper and by tests.
    public init(
        code: Code, message: String, function: String, errorClass: Int32 = 0, serverMessages: [String] = [],
        url: String? = nil
    ) {
        self.code = code
        self.message = message
        self.function = function
        self.errorClass = errorClass
        self.serverMessages = serverMessages
        self.url = url
    }

    /// One line: the message, then the failing call in parentheses.
    public var description: String {
        "\(message) (\(function))"
    }

    /// Maps a libgit2 return code to a named case.
    static func code(for result: Int32) -> Code {
        switch result {
        case GIT_ENOTFOUND.rawValue: return .notFound
        case GIT_EEXISTS.rawValue: return .exists
        case GIT_EMODIFIED.rawValue: return .referenceChanged
        case GIT_ELOCKED.rawValue: return .locked
        case GIT_ENONFASTFORWARD.rawValue: return .nonFastForward
        case GIT_EAUTH.rawValue: return .authentication
        case GIT_ECERTIFICATE.rawValue: return .certificate
        case GIT_EOWNER.rawValue: return .owner
        case GIT_EUSER.rawValue: return .user
        default: return .other(result)
        }
    }

    /// Reads and clears libgit2's per-thread error right after a failing call.
    static func last(_ result: Int32, function: String) -> GitError {
        var message = "libgit2 error \(result)"
        var errorClass: Int32 = 0
        if let last = git_error_last() {
            if let text = last.pointee.message {
                message = String(cString: text).trimmingTrailingNewlines()
            }
            errorClass = last.pointee.klass
        }
        git_error_clear()
        return GitError(code: code(for: result), message: message, function: function, errorClass: errorClass)
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var text = self
        while text.last == "\n" || text.last == "\r" { text.removeLast() }
        return text
    }
}

/// Throws a `GitError` when a libgit2 call returned a negative code.
@inline(__always)
func check(_ result: Int32, _ function: String) throws(GitError) {
    if result < 0 { throw GitError.last(result, function: function) }
}
