import Foundation
import Testing

/// `cards clone` from servers set up the usual ways.
@Suite("Clone")
struct CloneTests {
    @Test("a clone from a path where there is no repository says so, and leaves nothing behind")
    func missingLocalRemote() throws {
        let scratch = try Scratch()
        let missing = scratch.path("nowhere.git")
        let target = scratch.path("copy")
        let result = try scratch.cards(["clone", missing, target])
        #expect(result.status == 1)
        #expect(result.stderr.contains("there is no repository at \(missing)"), "\(result.stderr)")
        #expect(!result.stderr.contains("server"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("a server made with `git init --bare` whose HEAD names master clones once a deck synced main into it")
    func remoteHeadOnUnbornMaster() throws {
        let scratch = try Scratch()
        let server = scratch.path("server.git")
        try scratch.git(["init", "-q", "--bare", server], in: scratch.root)
        try scratch.git(["symbolic-ref", "HEAD", "refs/heads/master"], in: server)
        let deck = try scratch.sampleDeck()
        #expect(try scratch.cards(["remote", "add", "origin", server], in: deck).status == 0)
        #expect(try scratch.cards(["sync"], in: deck).status == 0)
        for (index, url) in [server, "file://" + server].enumerated() {
            let clone = scratch.path("clone\(index)")
            let result = try scratch.cards(["clone", url, clone])
            #expect(result.status == 0, "\(url): \(result.stderr)")
            #expect(try scratch.revParse(clone, "main") == (try scratch.revParse(deck, "main")))
            #expect(try scratch.cards(["export"], in: clone).stdout == (try scratch.cards(["export"], in: deck).stdout))
            #expect(
                try scratch.git(["rev-parse", "--abbrev-ref", "main@{upstream}"], in: clone).stdout == "origin/main\n")
            try scratch.expectClean(clone)
            #expect(try scratch.cards(["sync"], in: clone).status == 0)
            let undo = try scratch.cards(["undo"], in: clone)
            #expect(undo.status == 1 && undo.stderr.contains("nothing to undo"), "undo must not revert the clone")
        }
    }
}
