import Foundation
import Testing

/// A bare deck shared by a Unix group (`git init --bare --shared=group`), used by two users in turn, as
/// `git push` lets them.
@Suite("A repository shared by a group")
struct SharedRepositoryTests {
    /// The two users (no entries in /etc/passwd needed: the test runs as root and switches ids).
    static let group = 4100
    static let users = [4101, 4102]

    /// Runs `cards` as `user` of the shared group, with a home and git config of that user's own.
    func cardsAs(_ user: Int, _ scratch: Scratch, _ arguments: [String], in folder: String) throws -> RunResult {
        let home = scratch.path("home-\(user)")
        return try scratch.run(
            "/usr/bin/setpriv",
            ["--reuid=\(user)", "--regid=\(Self.group)", "--clear-groups", Binaries.cards] + arguments, in: folder,
            extraEnvironment: ["HOME": home, "GIT_CONFIG_GLOBAL": home + "/.gitconfig", "USER": "user\(user)"])
    }

    @Test(
        "two Unix users of one group write a shared bare deck and sync with it in turn; its files stay the group's",
        arguments: ["git", "libgit2"])
    func twoUsersInTurn(transport: String) throws {
        guard getuid() == 0 else {
            try Test.cancel("switching to two other Unix users needs root (CI runs as root)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            try Test.cancel("setpriv (util-linux) is not installed")
        }
        let scratch = try Scratch()
        chmod(scratch.root, 0o755)
        let shared = scratch.path("shared.git")
        try scratch.gitChecked(["init", "-q", "--bare", "--shared=group", "-b", "main", shared], in: scratch.root)
        let seed = try scratch.sampleDeck("seed")
        try scratch.gitChecked(["push", "-q", shared, "main"], in: seed)
        try scratch.gitChecked(["config", "cards.transport", transport], in: shared)
        #expect(chownTree(shared, group: Self.group))
        let config = try String(contentsOfFile: scratch.home + "/.gitconfig", encoding: .utf8)
        for user in Self.users {
            let home = scratch.path("home-\(user)")
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try (config + "[cards]\n\ttransport = \(transport)\n").write(
                toFile: home + "/.gitconfig", atomically: true, encoding: .utf8)
            chown(home, uid_t(user), gid_t(Self.group))
            chown(home + "/.gitconfig", uid_t(user), gid_t(Self.group))
        }
        // Each user writes the shared deck itself, then through a clone of their own, twice in turn.
        for user in Self.users {
            let add = try cardsAs(
                user, scratch,
                ["--deck", shared, "add", "--title", "Direct \(user)", "--url", "https://d.example/\(user)"],
                in: scratch.root)
            #expect(add.status == 0, "user \(user) writing the shared deck: \(add.stderr)")
        }
        for user in Self.users {
            let clone = try cardsAs(user, scratch, ["clone", shared, "deck-\(user)"], in: scratch.path("home-\(user)"))
            #expect(clone.status == 0, "user \(user) cloning: \(clone.stderr)")
        }
        for round in 0..<2 {
            for user in Self.users {
                let deck = scratch.path("home-\(user)/deck-\(user)")
                let add = try cardsAs(
                    user, scratch,
                    ["add", "--title", "Card \(round) of \(user)", "--url", "https://x.example/\(round)"],
                    in: deck)
                #expect(add.status == 0, "\(add.stderr)")
                let sync = try cardsAs(user, scratch, ["sync"], in: deck)
                #expect(sync.status == 0, "round \(round), user \(user) (\(transport)): \(sync.stderr)")
            }
        }
        let listed = try scratch.cards(["list"], in: shared).stdout
        for user in Self.users {
            #expect(listed.contains("Direct \(user)"))
            for round in 0..<2 { #expect(listed.contains("Card \(round) of \(user)"), "\(listed)") }
        }
        let fsck = try scratch.git(["fsck", "--strict", "--no-dangling"], in: shared)
        #expect(fsck.status == 0, "\(fsck.stderr)")
    }

    /// Gives every file and folder under `path` to `group`, as an administrator sets up a shared repository.
    func chownTree(_ path: String, group: Int) -> Bool {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return false }
        var ok = chown(path, 0, gid_t(group)) == 0
        while let item = walker.nextObject() as? String {
            ok = chown(path + "/" + item, 0, gid_t(group)) == 0 && ok
        }
        return ok
    }
}
