import Foundation
import Testing

/// git's ownership check (`safe.directory`, CVE-2022-24765): a deck another Unix user owns is refused
/// by every `cards` command as `git` refuses it, before anything of it is read or run, unless
/// `safe.directory` in the system, global or command-line config allows it. Each case is compared
/// with plain `git` 2.39 in the same set-up.
@Suite("A deck another user owns")
struct OwnershipTests {
    /// The other user (no entry in /etc/passwd needed).
    static let owner = 4201

    /// A scratch folder whose global config has no `safe.directory` (the suite's default has `*`),
    /// and a sample deck there given to `owner`, whose config names commands that leave a marker
    /// file when run: `remote.origin.uploadpack` (run by `git fetch`), `core.fsmonitor` (run by `git
    /// status`), hooks of every kind, and `core.hooksPath` to them.
    struct Setup {
        let scratch: Scratch
        let deck: String
        let markers: String
        let card: String

        init(bare: Bool = false) throws {
            scratch = try Scratch()
            chmod(scratch.root, 0o755)
            let remote = scratch.path("remote.git")
            try scratch.gitChecked(["init", "-q", "--bare", "-b", "main", remote], in: scratch.root)
            deck = try scratch.sampleDeck()
            markers = scratch.path("markers")
            try FileManager.default.createDirectory(atPath: markers, withIntermediateDirectories: true)
            let listed = try scratch.cards(["list", "--json"], in: deck).stdout
            let cards = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]
            card = cards?.first?["id"] as? String ?? ""
            let hooks = scratch.path("hooks")
            try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
            for hook in [
                "pre-commit", "post-commit", "reference-transaction", "post-checkout", "post-merge", "pre-push",
                "post-index-change",
            ] {
                let path = "\(hooks)/\(hook)"
                // A hook that ran leaves its marker, and never refuses: when a command is let in, its
                // commit hooks run (as git's), and a marker another user cannot touch must not stop it.
                writeFileCloseOnExec(path, "#!/bin/sh\ntouch '\(markers)/hook-\(hook)' 2>/dev/null\nexit 0\n")
                chmod(path, 0o755)
            }
            try scratch.gitChecked(["push", "-q", remote, "main"], in: deck)
            for (key, value) in [
                ("remote.origin.url", remote), ("remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"),
                ("remote.origin.uploadpack", "touch '\(markers)/uploadpack'; git-upload-pack"),
                ("core.fsmonitor", "touch '\(markers)/fsmonitor'; false"), ("core.hooksPath", hooks),
            ] {
                try scratch.gitChecked(["config", key, value], in: deck)
            }
            // The suite's global config allows every folder; here none is allowed until a test says so.
            try "[user]\n\tname = Root\n\temail = root@example.invalid\n[init]\n\tdefaultBranch = main\n".write(
                toFile: scratch.home + "/.gitconfig", atomically: true, encoding: .utf8)
            #expect(OwnershipTests.chownTree(deck, to: OwnershipTests.owner))
        }

        /// The markers the deck's commands left: none when nothing of it ran.
        var ran: [String] { (try? FileManager.default.contentsOfDirectory(atPath: markers)) ?? [] }

        /// Every file and folder of the deck with its owner, size and change time: what a command that
        /// wrote nothing leaves as it was.
        func state() -> [String: String] {
            var result: [String: String] = [:]
            let walker = FileManager.default.enumerator(atPath: deck)
            while let item = walker?.nextObject() as? String {
                var info = stat()
                guard lstat(deck + "/" + item, &info) == 0 else { continue }
                result[item] = "\(info.st_uid) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            }
            return result
        }

        /// The files and folders under `deck` that root owns.
        func rootOwned() -> [String] {
            var found: [String] = []
            let walker = FileManager.default.enumerator(atPath: deck)
            while let item = walker?.nextObject() as? String {
                var info = stat()
                if lstat(deck + "/" + item, &info) == 0 && info.st_uid == 0 { found.append(item) }
            }
            return found
        }

        /// Sets the global config's `safe.directory` values (an empty list: none).
        func allow(_ values: [String]) throws {
            let lines = values.map { "\tdirectory = \($0)\n" }.joined()
            try
                ("[user]\n\tname = Root\n\temail = root@example.invalid\n"
                + (values.isEmpty ? "" : "[safe]\n" + lines)).write(
                    toFile: scratch.home + "/.gitconfig", atomically: true, encoding: .utf8)
        }
    }

    /// What git says of `folder`, less its `fatal: `: the words `cards` must say after `Error: `.
    static func gitWords(_ folder: String) -> String {
        "detected dubious ownership in repository at '\(folder)'\nTo add an exception for this directory, call:\n\n"
            + "\tgit config --global --add safe.directory \(folder)"
    }

    static func needsRoot() throws {
        guard getuid() == 0 else { try Test.cancel("owning files as another Unix user needs root (CI runs as root)") }
    }

    /// The commands, each as a user would type it in the deck (`CARD` stands for a card's id).
    static let commands: [[String]] = [
        ["list"], ["list", "--json"], ["show", "CARD"], ["add", "--title", "Mine", "--url", "https://m.example"],
        ["edit", "CARD", "--color", "red"], ["move", "CARD", "--top"], ["delete", "CARD"], ["undo"],
        ["restore", "CARD"], ["log"], ["status"], ["commit"], ["export"], ["sync"], ["sync", "--dry-run"],
        ["merge", "origin/main"], ["conflicts"], ["resolve", "CARD", "--keep"], ["fsck"], ["fsck", "--repair"],
        ["remote", "list"], ["remote", "add", "other", "/tmp/other.git"], ["remote", "remove", "origin"],
        ["swipe", "CARD", "--left"], ["import", "IMPORT"], ["serve", "--port", "0"],
    ]

    @Test("every command, in the deck or naming it with --deck, is refused in git's words; nothing runs or is written")
    func everyCommandRefused() throws {
        try Self.needsRoot()
        let setup = try Setup()
        let before = setup.state()
        // git itself refuses the deck, with these words.
        let git = try setup.scratch.git(["status"], in: setup.deck)
        #expect(git.status != 0 && git.stderr.hasPrefix("fatal: " + Self.gitWords(setup.deck)), "\(git.stderr)")
        // A file, not standard input: a refused command exits before reading it, and writing to its pipe then
        // would kill this test process (SIGPIPE).
        let importFile = setup.scratch.path("import.json")
        writeFileCloseOnExec(importFile, "[]\n")
        for command in Self.commands {
            let arguments = command.map { $0 == "CARD" ? setup.card : $0 == "IMPORT" ? importFile : $0 }
            for (place, prefix) in [(setup.deck, [String]()), (setup.scratch.root, ["--deck", setup.deck])] {
                // `serve` would serve forever if the check let it through: stopped after a while.
                let result = try setup.scratch.run(
                    "/usr/bin/timeout", ["20", Binaries.cards] + prefix + arguments, in: place)
                #expect(result.status == 1, "\(arguments): \(result.status) \(result.stderr)")
                #expect(
                    result.stderr == "Error: " + Self.gitWords(setup.deck) + "\n",
                    "\(prefix + arguments): \(result.stderr)")
            }
        }
        // From a folder inside the deck too, as git searches upward.
        let inside = try setup.scratch.cards(["list"], in: setup.deck + "/cards")
        #expect(inside.stderr == "Error: " + Self.gitWords(setup.deck) + "\n", "\(inside.stderr)")
        #expect(setup.ran.isEmpty, "the deck's commands ran: \(setup.ran)")
        #expect(setup.rootOwned().isEmpty, "root left \(setup.rootOwned())")
        #expect(setup.state() == before, "the deck changed")
    }

    @Test(
        "safe.directory in the global config as git reads it: the deck's path or `*` allow it, an empty value takes back the ones before, another spelling does not",
        arguments: [
            (["DECK"], true), (["*"], true), (["*", ""], false), (["", "DECK"], true), (["DECK/"], false),
            (["/elsewhere"], false), ([], false), (["DECK", "/elsewhere"], true),
        ])
    func globalSafeDirectory(values: [String], allowed: Bool) throws {
        try Self.needsRoot()
        let setup = try Setup()
        try setup.allow(values.map { $0.replacingOccurrences(of: "DECK", with: setup.deck) })
        let git = try setup.scratch.git(["log", "-1", "--format=%H"], in: setup.deck)
        #expect((git.status == 0) == allowed, "git with \(values): \(git.stderr)")
        let list = try setup.scratch.cards(["list"], in: setup.deck)
        #expect((list.status == 0) == allowed, "cards with \(values): \(list.stderr)")
        if !allowed { #expect(list.stderr == "Error: " + Self.gitWords(setup.deck) + "\n") }
        #expect(setup.ran.isEmpty)
    }

    @Test("safe.directory set in the deck's own config does not help, as it does not help git")
    func repositoryConfigIgnored() throws {
        try Self.needsRoot()
        let setup = try Setup()
        let config = setup.deck + "/.git/config"
        let text = try String(contentsOfFile: config, encoding: .utf8)
        try (text + "[safe]\n\tdirectory = *\n\tdirectory = \(setup.deck)\n").write(
            toFile: config, atomically: false, encoding: .utf8)
        #expect(try setup.scratch.git(["status"], in: setup.deck).status != 0)
        let list = try setup.scratch.cards(["list"], in: setup.deck)
        #expect(list.status == 1 && list.stderr == "Error: " + Self.gitWords(setup.deck) + "\n", "\(list.stderr)")
    }

    @Test(
        "safe.directory from the command line's config (git -c, GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT) allows it, as for git"
    )
    func commandLineSafeDirectory() throws {
        try Self.needsRoot()
        let setup = try Setup()
        let git = try setup.scratch.git(["-c", "safe.directory=\(setup.deck)", "status"], in: setup.deck)
        #expect(git.status == 0, "\(git.stderr)")
        for environment in [
            ["GIT_CONFIG_PARAMETERS": "'safe.directory'='\(setup.deck)'"],
            ["GIT_CONFIG_PARAMETERS": "'core.editor'='vi' 'Safe.Directory=*'"],
            ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": setup.deck],
        ] {
            let list = try setup.scratch.cards(["list"], in: setup.deck, extraEnvironment: environment)
            #expect(list.status == 0, "\(environment): \(list.stderr)")
        }
        // The command line comes after the global config: its empty value takes `*` back.
        try setup.allow(["*"])
        let reset = ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": ""]
        #expect(try setup.scratch.cards(["list"], in: setup.deck, extraEnvironment: reset).status == 1)
        #expect(try setup.scratch.run("/usr/bin/git", ["status"], in: setup.deck, extraEnvironment: reset).status != 0)
    }

    @Test("root through sudo may use the deck of the user who ran sudo (SUDO_UID), as git 2.39 lets it; not another's")
    func sudoCaller() throws {
        try Self.needsRoot()
        let setup = try Setup()
        for (sudoUID, allowed) in [("\(Self.owner)", true), ("4202", false), ("", false), ("\(Self.owner)x", false)] {
            let environment = ["SUDO_UID": sudoUID]
            let list = try setup.scratch.cards(["list"], in: setup.deck, extraEnvironment: environment)
            #expect((list.status == 0) == allowed, "cards, SUDO_UID=\(sudoUID): \(list.stderr)")
            #expect(setup.rootOwned().isEmpty, "cards left \(setup.rootOwned()) root's")
            // `git log`, not `git status`: that one writes the index, as root, when it is allowed.
            let git = try setup.scratch.run(
                "/usr/bin/git", ["log", "-1"], in: setup.deck, extraEnvironment: environment)
            #expect((git.status == 0) == allowed, "git, SUDO_UID=\(sudoUID): \(git.stderr)")
        }
    }

    @Test("the owner's own deck opens for them; root's deck is refused to them, as git refuses it")
    func otherUserRefusesRootsDeck() throws {
        try Self.needsRoot()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            try Test.cancel("setpriv (util-linux) is not installed")
        }
        let setup = try Setup()
        let home = setup.scratch.path("home-owner")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        chown(home, uid_t(Self.owner), gid_t(Self.owner))
        func asOwner(_ program: String, _ arguments: [String], in folder: String) throws -> RunResult {
            try setup.scratch.run(
                "/usr/bin/setpriv",
                ["--reuid=\(Self.owner)", "--regid=\(Self.owner)", "--clear-groups", program] + arguments, in: folder,
                extraEnvironment: [
                    "HOME": home, "GIT_CONFIG_GLOBAL": home + "/.gitconfig", "CARDS_AUTHOR_NAME": "Owner",
                    "CARDS_AUTHOR_EMAIL": "owner@example.invalid",
                ])
        }
        let own = try asOwner(
            Binaries.cards, ["add", "--title", "Owner's", "--url", "https://o.example"], in: setup.deck)
        #expect(own.status == 0, "\(own.stderr)")
        let roots = try setup.scratch.sampleDeck("roots")
        chmod(setup.scratch.root, 0o755)
        let refused = try asOwner(Binaries.cards, ["list"], in: roots)
        #expect(refused.status == 1 && refused.stderr == "Error: " + Self.gitWords(roots) + "\n", "\(refused.stderr)")
        let git = try asOwner("/usr/bin/git", ["status"], in: roots)
        #expect(git.status != 0 && git.stderr.hasPrefix("fatal: " + Self.gitWords(roots)), "\(git.stderr)")
    }

    @Test("allowed by safe.directory, root leaves the lock files it made to the owner, who then works on as before")
    func rootAllowedLeavesLocksToOwner() throws {
        try Self.needsRoot()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            try Test.cancel("setpriv (util-linux) is not installed")
        }
        let setup = try Setup()
        try setup.allow([setup.deck])
        // The owner syncs with a remote of their own, and their hooks may leave their markers.
        #expect(Self.chownTree(setup.scratch.path("remote.git"), to: Self.owner))
        chmod(setup.markers, 0o777)
        // Made by root's command below, not left from the deck's making (whose files are the owner's now).
        let git = setup.deck + "/.git/"
        for name in ["cards.lock", "cards-pack.lock", "cards-pack-pending", "cards-sync.lock"] { unlink(git + name) }
        // Without commit hooks: with a pre-commit or commit-msg hook a commit's objects are written loose
        // for git's hooks to read, and loose object folders root makes are root's, as after `sudo git
        // commit`; this test is about the files of our own (locks, packs).
        #expect(try setup.scratch.git(["config", "--unset", "core.hooksPath"], in: setup.deck).status == 0)
        let add = try setup.scratch.cards(["add", "--title", "Root's", "--url", "https://r.example"], in: setup.deck)
        #expect(add.status == 0, "\(add.stderr)")
        for name in ["cards.lock", "cards-pack.lock", "cards-pack-pending"] {
            var info = stat()
            #expect(lstat(git + name, &info) == 0 && info.st_uid == uid_t(Self.owner), "\(name) is uid \(info.st_uid)")
        }
        // A lock file left root's (by an older cards run as root) does not keep the owner out either.
        let sync = git + "cards-sync.lock"
        writeFileCloseOnExec(sync, "pid 1\n")
        chown(sync, 0, 0)
        chmod(sync, 0o644)
        let home = setup.scratch.path("home-owner")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        chown(home, uid_t(Self.owner), gid_t(Self.owner))
        for arguments in [["list"], ["edit", setup.card, "--color", "teal"], ["fsck"], ["sync"]] {
            let result = try setup.scratch.run(
                "/usr/bin/setpriv",
                ["--reuid=\(Self.owner)", "--regid=\(Self.owner)", "--clear-groups", Binaries.cards] + arguments,
                in: setup.deck,
                extraEnvironment: [
                    "HOME": home, "GIT_CONFIG_GLOBAL": home + "/.gitconfig", "CARDS_AUTHOR_NAME": "Owner",
                    "CARDS_AUTHOR_EMAIL": "owner@example.invalid",
                ])
            #expect(result.status == 0, "owner's \(arguments): \(result.stderr)")
        }
    }

    @Test("a bare deck, and a deck named by its git folder, are checked as git checks them: the git folder's owner")
    func bareAndGitFolder() throws {
        try Self.needsRoot()
        let setup = try Setup()
        let bare = setup.scratch.path("bare.git")
        try setup.scratch.gitChecked(
            ["clone", "-q", "--bare", setup.scratch.path("remote.git"), bare], in: setup.scratch.root)
        #expect(Self.chownTree(bare, to: Self.owner))
        for folder in [bare, setup.deck + "/.git"] {
            let list = try setup.scratch.cards(["--deck", folder, "list"], in: setup.scratch.root)
            #expect(list.stderr == "Error: " + Self.gitWords(folder) + "\n", "\(list.stderr)")
            let git = try setup.scratch.git(["-C", folder, "log", "-1"], in: setup.scratch.root)
            #expect(git.stderr.hasPrefix("fatal: " + Self.gitWords(folder)), "\(git.stderr)")
        }
        #expect(setup.ran.isEmpty)
    }

    @Test(
        "a linked worktree: its folder, its `.git` file and its git folder are checked, not the main repository's, as git checks them",
        arguments: ["worktree", "gitfile", "gitdir", "common", "none"])
    func linkedWorktree(owned part: String) throws {
        try Self.needsRoot()
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let tree = scratch.path("tree")
        try scratch.gitChecked(["worktree", "add", "-q", "-b", "side", tree], in: deck)
        try "[user]\n\tname = Root\n\temail = root@example.invalid\n".write(
            toFile: scratch.home + "/.gitconfig", atomically: true, encoding: .utf8)
        let target: String? =
            switch part {
            case "worktree": tree
            case "gitfile": tree + "/.git"
            case "gitdir": deck + "/.git/worktrees/tree"
            case "common": deck + "/.git"
            default: nil
            }
        if let target { chown(target, uid_t(Self.owner), gid_t(Self.owner)) }
        let git = try scratch.git(["status"], in: tree)
        let list = try scratch.cards(["list"], in: tree)
        #expect((list.status == 0) == (git.status == 0), "\(part) another's: git \(git.stderr), cards \(list.stderr)")
        if git.status != 0 { #expect(list.stderr == "Error: " + Self.gitWords(tree) + "\n", "\(list.stderr)") }
        #expect((git.status == 0) == (part == "common" || part == "none"))
    }

    @Test("a folder name git quotes is quoted in the remedy as git quotes it")
    func quotedRemedy() throws {
        try Self.needsRoot()
        let setup = try Setup()
        let odd = setup.scratch.path("it's a deck!")
        #expect(rename(setup.deck, odd) == 0)
        let git = try setup.scratch.git(["status"], in: odd)
        let list = try setup.scratch.cards(["list"], in: odd)
        #expect(git.stderr.hasPrefix("fatal: "))
        #expect(
            list.stderr == "Error: " + git.stderr.dropFirst("fatal: ".count),
            "git: \(git.stderr)\ncards: \(list.stderr)")
    }

    @Test("a clone into a folder holding another user's stopped clone leaves it as it is: not read, not cleared")
    func othersStoppedClone() throws {
        try Self.needsRoot()
        let setup = try Setup()
        let folder = setup.scratch.path("stopped")
        try setup.scratch.gitChecked(["init", "-q", folder], in: setup.scratch.root)
        writeFileCloseOnExec(folder + "/.git/cards-clone-incomplete", "pid 4194303\n\(setup.deck)\n")
        writeFileCloseOnExec(folder + "/deck.json", "{}\n")
        #expect(Self.chownTree(folder, to: Self.owner))
        let clone = try setup.scratch.cards(["clone", setup.scratch.path("remote.git"), folder])
        #expect(
            clone.status == 1 && clone.stderr.contains("already exists and is not an empty folder"), "\(clone.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/.git/cards-clone-incomplete"))
        #expect(FileManager.default.fileExists(atPath: folder + "/deck.json"))
        // Root's own stopped clone is cleared as before.
        #expect(Self.chownTree(folder, to: 0))
        unlink(folder + "/deck.json")
        let again = try setup.scratch.cards(["clone", setup.scratch.path("remote.git"), folder])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test(
        "a remote on this machine another user owns: sync and clone refused in git's words by both transports, as git 2.39.5's upload-pack refuses it; allowed by the global safe.directory, not by the command line's",
        arguments: ["git", "libgit2"])
    func remoteOnThisMachine(transport: String) throws {
        try Self.needsRoot()
        let scratch = try Scratch()
        chmod(scratch.root, 0o755)
        let remote = scratch.path("theirs.git")
        try scratch.gitChecked(["init", "-q", "--bare", "-b", "main", remote], in: scratch.root)
        let deck = try scratch.sampleDeck()
        #expect(try scratch.cards(["remote", "add", "origin", remote], in: deck).status == 0)
        #expect(try scratch.cards(["sync"], in: deck).status == 0)
        #expect(Self.chownTree(remote, to: Self.owner))
        try "[user]\n\tname = Root\n\temail = root@example.invalid\n".write(
            toFile: scratch.home + "/.gitconfig", atomically: true, encoding: .utf8)
        #expect(try scratch.cards(["add", "--title", "New", "--url", "https://n.example"], in: deck).status == 0)
        let environment = ["CARDS_TRANSPORT": transport]
        let words = Self.gitWords(remote)
        let git = try scratch.git(["fetch", "origin"], in: deck)
        #expect(git.status != 0 && git.stderr.hasPrefix("fatal: " + words), "\(git.stderr)")
        let sync = try scratch.cards(["sync"], in: deck, extraEnvironment: environment)
        #expect(sync.status == 1 && sync.stderr.hasSuffix(words + "\n"), "\(sync.stderr)")
        let clone = try scratch.cards(["clone", remote, scratch.path("copy")], extraEnvironment: environment)
        #expect(clone.status == 1 && clone.stderr.hasSuffix(words + "\n"), "\(clone.stderr)")
        // git's local transport leaves `git -c` out of the upload-pack it runs: so do we.
        let commandLine = environment.merging(["GIT_CONFIG_PARAMETERS": "'safe.directory'='*'"]) { $1 }
        #expect(try scratch.cards(["sync"], in: deck, extraEnvironment: commandLine).status == 1)
        try "[user]\n\tname = Root\n\temail = root@example.invalid\n[safe]\n\tdirectory = \(remote)\n".write(
            toFile: scratch.home + "/.gitconfig", atomically: true, encoding: .utf8)
        let allowed = try scratch.cards(["sync"], in: deck, extraEnvironment: environment)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(
            try scratch.git(["rev-parse", "main"], in: remote).stdout
                == scratch.git(["rev-parse", "main"], in: deck).stdout)
    }

    /// Gives every file and folder under `path` to `user` (its group too).
    static func chownTree(_ path: String, to user: Int) -> Bool {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return false }
        var ok = lchown(path, uid_t(user), gid_t(user)) == 0
        while let item = walker.nextObject() as? String {
            ok = lchown(path + "/" + item, uid_t(user), gid_t(user)) == 0 && ok
        }
        return ok
    }
}
