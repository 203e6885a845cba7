import Foundation
@testable import GitCore
import TestSupport
import Testing

/// A remote resolved once (`Repository.resolveRemote`), as fetch, push and the pushability check take it.
@Suite("ResolvedRemote")
struct ResolvedRemoteTests {
    @Test("a configured remote: its URL, push URL and folder (a relative path from the repository's top), read once")
    func configured() throws {
        let scratch = try ScratchFolder()
        let work = scratch.path("deck")
        try scratch.git(["init", "-q", "-b", "main", work], in: scratch.root)
        try scratch.git(["remote", "add", "origin", "../server.git"], in: work)
        try scratch.git(
            ["remote", "set-url", "--push", "origin", "https://me:secret@example.com/deck.git"], in: work)
        let repository = try Repository.open(at: work)
        let origin = try repository.resolveRemote("origin", transport: .libgit2, settings: RemoteSettings())
        #expect(origin.isConfigured)
        #expect(origin.name == "origin")
        #expect(origin.url == "../server.git")
        #expect(origin.pushURL == "https://me:secret@example.com/deck.git")
        #expect(origin.localPath == (repository.workingDirectory ?? "") + "../server.git")
        #expect(origin.transport == .libgit2)
        #expect(origin.shownURL(pushing: false) == "../server.git")
        #expect(origin.shownURL(pushing: true) == "https://me:***@example.com/deck.git")
    }

    @Test("a URL that names no configured remote stands for itself; the transport as the settings choose it")
    func anonymous() throws {
        let scratch = try ScratchFolder()
        let work = scratch.path("deck.git")
        try scratch.git(["init", "-q", "--bare", "-b", "main", work], in: scratch.root)
        let repository = try Repository.open(at: work)
        var settings = RemoteSettings()
        settings.transport = "git"
        let server = try repository.resolveRemote("file:///srv/cards.git", settings: settings)
        #expect(!server.isConfigured)
        #expect(server.url == "file:///srv/cards.git")
        #expect(server.localPath == "/srv/cards.git")
        #expect(server.transport == .git)
        settings.transport = "carrier-pigeon"
        #expect(throws: GitError.self) { try repository.resolveRemote("origin", settings: settings) }
        let cloned = ResolvedRemote(url: "relative.git", transport: .libgit2, settings: RemoteSettings())
        #expect(!cloned.isConfigured && cloned.localPath == nil)
    }

    @Test("a repository on this machine with main checked out takes no push of main, through either transport")
    func pushable() throws {
        let scratch = try ScratchFolder()
        let work = scratch.path("deck")
        let other = scratch.path("other")
        try scratch.git(["init", "-q", "-b", "main", work], in: scratch.root)
        try scratch.git(["init", "-q", "-b", "main", other], in: scratch.root)
        try scratch.git(["remote", "add", "laptop", other], in: work)
        let repository = try Repository.open(at: work)
        for transport in [RemoteTransport.git, .libgit2] {
            let laptop = try repository.resolveRemote("laptop", transport: transport, settings: RemoteSettings())
            #expect(throws: GitError.self, "\(transport)") {
                try repository.checkPushable(laptop, branch: "refs/heads/main")
            }
        }
        // Through git, only the branch checked out there is refused.
        let laptop = try repository.resolveRemote("laptop", transport: .git, settings: RemoteSettings())
        try repository.checkPushable(laptop, branch: "refs/heads/elsewhere")
    }
}
