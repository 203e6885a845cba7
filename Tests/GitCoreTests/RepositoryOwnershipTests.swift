import Foundation
@testable import GitCore
import Testing

/// The pieces of git's ownership check read as git 2.39 reads them (OwnershipTests compares the whole
/// check with `git` on real repositories).
@Suite("RepositoryOwnership")
struct RepositoryOwnershipTests {
    @Test("GIT_CONFIG_PARAMETERS in git's two forms, quotes and all; a malformed one is no config")
    func parameters() {
        let parsed = RepositoryOwnership.parseParameters(
            "'safe.directory'='/a b' 'Safe.Directory=/c' 'safe.directory'= 'core.x'='it'\\''s'  'Safe.sub.Directory'='/d'"
        )
        #expect(
            parsed?.map(\.key) == [
                "safe.directory", "safe.directory", "safe.directory", "core.x", "safe.sub.directory",
            ])
        #expect(parsed?.map(\.value) == ["/a b", "/c", nil, "it's", "/d"])
        #expect(RepositoryOwnership.parseParameters("safe.directory=/x") == nil)
        #expect(RepositoryOwnership.parseParameters("'safe.directory'=/x") == nil)
        #expect(RepositoryOwnership.parseParameters("'unterminated") == nil)
        #expect(RepositoryOwnership.parseParameters("")?.isEmpty == true)
    }

    @Test("GIT_CONFIG_COUNT's entries come before GIT_CONFIG_PARAMETERS', as git reads them; a missing key fails")
    func commandLineOrder() throws {
        let environment = [
            "GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": "/one",
            "GIT_CONFIG_KEY_1": "SAFE.directory", "GIT_CONFIG_VALUE_1": "",
            "GIT_CONFIG_PARAMETERS": "'safe.directory'='*'",
        ]
        let entries = try RepositoryOwnership.commandLineEntries { environment[$0] }.get()
        #expect(entries.map(\.value) == ["/one", "", "*"])
        let broken = ["GIT_CONFIG_COUNT": "1"]
        #expect((try? RepositoryOwnership.commandLineEntries { broken[$0] }.get()) == nil)
    }

    @Test("SUDO_UID as git's strtoul reads it: all of it a number, or nothing")
    func sudo() {
        #expect(RepositoryOwnership.sudoUserID("1000") == 1000)
        #expect(RepositoryOwnership.sudoUserID("1000x") == nil)
        #expect(RepositoryOwnership.sudoUserID("") == nil)
        #expect(RepositoryOwnership.isOwnedByCurrentUser("/", effectiveUser: 0, sudoUser: nil))
        #expect(!RepositoryOwnership.isOwnedByCurrentUser("/", effectiveUser: 4242, sudoUser: "0"))
    }

    @Test("a folder shown in the remedy is quoted only where git quotes it")
    func quoting() {
        #expect(RepositoryOwnership.prettyQuoted("/home/ada/cards-2.git") == "/home/ada/cards-2.git")
        #expect(RepositoryOwnership.prettyQuoted("/home/ada/my deck") == "'/home/ada/my deck'")
        #expect(RepositoryOwnership.prettyQuoted("/it's!") == "'/it'\\''s'\\!''")
    }
}
