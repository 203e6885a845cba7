import Foundation
import TestSupport
import Testing

/// `commit.gpgsign`: every commit `cards` makes is signed as `git commit` signs it, checked by
/// `git verify-commit`; a signing failure commits nothing.
@Suite("Commit signing: as git signs")
struct CommitSigningTests {
    /// An ed25519 key without a passphrase at `path` (and `path.pub`), and an allowed-signers file
    /// naming it for the test identity; returns that file's path.
    static func sshKey(_ scratch: Scratch, at path: String) throws -> String {
        let made = try scratch.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path])
        #expect(made.status == 0, "\(made.stderr)")
        let publicKey = try String(contentsOfFile: path + ".pub", encoding: .utf8)
        let allowed = path + ".allowed"
        try "test@example.invalid \(publicKey)".write(toFile: allowed, atomically: true, encoding: .utf8)
        return allowed
    }

    /// Sets `commit.gpgsign` with an SSH key in the global config (every deck of the scratch signs).
    static func signWithSSH(_ scratch: Scratch, key: String, allowed: String) throws {
        for (name, value) in [
            ("commit.gpgsign", "true"), ("gpg.format", "ssh"), ("user.signingkey", key),
            ("gpg.ssh.allowedSignersFile", allowed),
        ] {
            #expect(try scratch.git(["config", "--global", name, value], in: scratch.root).status == 0)
        }
    }

    /// The commits of `main` not in `since`, each with whether `git verify-commit` accepts it.
    static func verified(_ scratch: Scratch, _ deck: String, since: String) throws -> [(String, Bool)] {
        let list = try scratch.git(["rev-list", "\(since)..main"], in: deck).stdout.split(separator: "\n")
        return try list.map { commit in
            (String(commit), try scratch.git(["verify-commit", String(commit)], in: deck).status == 0)
        }
    }

    @Test("ssh signing: adds, edits, deletes, undos and a sync's merge all signed; git verify-commit accepts each")
    func sshSigning() throws {
        let scratch = try Scratch()
        let key = scratch.path("signing-key")
        let allowed = try Self.sshKey(scratch, at: key)
        let (_, clones) = try scratch.remoteAndClones(["laptop", "phone"])
        let (laptop, phone) = (clones[0], clones[1])
        let start = try scratch.git(["rev-parse", "main"], in: laptop).stdout.trimmingCharacters(in: .newlines)
        try Self.signWithSSH(scratch, key: key, allowed: allowed)
        let id = try scratch.cards(["add", "--title", "Signed", "--url", "https://signed.example"], in: laptop)
        #expect(id.status == 0, "\(id.stderr)")
        let card = id.stdout.trimmingCharacters(in: .newlines)
        #expect(try scratch.cards(["edit", card, "--color", "teal"], in: laptop).status == 0)
        #expect(try scratch.cards(["delete", card], in: laptop).status == 0)
        #expect(try scratch.cards(["undo"], in: laptop).status == 0)
        #expect(
            try scratch.cards(["add", "--title", "Phone", "--url", "https://phone.example"], in: phone).status == 0)
        #expect(try scratch.cards(["sync"], in: phone).status == 0)
        let synced = try scratch.cards(["sync"], in: laptop)
        #expect(synced.status == 0, "\(synced.stderr)")
        let commits = try Self.verified(scratch, laptop, since: start)
        #expect(commits.count == 6, "\(commits)")
        let unverified = commits.filter { !$0.1 }
        #expect(unverified.isEmpty, "unsigned or unverifiable: \(unverified)")
        let merges = try scratch.git(["rev-list", "--merges", "\(start)..main"], in: laptop).stdout
        #expect(!merges.isEmpty, "the sync made no merge to check")
        let log = try scratch.cards(["log", "-n", "1", "--json"], in: laptop)
        #expect(log.stdout.contains("\"signed\": true"), "\(log.stdout)")
    }

    @Test("commit.gpgsign as git reads a boolean: a key with no value, or 2, signs; an empty value does not")
    func gpgsignSpellings() throws {
        let scratch = try Scratch()
        let key = scratch.path("signing-key")
        let allowed = try Self.sshKey(scratch, at: key)
        let deck = try scratch.sampleDeck()
        for (name, value) in [("gpg.format", "ssh"), ("user.signingkey", key), ("gpg.ssh.allowedSignersFile", allowed)]
        {
            #expect(try scratch.git(["config", name, value], in: deck).status == 0)
        }
        let config = deck + "/.git/config"
        let plain = try String(contentsOfFile: config, encoding: .utf8)
        for (spelling, signs) in [("\tgpgsign\n", true), ("\tgpgsign = 2\n", true), ("\tgpgsign =\n", false)] {
            try (plain + "[commit]\n" + spelling).write(toFile: config, atomically: true, encoding: .utf8)
            let added = try scratch.cards(["add", "--title", "S", "--url", "https://s.example"], in: deck)
            #expect(added.status == 0, "\(added.stderr)")
            let verified = try scratch.git(["verify-commit", "main"], in: deck).status == 0
            #expect(verified == signs, "\(spelling.debugDescription): signed \(verified)")
            // git reads it the same way.
            let gitCommit = try scratch.git(["commit", "-q", "--allow-empty", "-m", "git's"], in: deck)
            #expect(gitCommit.status == 0)
            #expect((try scratch.git(["verify-commit", "main"], in: deck).status == 0) == signs)
        }
    }

    @Test("a signing failure (a missing key) is an error that commits nothing; the deck is as before")
    func signingFailure() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let before = try scratch.fingerprint(deck)
        let commits = try scratch.commits(deck)
        try Self.signWithSSH(scratch, key: scratch.path("no-such-key"), allowed: scratch.path("none"))
        let refused = try scratch.cards(["add", "--title", "X", "--url", "https://x.example"], in: deck)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no-such-key") && refused.stderr.contains("nothing was committed"))
        #expect(try scratch.commits(deck) == commits)
        #expect(try scratch.fingerprint(deck) == before)
        try scratch.expectClean(deck)
        // git refuses the same set-up.
        let gitCommit = try scratch.git(["commit", "--allow-empty", "-m", "x"], in: deck)
        #expect(gitCommit.status != 0)
    }

    @Test("a gpg.ssh.defaultKeyCommand of spaces only: a clear error, nothing committed (no trap)")
    func emptyDefaultKeyCommand() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let before = try scratch.commits(deck)
        for (name, value) in [("commit.gpgsign", "true"), ("gpg.format", "ssh"), ("gpg.ssh.defaultKeyCommand", "   ")] {
            #expect(try scratch.git(["config", name, value], in: deck).status == 0)
        }
        let refused = try scratch.cards(["add", "--title", "X", "--url", "https://x.example"], in: deck)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("user.signingkey or gpg.ssh.defaultKeyCommand"), "\(refused.stderr)")
        #expect(try scratch.commits(deck) == before)
        try scratch.expectClean(deck)
    }

    @Test("OpenPGP signing with gpg (the committer's key by default); git verify-commit accepts it")
    func gpgSigning() throws {
        let scratch = try Scratch()
        let gnupg = scratch.path("gnupg")
        try FileManager.default.createDirectory(
            atPath: gnupg, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        scratch.environment["GNUPGHOME"] = gnupg
        defer { _ = try? scratch.run("/usr/bin/gpgconf", ["--kill", "gpg-agent"]) }
        let made = try scratch.run(
            "/usr/bin/gpg",
            [
                "--batch", "--passphrase", "", "--quick-gen-key", "Test Person <test@example.invalid>", "ed25519",
                "sign",
                "never",
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let deck = try scratch.sampleDeck()
        let start = try scratch.git(["rev-parse", "main"], in: deck).stdout.trimmingCharacters(in: .newlines)
        #expect(try scratch.git(["config", "commit.gpgsign", "true"], in: deck).status == 0)
        let added = try scratch.cards(["add", "--title", "G", "--url", "https://g.example"], in: deck)
        #expect(added.status == 0, "\(added.stderr)")
        let commits = try Self.verified(scratch, deck, since: start)
        let unverified = commits.filter { !$0.1 }
        #expect(commits.count == 1 && unverified.isEmpty, "\(commits)")
        let raw = try scratch.git(["cat-file", "commit", "main"], in: deck).stdout
        #expect(raw.contains("\ngpgsig -----BEGIN PGP SIGNATURE-----\n"), "\(raw)")
    }

    @Test("a server that accepts only signed commits takes a signing device's sync and refuses an unsigned one")
    func signedOnlyServer() throws {
        let scratch = try Scratch()
        let key = scratch.path("signing-key")
        let allowed = try Self.sshKey(scratch, at: key)
        let (remote, clones) = try scratch.remoteAndClones(["laptop"])
        let laptop = clones[0]
        let hook = remote + "/hooks/pre-receive"
        try """
        #!/bin/sh
        while read old new ref; do
          for commit in $(git rev-list "$old..$new"); do
            git -c gpg.ssh.allowedSignersFile=\(allowed) verify-commit "$commit" >/dev/null 2>&1 ||
              { echo "unsigned commit $commit refused"; exit 1; }
          done
        done
        """.write(toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        #expect(try scratch.cards(["add", "--title", "U", "--url", "https://u.example"], in: laptop).status == 0)
        let unsigned = try scratch.cards(["sync"], in: laptop)
        #expect(unsigned.status != 0)
        #expect(unsigned.stderr.contains("unsigned commit"), "\(unsigned.stderr)")
        // The unsigned commit is history now; a fresh clone that signs gets through.
        let signer = scratch.path("signer")
        #expect(try scratch.cards(["clone", remote, signer]).status == 0)
        try Self.signWithSSH(scratch, key: key, allowed: allowed)
        #expect(try scratch.cards(["add", "--title", "S", "--url", "https://s.example"], in: signer).status == 0)
        let signed = try scratch.cards(["sync"], in: signer)
        #expect(signed.status == 0, "\(signed.stderr)")
    }
}
