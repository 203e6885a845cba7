import Foundation
import Testing

/// How a device's sparse checkout is set up (`git sparse-checkout set`).
enum SparseMode: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// Cone mode (git's default): one card folder and the files at the top.
    case cone
    /// Non-cone patterns (gitignore syntax): the top-level files and one card folder's cards.
    case nonCone

    var testDescription: String { rawValue }

    /// The `git sparse-checkout set` arguments that keep `folder` (`cards/xx`) checked out.
    func setArguments(keeping folder: String) -> [String] {
        switch self {
        case .cone: return ["sparse-checkout", "set", folder]
        case .nonCone: return ["sparse-checkout", "set", "--no-cone", "/*.json", "/.gitattributes", "/\(folder)/*.json"]
        }
    }
}

/// A deck on a device with git's sparse checkout (issue 32): the cards outside it are never taken for
/// deletions, never written into the working tree, and keep their skip-worktree bits through every
/// command, as plain git keeps them in the same set-up; a sparse index is refused before anything is
/// written and made full by `cards fsck --repair`; a commit of hand edits that would delete most of
/// the deck asks first, as the push does.
@Suite("Sparse checkouts")
struct SparseCheckoutTests {
    /// The card files of `main` on the server.
    static func serverCards(_ scratch: Scratch, _ server: GitServer) throws -> Set<String> {
        let listed = try scratch.git(
            ["--git-dir", server.repository, "ls-tree", "-r", "--name-only", "main", "cards"], in: scratch.root)
        return Set(listed.stdout.split(separator: "\n").map(String.init))
    }

    /// `git ls-files -t` of a deck: each path with git's tag (`H` checked out, `S` skip-worktree).
    static func entryTags(_ scratch: Scratch, _ deck: String) throws -> [String: String] {
        let listed = try scratch.git(["ls-files", "-t"], in: deck).stdout
        var tags: [String: String] = [:]
        for line in listed.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { tags[String(parts[1])] = String(parts[0]) }
        }
        return tags
    }

    /// The sparse device as git leaves it: `git status` clean, every path outside `folder` (but the
    /// top-level files) skip-worktree and absent from the working tree, every card inside checked out.
    static func expectSparse(
        _ scratch: Scratch, _ deck: String, keeping folder: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let status = try scratch.git(["status", "--porcelain"], in: deck)
        #expect(status.stdout.isEmpty, "git status is not clean: \(status.stdout)", sourceLocation: sourceLocation)
        let tags = try entryTags(scratch, deck)
        #expect(!tags.isEmpty, sourceLocation: sourceLocation)
        for (path, tag) in tags {
            let inside = path.hasPrefix(folder + "/") || !path.contains("/")
            let present = FileManager.default.fileExists(atPath: deck + "/" + path)
            #expect(
                tag == (inside ? "H" : "S") && present == inside,
                "\(path): tag \(tag), \(present ? "in" : "not in") the working tree", sourceLocation: sourceLocation)
        }
        // No file of the outside folders written, not even an empty folder of them.
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: deck + "/cards")) ?? []
        #expect(
            folders == [String(folder.dropFirst("cards/".count))], "card folders in the working tree: \(folders)",
            sourceLocation: sourceLocation)
    }

    /// The id of a card file's path.
    static func id(_ path: String) -> String {
        String(path.split(separator: "/").last!.dropLast(".json".count))
    }

    @Test("a sparse device syncs with two others: nothing deleted, nothing outside written, git's sparse state kept", arguments: SparseMode.allCases)
    func syncsWithTwoDevices(mode: SparseMode) throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let laptop = try scratch.clone(server, "laptop")
        let phone = try scratch.clone(server, "phone")
        let sparse = try scratch.clone(server, "sparse")
        var expected = try Self.serverCards(scratch, server)
        let folder = String(expected.sorted()[0].split(separator: "/").prefix(2).joined(separator: "/"))
        let set = try scratch.git(mode.setArguments(keeping: folder), in: sparse)
        try #require(set.status == 0, "git sparse-checkout failed: \(set.stderr)")
        // Plain git in the same set-up, to compare with.
        let twin = scratch.path("twin")
        _ = try scratch.git(["clone", "-q", server.repository, twin], in: scratch.root)
        _ = try scratch.git(mode.setArguments(keeping: folder), in: twin)
        try Self.expectSparse(scratch, sparse, keeping: folder)
        let outside = expected.filter { !$0.hasPrefix(folder + "/") }.sorted()
        try #require(outside.count >= 8)

        // Nothing to commit, nothing pushed: the skipped cards are not hand deletions.
        let status = try scratch.cards(["status"], in: sparse)
        #expect(status.status == 0 && !status.stdout.contains("deleted"), "\(status.stdout)\(status.stderr)")
        let first = try scratch.sync(sparse)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Self.serverCards(scratch, server) == expected)
        try Self.expectSparse(scratch, sparse, keeping: folder)

        // The laptop adds two cards, edits one outside the cone and deletes another; the phone adds one
        // and edits another outside card (a merge with the laptop's push).
        let laptopAdds = [try scratch.addCard(laptop, "Laptop one"), try scratch.addCard(laptop, "Laptop two")]
        #expect(try scratch.cards(["edit", Self.id(outside[0]), "--title", "Edited on the laptop"], in: laptop).status == 0)
        #expect(try scratch.cards(["delete", Self.id(outside[1])], in: laptop).status == 0)
        #expect(try scratch.sync(laptop).status == 0)
        let phoneAdd = try scratch.addCard(phone, "Phone one")
        #expect(try scratch.cards(["edit", Self.id(outside[2]), "--title", "Edited on the phone"], in: phone).status == 0)
        let phoneSync = try scratch.sync(phone)
        #expect(phoneSync.status == 0, "\(phoneSync.stderr)")
        expected.subtract([outside[1]])
        for id in laptopAdds + [phoneAdd] { expected.insert("cards/\(id.prefix(2))/\(id).json") }
        #expect(try Self.serverCards(scratch, server) == expected)

        // The sparse device: a fast-forward first, then its own add, outside edit and outside delete, merged.
        let forward = try scratch.sync(sparse)
        #expect(forward.status == 0, "\(forward.stderr)")
        try Self.expectSparse(scratch, sparse, keeping: folder)
        let sparseAdd = try scratch.addCard(sparse, "Sparse one")
        try Self.expectSparse(scratch, sparse, keeping: folder)
        let edit = try scratch.cards(["edit", Self.id(outside[3]), "--title", "Edited on the sparse device"], in: sparse)
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(try scratch.cards(["delete", Self.id(outside[4])], in: sparse).status == 0)
        try Self.expectSparse(scratch, sparse, keeping: folder)
        let laptopThree = try scratch.addCard(laptop, "Laptop three")
        #expect(try scratch.cards(["edit", Self.id(outside[5]), "--title", "Edited again"], in: laptop).status == 0)
        #expect(try scratch.sync(laptop).status == 0)
        let merged = try scratch.sync(sparse)
        #expect(merged.status == 0, "\(merged.stderr)")
        try Self.expectSparse(scratch, sparse, keeping: folder)
        expected.subtract([outside[4]])
        for id in [sparseAdd, laptopThree] { expected.insert("cards/\(id.prefix(2))/\(id).json") }
        #expect(try Self.serverCards(scratch, server) == expected)
        for deck in [laptop, phone] { #expect(try scratch.sync(deck).status == 0) }
        #expect(try scratch.sync(sparse).status == 0)
        try Self.expectSparse(scratch, sparse, keeping: folder)
        #expect(try Self.serverCards(scratch, server) == expected)
        try scratch.expectConverged([laptop, phone], server)
        #expect(try scratch.main(sparse) == (try server.main(scratch)))

        // Every edit arrived, as the laptop lists them.
        let titles = try scratch.cards(["list", "--json"], in: laptop).stdout
        for title in ["Edited on the laptop", "Edited on the phone", "Edited on the sparse device", "Edited again"] {
            #expect(titles.contains(title), "\(title) is missing")
        }

        // Plain git, pulled to the same commit in the same set-up, checks out and skips the same paths.
        let pulled = try scratch.git(["pull", "-q", "--ff-only"], in: twin)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try Self.entryTags(scratch, twin) == (try Self.entryTags(scratch, sparse)))

        // fsck and fsck --repair find nothing and change nothing.
        let tagsBefore = try Self.entryTags(scratch, sparse)
        let check = try scratch.cards(["fsck"], in: sparse)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let repair = try scratch.cards(["fsck", "--repair"], in: sparse)
        #expect(repair.status == 0 && !repair.stdout.contains("repaired"), "\(repair.stdout)\(repair.stderr)")
        #expect(try Self.entryTags(scratch, sparse) == tagsBefore)
        try Self.expectSparse(scratch, sparse, keeping: folder)
        #expect(try scratch.sync(sparse).status == 0)
        #expect(try Self.serverCards(scratch, server) == expected)
    }

    @Test("an index behind main on a sparse device: fsck --repair brings it along and keeps every skip-worktree bit")
    func repairBehindMainKeepsSparseState() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let laptop = try scratch.clone(server, "laptop")
        let sparse = try scratch.clone(server, "sparse")
        let cards = try Self.serverCards(scratch, server).sorted()
        let folder = String(cards[0].split(separator: "/").prefix(2).joined(separator: "/"))
        #expect(try scratch.git(SparseMode.cone.setArguments(keeping: folder), in: sparse).status == 0)
        let outside = cards.filter { !$0.hasPrefix(folder + "/") }
        // First an edit outside the cone alone, then an edit and a new card (which git's patterns place).
        for round in 0..<2 {
            #expect(try scratch.cards(["edit", Self.id(outside[round]), "--title", "Moved on"], in: laptop).status == 0)
            if round == 1 { _ = try scratch.addCard(laptop, "Another") }
            #expect(try scratch.sync(laptop).status == 0)
            // main moves without the index and working tree (git fetch + update-ref).
            #expect(try scratch.git(["fetch", "-q", "origin"], in: sparse).status == 0)
            #expect(
                try scratch.git(["update-ref", "refs/heads/main", "refs/remotes/origin/main"], in: sparse).status == 0)
            let repair = try scratch.cards(["fsck", "--repair"], in: sparse)
            #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
            try Self.expectSparse(scratch, sparse, keeping: folder)
        }
        #expect(try scratch.sync(sparse).status == 0)
        #expect(try Self.serverCards(scratch, server).count == cards.count + 1)
    }

    @Test("a sparse index is refused before anything is written; fsck --repair makes it full, deleting nothing")
    func sparseIndexRefusedThenRepaired() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let sparse = try scratch.clone(server, "sparse")
        let cards = try Self.serverCards(scratch, server)
        let folder = String(cards.sorted()[0].split(separator: "/").prefix(2).joined(separator: "/"))
        let set = try scratch.git(["sparse-checkout", "set", "--sparse-index", folder], in: sparse)
        try #require(set.status == 0, "\(set.stderr)")
        let indexBefore = FileManager.default.contents(atPath: sparse + "/.git/index")
        let mainBefore = try scratch.main(sparse)
        let remoteBefore = try server.main(scratch)
        for arguments in [["add", "--title", "T", "--url", "https://example.org"], ["status"], ["sync"], ["commit"]] {
            let run = try scratch.cards(arguments, in: sparse)
            #expect(run.status == 1, "\(arguments[0]) did not refuse: \(run.stdout)")
            #expect(
                run.stderr.contains("sparse index") && run.stderr.contains("git sparse-checkout reapply --no-sparse-index"),
                "\(arguments[0]): \(run.stderr)")
            #expect(FileManager.default.contents(atPath: sparse + "/.git/index") == indexBefore)
            #expect(try scratch.main(sparse) == mainBefore)
        }
        #expect(try server.main(scratch) == remoteBefore)
        #expect(try scratch.git(["status", "--porcelain"], in: sparse).stdout.isEmpty)
        let check = try scratch.cards(["fsck"], in: sparse)
        #expect(check.status == 1 && check.stderr.contains("sparse index"), "\(check.stdout)\(check.stderr)")
        let repair = try scratch.cards(["fsck", "--repair"], in: sparse)
        #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
        try Self.expectSparse(scratch, sparse, keeping: folder)
        let sync = try scratch.sync(sparse)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try Self.serverCards(scratch, server) == cards)
        _ = try scratch.addCard(sparse, "After the repair")
        try Self.expectSparse(scratch, sparse, keeping: folder)
    }

    @Test("a commit of hand edits that deletes most of the deck asks first, as the push does")
    func localMassDeleteGuard() throws {
        let scratch = try Scratch.forSync()
        let server = try scratch.server(.path)
        let deck = try scratch.clone(server, "deck")
        let cards = try Self.serverCards(scratch, server).sorted()
        try #require(cards.count == 16)
        let mainBefore = try scratch.main(deck)
        // Three gone by hand: an ordinary commit.
        for path in cards.prefix(3) { try FileManager.default.removeItem(atPath: deck + "/" + path) }
        let few = try scratch.cards(["commit"], in: deck)
        #expect(few.status == 0, "\(few.stderr)")
        // Nine more of the thirteen left: more than half, but not more than ten, so still no question.
        for path in cards[3..<12] { try FileManager.default.removeItem(atPath: deck + "/" + path) }
        let nine = try scratch.cards(["status"], in: deck)
        #expect(nine.status == 0)
        for path in cards[12..<14] { try FileManager.default.removeItem(atPath: deck + "/" + path) }
        // 11 of 13 cards missing: refused by commit and by sync, before anything is written or sent.
        let afterFew = try scratch.main(deck)
        #expect(afterFew != mainBefore)
        let commit = try scratch.cards(["commit"], in: deck)
        #expect(commit.status == 1)
        #expect(
            commit.stderr.contains("11 of the deck's 13 cards") && commit.stderr.contains("cards commit --allow-mass-delete"),
            "\(commit.stderr)")
        let sync = try scratch.sync(deck)
        #expect(sync.status == 1)
        #expect(sync.stderr.contains("cards sync --allow-mass-delete"), "\(sync.stderr)")
        #expect(try scratch.main(deck) == afterFew)
        #expect(try server.main(scratch) == mainBefore)
        let dryRun = try scratch.sync(deck, ["--dry-run"])
        #expect(dryRun.status == 1 && dryRun.stderr.contains("--allow-mass-delete"), "\(dryRun.stderr)")
        // Confirmed: committed, and the push's own guard is confirmed by the same flag.
        let allowed = try scratch.sync(deck, ["--allow-mass-delete"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try Self.serverCards(scratch, server).count == 2)
        try scratch.expectClean(deck)
    }
}
