import GitCore
import Testing

/// GitError's codes as an extensible set: named, distinct, comparable with `==` and in a `switch` with
/// `default:`, numbers kept for system and libgit2 codes.
@Suite("Error codes")
struct ErrorCodeTests {
    static let named: [GitError.Code] = [
        .notFound, .exists, .referenceChanged, .locked, .nonFastForward, .pushRefused, .remoteFailed, .timedOut,
        .authentication, .certificate, .owner, .user, .tooLarge, .interrupted, .invalidArgument, .invalidConfig,
        .damaged, .refused, .processFailed, .unexpected, .targetRemoved, .noSuchBranch,
    ]

    @Test("each named code is distinct and says its name")
    func distinct() {
        #expect(Set(Self.named).count == Self.named.count)
        #expect(Set(Self.named.map(\.name)).count == Self.named.count)
        #expect(GitError.Code.notFound.description == "notFound")
    }

    @Test("system and libgit2 codes keep their numbers")
    func numbers() {
        #expect(GitError.Code.system(28).errorNumber == 28)
        #expect(GitError.Code.system(28) == .system(28))
        #expect(GitError.Code.system(28) != .system(30))
        #expect(GitError.Code.other(-3).errorNumber == nil)
        #expect(GitError.Code.other(-3).description == "libgit2(-3)")
        #expect(GitError.Code.notFound.errorNumber == nil)
    }

    @Test("a switch with a default compiles against every code, present and future")
    func switchWithDefault() {
        func retryable(_ code: GitError.Code) -> Bool {
            switch code {
            case .referenceChanged, .locked, .timedOut: true
            default: false
            }
        }
        #expect(retryable(.locked))
        #expect(!retryable(.damaged))
    }
}
