import CGit2

/// A failure reported by libgit2, with the call that failed and a code a caller can act on.
public struct GitError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is, for callers that retry or explain.
    public enum Code: Sendable, Equatable {
        /// The object, reference or path does not exist (`GIT_ENOTFOUND`).
        case notFound
        /// The object or reference already exists (`GIT_EEXISTS`).
        case exists
        /// A reference moved since it was read (`GIT_EMODIFIED`): re-read and retry.
        case referenceChanged
        /// A lock file is held by another writer (`GIT_ELOCKED`).
        case locked
        /// The remote has commits we do not (`GIT_ENONFASTFORWARD`): fetch, merge, push again.
        case nonFastForward
        /// The server refused a push for a reason of its own (a hook, a branch rule, permissions):
        /// pushing again would meet the same refusal. Its words are in `message` and `serverMessages`.
        case pushRefused
        /// The server answered, with an error (a missing repository, an HTTP error status, a refused
        /// login shell): not a problem of reaching it. Its words are in `message` and `serverMessages`.
        case remoteFailed
        /// The transfer gave up after the remote said nothing for too long, or took too long.
        case timedOut
        /// Authentication failed (`GIT_EAUTH`).
        case authentication
        /// The server's certificate or host key was refused (`GIT_ECERTIFICATE`).
        case certificate
        /// The repository is owned by another user (`GIT_EOWNER`).
        case owner
        /// A callback of ours failed; the original error is in `underlying`.
        case user
        /// An object larger than the caller allows (`readBlob(_:limit:)`): said before it is read.
        case tooLarge
        /// A system call failed (writing, creating or flushing a file, starting a process): the value is
        /// its `errno` (`ENOSPC`, `EACCES`, `EROFS`…), for a caller that tells a full disk from a
        /// read-only one; the message names the file and says it in words.
        case system(Int32)
        /// Any other libgit2 error code.
        case other(Int32)
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
