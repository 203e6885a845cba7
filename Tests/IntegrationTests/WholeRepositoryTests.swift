import Foundation
import TestSupport
import Testing

/// A deck's repository is also an ordinary git repository: what plain git users keep in it (files that
/// are not cards, links, submodules, executables) keeps git's semantics through `cards sync` (issue 23).
@Suite("The whole repository is the user's")
struct WholeRepositoryTests {
    /// A bare deck `remote.git`, a `cards` clone `a`, and a plain `git clone` `g` (no cards on its side).
    func remoteWithPlainGitDevice(_ scratch: Scratch) throws -> (remote: String, deck: String, plain: String) {
        let (remote, clones) = try scratch.remoteAndClones(["a"])
        let plain = scratch.path("g")
        try scratch.gitChecked(["clone", "-q", remote, plain], in: scratch.root)
        return (remote, clones[0], plain)
    }

    func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// `git ls-tree -r` of main in `repository`: path to "mode type id".
    func entries(_ scratch: Scratch, _ repository: String) throws -> [String: String] {
        let listing = try scratch.git(["ls-tree", "-r", "main"], in: repository).stdout
        var result: [String: String] = [:]
        for line in listing.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            if parts.count == 2 { result[String(parts[1])] = String(parts[0]) }
        }
        return result
    }

    func lines(_ count: Int, _ word: String) -> String {
        (1...count).map { "\(word) \($0)\n" }.joined()
    }

    @Test("a link, a submodule, an executable and a README a plain git user added survive a merging sync, both ways")
    func plainGitEntriesSurvive() throws {
        let scratch = try Scratch()
        let (remote, deck, plain) = try remoteWithPlainGitDevice(scratch)
        try write(lines(5, "line"), to: plain + "/README.md")
        try write("#!/bin/sh\necho run\n", to: plain + "/tools/run.sh")
        chmod(plain + "/tools/run.sh", 0o755)
        try FileManager.default.createDirectory(atPath: plain + "/docs", withIntermediateDirectories: true)
        symlink("../README.md", plain + "/docs/link")
        let submoduleCommit = try scratch.revParse(plain, "HEAD")
        // As a submodule not yet cloned looks to git: an empty folder.
        try FileManager.default.createDirectory(atPath: plain + "/vendor/lib", withIntermediateDirectories: true)
        try scratch.gitChecked(
            ["update-index", "--add", "--cacheinfo", "160000,\(submoduleCommit),vendor/lib"], in: plain)
        try scratch.gitChecked(["add", "README.md", "tools/run.sh", "docs/link"], in: plain)
        try scratch.gitChecked(["commit", "-qm", "Plain git: readme, tool, link, submodule"], in: plain)
        try scratch.gitChecked(["push", "-q", "origin", "main"], in: plain)
        // The deck changed meanwhile: the sync merges, and the merge commit is what goes out.
        try scratch.addCard(deck, "Made on a")
        let sync = try scratch.sync(deck)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("Merged"), "\(sync.stdout)")
        let pushed = try entries(scratch, remote)
        #expect(pushed["README.md"]?.hasPrefix("100644 blob") == true)
        #expect(pushed["tools/run.sh"]?.hasPrefix("100755 blob") == true, "\(pushed["tools/run.sh"] ?? "missing")")
        #expect(pushed["docs/link"]?.hasPrefix("120000 blob") == true, "\(pushed["docs/link"] ?? "missing")")
        #expect(pushed["vendor/lib"] == "160000 commit \(submoduleCommit)", "\(pushed["vendor/lib"] ?? "missing")")
        // The deck's working tree is clean to git, and the card came through to the plain git user.
        try scratch.expectClean(deck)
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
        try scratch.gitChecked(["pull", "-q", "--no-rebase", "origin", "main"], in: plain)
        let pulled = try entries(scratch, plain)
        for path in ["README.md", "tools/run.sh", "docs/link", "vendor/lib"] {
            #expect(pulled[path] == pushed[path], "\(path) changed on the plain git side")
        }
        let plainStatus = try scratch.git(["status", "--porcelain"], in: plain).stdout
        #expect(plainStatus.isEmpty, "\(plainStatus)")
        // A later sync (nothing new) and a later card change keep them too.
        try scratch.addCard(deck, "Second")
        #expect(try scratch.sync(deck).status == 0)
        let again = try entries(scratch, remote)
        for path in ["README.md", "tools/run.sh", "docs/link", "vendor/lib"] { #expect(again[path] == pushed[path]) }
        #expect(try scratch.git(["fsck", "--strict", "--no-dangling"], in: remote).status == 0)
    }

    @Test("a README edited on both sides on different lines keeps both edits; on the same line the sync stops")
    func textFileMergedLineByLine() throws {
        let scratch = try Scratch()
        let (remote, deck, plain) = try remoteWithPlainGitDevice(scratch)
        try write(lines(6, "line"), to: plain + "/README.md")
        try scratch.gitChecked(["add", "README.md"], in: plain)
        try scratch.gitChecked(["commit", "-qm", "readme"], in: plain)
        try scratch.gitChecked(["push", "-q", "origin", "main"], in: plain)
        #expect(try scratch.sync(deck).status == 0)
        // Different lines: merged as git merges them.
        try write(lines(6, "line").replacingOccurrences(of: "line 1\n", with: "plain 1\n"), to: plain + "/README.md")
        try scratch.gitChecked(["commit", "-qam", "plain edits line 1"], in: plain)
        try scratch.gitChecked(["push", "-q", "origin", "main"], in: plain)
        try write(lines(6, "line").replacingOccurrences(of: "line 6\n", with: "deck 6\n"), to: deck + "/README.md")
        // Uncommitted, the edit stops the sync with the git command that commits it (cards commit takes cards).
        let refused = try scratch.sync(deck)
        #expect(refused.status == 1 && refused.stderr.contains("git add README.md"), "\(refused.stderr)")
        try scratch.gitChecked(["commit", "-qam", "deck edits line 6"], in: deck)
        let merged = try scratch.sync(deck)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.contains("README.md: changed on both sides, merged line by line"), "\(merged.stdout)")
        let both = try scratch.git(["show", "main:README.md"], in: remote).stdout
        #expect(both.contains("plain 1\n") && both.contains("deck 6\n"), "\(both)")
        try scratch.expectClean(deck)
        // The same line: nothing is merged or pushed, and the message says how to settle it with git.
        try scratch.gitChecked(["pull", "-q", "--no-rebase", "origin", "main"], in: plain)
        try write(both.replacingOccurrences(of: "line 3\n", with: "plain 3\n"), to: plain + "/README.md")
        try scratch.gitChecked(["commit", "-qam", "plain edits line 3"], in: plain)
        try scratch.gitChecked(["push", "-q", "origin", "main"], in: plain)
        try write(both.replacingOccurrences(of: "line 3\n", with: "deck 3\n"), to: deck + "/README.md")
        try scratch.gitChecked(["commit", "-qam", "deck edits line 3"], in: deck)
        let remoteBefore = try scratch.main(remote)
        let deckBefore = try scratch.main(deck)
        let conflict = try scratch.sync(deck)
        #expect(conflict.status == 1, "\(conflict.stdout)")
        #expect(
            conflict.stderr.contains("README.md") && conflict.stderr.contains("git merge origin/main"),
            "\(conflict.stderr)")
        #expect(!conflict.stderr.contains("another device"))
        #expect(try scratch.main(remote) == remoteBefore && scratch.main(deck) == deckBefore)
        try scratch.expectClean(deck)
        // Settled as the message says: git merge (the driver merges cards), edit, commit, sync.
        let gitMerge = try scratch.git(["merge", "origin/main"], in: deck)
        #expect(gitMerge.status == 1 && gitMerge.stdout.contains("CONFLICT"), "\(gitMerge.stdout)")
        try write(both.replacingOccurrences(of: "line 3\n", with: "both 3\n"), to: deck + "/README.md")
        try scratch.gitChecked(["add", "README.md"], in: deck)
        try scratch.gitChecked(["commit", "-qm", "settle README.md"], in: deck)
        let settled = try scratch.sync(deck)
        #expect(settled.status == 0, "\(settled.stderr)")
        #expect(try scratch.git(["show", "main:README.md"], in: remote).stdout.contains("both 3\n"))
        try scratch.expectClean(deck)
    }

    @Test("a remote rewritten with new commit ids is refused, nothing changes; asked for, it is merged")
    func rewrittenRemoteRefused() throws {
        let scratch = try Scratch()
        let (remote, deck, plain) = try remoteWithPlainGitDevice(scratch)
        try scratch.addCard(deck, "Only on the deck")
        // Every commit id new, the same deck: a history rewritten and force-pushed.
        try scratch.gitChecked(["checkout", "-q", "--orphan", "rewritten"], in: plain)
        try scratch.gitChecked(["commit", "-qm", "Rewritten history"], in: plain)
        try scratch.gitChecked(["push", "-q", "--force", "origin", "rewritten:main"], in: plain)
        let remoteBefore = try scratch.main(remote)
        let deckBefore = try scratch.main(deck)
        let refused = try scratch.sync(deck)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("origin/main shares no history with this deck"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--allow-unrelated-histories"))
        #expect(try scratch.main(remote) == remoteBefore && scratch.main(deck) == deckBefore)
        let joined = try scratch.sync(deck, ["--allow-unrelated-histories"])
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(try scratch.main(remote) == scratch.main(deck))
        #expect(try scratch.cards(["list"], in: deck).stdout.contains("Only on the deck"))
    }

    @Test(
        "a shallow clone is refused up front with `git fetch --unshallow`, then syncs; a partial clone is told to clone whole"
    )
    func shallowAndPartialClones() throws {
        let scratch = try Scratch()
        let (remote, clones) = try scratch.remoteAndClones(["a"])
        try scratch.addCard(clones[0], "Newer")
        #expect(try scratch.sync(clones[0]).status == 0)
        try scratch.gitChecked(["config", "uploadpack.allowfilter", "true"], in: remote)
        let shallow = scratch.path("shallow")
        try scratch.gitChecked(["clone", "-q", "--depth", "1", "file://" + remote, shallow], in: scratch.root)
        try scratch.addCard(clones[0], "After the shallow clone")
        #expect(try scratch.sync(clones[0]).status == 0)
        try scratch.addCard(shallow, "On the shallow clone")
        let before = try scratch.main(remote)
        // fsck says what it did not check, and finds no damage in what git left out on purpose.
        let fsckShallow = try scratch.cards(["fsck"], in: shallow)
        #expect(fsckShallow.status == 0 && fsckShallow.stdout.contains("shallow clone"), "\(fsckShallow.stdout)")
        let refused = try scratch.sync(shallow)
        #expect(refused.status == 1 && refused.stderr.contains("git fetch --unshallow"), "\(refused.stderr)")
        #expect(try scratch.main(remote) == before)
        #expect(try scratch.cards(["list"], in: shallow).stdout.contains("On the shallow clone"))
        try scratch.gitChecked(["fetch", "-q", "--unshallow", "origin"], in: shallow)
        let synced = try scratch.sync(shallow)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try scratch.cards(["list"], in: remote).stdout.contains("On the shallow clone"))
        let partial = scratch.path("partial")
        try scratch.gitChecked(["clone", "-q", "--filter=blob:none", "file://" + remote, partial], in: scratch.root)
        #expect(try scratch.cards(["list"], in: partial).stdout.contains("On the shallow clone"))
        let fsckPartial = try scratch.cards(["fsck"], in: partial)
        #expect(fsckPartial.status == 0 && fsckPartial.stdout.contains("partial clone"), "\(fsckPartial.stdout)")
        let told = try scratch.sync(partial)
        #expect(
            told.status == 1 && told.stderr.contains("partial clone") && told.stderr.contains("cards clone"),
            "\(told.stdout)\(told.stderr)")
    }

    @Test("cards init on a folder holding a deck's files takes them; inside another repository it asks for --nested")
    func initAdoptsAndRefusesNesting() throws {
        let scratch = try Scratch()
        let folder = scratch.path("copied")
        try FileManager.default.copyItem(atPath: Binaries.sampleRepo, toPath: folder)
        let made = try scratch.cards(["init", folder])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("with 16 cards"), "\(made.stdout)")
        try scratch.expectClean(folder)
        #expect(try scratch.cards(["fsck"], in: folder).status == 0)
        let outer = scratch.path("outer")
        try scratch.gitChecked(["init", "-q", outer], in: scratch.root)
        let nested = try scratch.cards(["init", outer + "/deck"])
        #expect(nested.status != 0 && nested.stderr.contains("--nested"), "\(nested.stderr)")
        #expect(!FileManager.default.fileExists(atPath: outer + "/deck/.git"))
        #expect(try scratch.cards(["init", "--nested", outer + "/deck"]).status == 0)
    }

    @Test(
        "a remote whose branch is master: cloned on master, synced there both ways, no main made beside it",
        arguments: ["git", "libgit2"])
    func masterBranchRemote(transport: String) throws {
        let scratch = try Scratch()
        scratch.environment["CARDS_TRANSPORT"] = transport
        let seed = scratch.path("seed")
        try scratch.gitChecked(["init", "-q", "-b", "master", seed], in: scratch.root)
        try FileManager.default.removeItem(atPath: seed + "/.git/hooks")
        for item in try FileManager.default.contentsOfDirectory(atPath: Binaries.sampleRepo) {
            try FileManager.default.copyItem(atPath: Binaries.sampleRepo + "/" + item, toPath: seed + "/" + item)
        }
        try scratch.gitChecked(["add", "-A"], in: seed)
        try scratch.gitChecked(["commit", "-qm", "A deck on master"], in: seed)
        let remote = scratch.path("remote.git")
        try scratch.gitChecked(["clone", "-q", "--bare", seed, remote], in: scratch.root)
        let deck = scratch.path("deck")
        let clone = try scratch.cards(["clone", remote, deck])
        #expect(clone.status == 0 && clone.stdout.contains("16 cards"), "\(clone.stdout)\(clone.stderr)")
        #expect(try scratch.git(["symbolic-ref", "HEAD"], in: deck).stdout == "refs/heads/master\n")
        try scratch.addCard(deck, "Made on master")
        let sync = try scratch.sync(deck)
        #expect(sync.status == 0 && sync.stdout.contains("Pushed master"), "\(sync.stdout)\(sync.stderr)")
        // A plain git user of the same remote changes master too; the deck takes it.
        let plain = scratch.path("plain")
        try scratch.gitChecked(["clone", "-q", remote, plain], in: scratch.root)
        try write("notes\n", to: plain + "/NOTES.md")
        try scratch.gitChecked(["add", "NOTES.md"], in: plain)
        try scratch.gitChecked(["commit", "-qm", "notes"], in: plain)
        try scratch.gitChecked(["push", "-q", "origin", "master"], in: plain)
        try scratch.addCard(deck, "Second on master")
        let merged = try scratch.sync(deck)
        #expect(merged.status == 0 && merged.stdout.contains("origin/master"), "\(merged.stdout)\(merged.stderr)")
        let branches = try scratch.git(["branch", "--format=%(refname:short)"], in: remote).stdout
        #expect(branches == "master\n", "\(branches)")
        let listed = try scratch.git(["log", "--format=%s", "master"], in: remote).stdout
        #expect(listed.contains("Made on master") && listed.contains("Second on master"), "\(listed)")
        // History, undo and fsck work on master as on main.
        #expect(try scratch.cards(["undo"], in: deck).status == 0)
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
        try scratch.expectClean(deck)
    }

    @Test(
        "property: a plain git device beside two cards devices; nothing any of them made is lost",
        arguments: TestSeeds.list("CARDS_WHOLE_REPO_SEEDS", count: 3, from: 2300))
    func plainGitBesideCards(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let scratch = try Scratch()
        let (remote, clones) = try scratch.remoteAndClones(["a", "b"])
        let plain = scratch.path("g")
        try scratch.gitChecked(["clone", "-q", remote, plain], in: scratch.root)
        let devices = clones + [plain]
        // notes.txt: one line per device, each device edits only its own, three lines apart (git merges
        // edits of lines that unchanged lines separate; adjacent ones it calls a conflict).
        try write(
            devices.indices.map { "device \($0): 0\n\n--\n\n" }.joined(), to: plain + "/notes.txt")
        try scratch.gitChecked(["add", "notes.txt"], in: plain)
        try scratch.gitChecked(["commit", "-qm", "notes"], in: plain)
        try scratch.gitChecked(["push", "-q", "origin", "main"], in: plain)
        // What the plain git device keeps (path to its kind), and each device's last line of notes.txt.
        var kept: [String: String] = [:]
        var noteValues = devices.map { _ in 0 }
        var cardsAdded: [String] = []
        let context = "seed \(seed) (replay: CARDS_WHOLE_REPO_SEEDS=1 from this seed)"
        func gitSync(_ device: String) throws {
            let pull = try scratch.git(["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"], in: device)
            #expect(pull.status == 0, "\(context): git pull: \(pull.stderr)")
            let push = try scratch.git(["push", "-q", "origin", "main"], in: device)
            #expect(push.status == 0, "\(context): git push: \(push.stderr)")
        }
        func editNote(_ index: Int) throws {
            let device = devices[index]
            let current = try String(contentsOfFile: device + "/notes.txt", encoding: .utf8)
            noteValues[index] += 1
            let edited = current.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.hasPrefix("device \(index):") ? "device \(index): \(noteValues[index])" : String(line)
            }.joined(separator: "\n")
            try write(edited, to: device + "/notes.txt")
            try scratch.gitChecked(["commit", "-qam", "device \(index) notes \(noteValues[index])"], in: device)
        }
        for step in 0..<14 {
            let index = Int(random.next() % UInt64(devices.count))
            let device = devices[index]
            if device == plain {
                try gitSync(plain)
                let choice = random.next() % 4
                let name = "g/\(step)"
                switch choice {
                case 0:
                    try write("file \(step)\n", to: plain + "/" + name + ".txt")
                    try scratch.gitChecked(["add", name + ".txt"], in: plain)
                    kept[name + ".txt"] = "100644"
                case 1:
                    try FileManager.default.createDirectory(atPath: plain + "/g", withIntermediateDirectories: true)
                    symlink("../notes.txt", plain + "/" + name + ".link")
                    try scratch.gitChecked(["add", name + ".link"], in: plain)
                    kept[name + ".link"] = "120000"
                case 2:
                    // As a submodule not yet cloned looks to git: an empty folder.
                    try FileManager.default.createDirectory(
                        atPath: plain + "/" + name + ".sub", withIntermediateDirectories: true)
                    let commit = try scratch.revParse(plain, "HEAD")
                    try scratch.gitChecked(
                        ["update-index", "--add", "--cacheinfo", "160000,\(commit),\(name).sub"], in: plain)
                    kept[name + ".sub"] = "160000"
                default:
                    if let victim = kept.keys.sorted().first(where: { kept[$0] != "160000" }) {
                        try scratch.gitChecked(["rm", "-q", victim], in: plain)
                        kept[victim] = nil
                    }
                }
                _ = try scratch.git(["commit", "-qm", "plain step \(step)"], in: plain)
                try editNote(index)
                try gitSync(plain)
            } else {
                // notes.txt may not have reached this device yet: a sync first brings it.
                if random.next() % 2 == 0 || !FileManager.default.fileExists(atPath: device + "/notes.txt") {
                    cardsAdded.append(try scratch.addCard(device, "Card \(step)"))
                } else {
                    try editNote(index)
                }
                let sync = try scratch.sync(device)
                #expect(sync.status == 0, "\(context): step \(step): sync of \(device): \(sync.stdout)\(sync.stderr)")
            }
        }
        // Everyone syncs until quiet.
        for _ in 0..<2 {
            for device in devices {
                if device == plain {
                    try gitSync(plain)
                } else {
                    let sync = try scratch.sync(device)
                    #expect(sync.status == 0, "\(context): final sync of \(device): \(sync.stdout)\(sync.stderr)")
                }
            }
        }
        let final = try entries(scratch, remote)
        for (path, mode) in kept {
            #expect(final[path]?.hasPrefix(mode) == true, "\(context): \(path) (\(mode)) is missing on the remote")
        }
        let notes = try scratch.git(["show", "main:notes.txt"], in: remote).stdout
        for (index, value) in noteValues.enumerated() {
            #expect(notes.contains("device \(index): \(value)\n"), "\(context): device \(index)'s edit lost: \(notes)")
        }
        let listed = try scratch.cards(["list", "--json"], in: clones[0]).stdout
        for id in cardsAdded { #expect(listed.contains(id), "\(context): card \(id) lost") }
        let fsck = try scratch.git(["fsck", "--strict", "--no-dangling"], in: remote)
        #expect(fsck.status == 0, "\(context): \(fsck.stderr)")
        for deck in clones { try scratch.expectClean(deck) }
    }
}

extension WholeRepositoryTests {
    @Test(
        "a file from the remote whose name holds a quote and a command: the git commands a sync suggests run as printed, and run nothing else"
    )
    func suggestedGitCommandsQuoteAFetchedName() throws {
        let scratch = try Scratch()
        let (_, deck, plain) = try remoteWithPlainGitDevice(scratch)
        let name = "notes/odd'; touch PWNED; echo '.txt"
        try write("from the plain device\n", to: plain + "/" + name)
        try scratch.gitChecked(["add", "-A"], in: plain)
        try scratch.gitChecked(["commit", "-q", "-m", "a note"], in: plain)
        try scratch.gitChecked(["push", "-q", "origin", "main"], in: plain)
        // The same path written here by hand: the fast-forward would overwrite it, so the sync stops and says
        // how to keep it.
        try write("kept here\n", to: deck + "/" + name)
        let sync = try scratch.cards(["sync"], in: deck)
        #expect(sync.status != 0, "\(sync.stdout)")
        let message = sync.stderr.replacingOccurrences(of: "\n", with: " ")
        let commit = try #require(
            message.range(of: "(`git add ").flatMap { start in
                message[start.upperBound...].range(of: "`)").map {
                    String(message[start.lowerBound..<$0.lowerBound].dropFirst(2))
                }
            }, "\(sync.stderr)")
        let drop = try #require(
            message.range(of: "(or `git checkout -- ").flatMap { start in
                message[start.upperBound...].range(of: "`").map {
                    String(message[message.index(start.lowerBound, offsetBy: 5)..<$0.lowerBound])
                }
            }, "\(sync.stderr)")
        // Each as a person pastes it: the hand edit committed under the file's own name, nothing else run.
        for line in [commit, drop] {
            let copy = scratch.path("copy-\(line.hasPrefix("git add") ? "commit" : "drop")")
            try scratch.gitChecked(["clone", "-q", deck, copy], in: scratch.root)
            try write("kept here\n", to: copy + "/" + name)
            if line.hasPrefix("git checkout") { try scratch.gitChecked(["add", "-A"], in: copy) }
            if line.hasPrefix("git checkout") { try scratch.gitChecked(["commit", "-q", "-m", "tracked"], in: copy) }
            if line.hasPrefix("git checkout") { try write("edited\n", to: copy + "/" + name) }
            let run = try scratch.run("/bin/sh", ["-c", line], in: copy)
            #expect(run.status == 0, "\(line): \(run.stderr)")
            #expect(
                !FileManager.default.fileExists(atPath: copy + "/PWNED"), "\(line) ran a command of the file's name")
            let status = try scratch.git(["status", "--porcelain"], in: copy).stdout
            #expect(status.isEmpty, "\(line): \(status)")
        }
        let subject = try scratch.git(["log", "-1", "--format=%s"], in: scratch.path("copy-commit")).stdout
        #expect(subject == "Edit \(name)\n", "\(subject)")
    }
}

extension WholeRepositoryTests {
    @Test("GIT_CEILING_DIRECTORIES: a deck is looked for, and an enclosing repository seen, below it only, as git does")
    func ceilingDirectories() throws {
        let scratch = try Scratch()
        let outer = scratch.path("outer")
        try scratch.gitChecked(["init", "-q", outer], in: scratch.root)
        let inner = outer + "/a/b"
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: true)
        let ceiling = ["GIT_CEILING_DIRECTORIES": outer]
        // git itself: the repository above the ceiling is not found from below it.
        #expect(try scratch.run("/usr/bin/git", ["rev-parse", "--git-dir"], in: inner).status == 0)
        #expect(
            try scratch.run("/usr/bin/git", ["rev-parse", "--git-dir"], in: inner, extraEnvironment: ceiling).status
                != 0)
        let nested = try scratch.cards(["list"], in: inner)
        #expect(
            nested.status != 0 && nested.stderr.contains("outer is a git repository but not a deck"), "\(nested.stderr)"
        )
        let below = try scratch.cards(["list"], in: inner, extraEnvironment: ceiling)
        #expect(below.status != 0 && below.stderr.contains("no git repository there or above it"), "\(below.stderr)")
        #expect(try scratch.cards(["init", inner + "/deck"]).status != 0)
        let made = try scratch.cards(["init", inner + "/deck"], extraEnvironment: ceiling)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try scratch.cards(["list"], in: inner + "/deck", extraEnvironment: ceiling).status == 0)
    }
}
