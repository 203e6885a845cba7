import Foundation
import TestSupport
import Testing

/// Client hooks where git runs them: `pre-commit` (shown the commit's index), `commit-msg` (its edits
/// kept), `post-commit`, `pre-merge-commit` and `post-merge`; `core.hooksPath`; `--no-verify`.
@Suite("Commit hooks: run where git runs them")
struct CommitHookTests {
    static func writeHook(_ folder: String, _ name: String, _ body: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/" + name
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    /// A secret scanner as people write it: refuses a staged change that holds "SECRET".
    static let scanner = """
        git diff --quiet || echo "the working tree differs from what is staged"
        echo "scanning $(git diff --cached --name-only HEAD | wc -l) staged file(s)"
        if git diff --cached HEAD | grep -q SECRET; then echo "refused: a secret is staged"; exit 1; fi
        """

    @Test("pre-commit sees the change staged and refuses a secret: nothing committed, as git; --no-verify skips it")
    func preCommitRefuses() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        try Self.writeHook(deck + "/.git/hooks", "pre-commit", Self.scanner)
        let before = try scratch.commits(deck)
        let fingerprint = try scratch.fingerprint(deck)
        let refused = try scratch.cards(["add", "--title", "SECRET token", "--url", "https://x.example"], in: deck)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("scanning 1 staged file(s)"), "the hook did not see the change: \(refused.stderr)")
        #expect(refused.stderr.contains("refused: a secret is staged") && refused.stderr.contains("pre-commit hook"))
        #expect(refused.stderr.contains("--no-verify"))
        // As for git commit: the working tree holds the change the hook is shown staged.
        #expect(!refused.stderr.contains("differs"), "\(refused.stderr)")
        #expect(try scratch.commits(deck) == before)
        #expect(try scratch.fingerprint(deck) == fingerprint)
        try scratch.expectClean(deck)
        // git's own commit of the same kind of change is refused by the same hook.
        writeFileCloseOnExec(deck + "/notes.txt", "SECRET\n")
        #expect(try scratch.git(["add", "notes.txt"], in: deck).status == 0)
        #expect(try scratch.git(["commit", "-q", "-m", "notes"], in: deck).status != 0)
        #expect(try scratch.git(["reset", "-q", "notes.txt"], in: deck).status == 0)
        try FileManager.default.removeItem(atPath: deck + "/notes.txt")
        // An ordinary change passes the hook.
        #expect(try scratch.cards(["add", "--title", "Fine", "--url", "https://fine.example"], in: deck).status == 0)
        let skipped = try scratch.cards(
            ["add", "--title", "SECRET again", "--url", "https://y.example", "--no-verify"], in: deck)
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(!skipped.stderr.contains("scanning"))
        #expect(try scratch.commits(deck).count == before.count + 2)
        try scratch.expectClean(deck)
    }

    @Test("commit-msg is given the message file and its edits are committed; post-commit runs after each commit")
    func messageAndPostCommit() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let record = scratch.path("hooks.log")
        let hooks = scratch.path("shared-hooks")
        #expect(try scratch.git(["config", "core.hooksPath", hooks], in: deck).status == 0)
        // It also leaves trailing spaces and blank lines, which git cleans off a message given without an
        // editor, and records the author and index git exports to it.
        try Self.writeHook(
            hooks, "commit-msg",
            "echo \"commit-msg $(basename \"$1\") $(head -1 \"$1\")\" >> \(record)\n"
                + "echo \"$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL> ${GIT_INDEX_FILE:+index}\" >> \(record).env\n"
                + "printf 'Reviewed-by: Hook <hook@example.invalid>   \\n\\n\\n' >> \"$1\"")
        try Self.writeHook(hooks, "post-commit", "echo \"post-commit $(git log -1 --format=%s)\" >> \(record)")
        let id = try scratch.cards(["add", "--title", "Hooked", "--url", "https://hooked.example"], in: deck)
        #expect(id.status == 0, "\(id.stderr)")
        let card = id.stdout.trimmingCharacters(in: .newlines)
        #expect(try scratch.cards(["delete", card], in: deck).status == 0)
        let log = try String(contentsOfFile: record, encoding: .utf8)
        #expect(
            log
                == "commit-msg COMMIT_EDITMSG Add card \"Hooked\"\npost-commit Add card \"Hooked\"\n"
                + "commit-msg COMMIT_EDITMSG Delete card \"Hooked\"\npost-commit Delete card \"Hooked\"\n", "\(log)")
        let message = try scratch.git(["log", "-1", "--format=%B"], in: deck).stdout
        #expect(message.hasSuffix("\nReviewed-by: Hook <hook@example.invalid>\n\n"), "\(message.debugDescription)")
        let raw = try scratch.git(["cat-file", "commit", "main"], in: deck).stdout
        #expect(raw.hasSuffix("Reviewed-by: Hook <hook@example.invalid>\n"), "not cleaned: \(raw.debugDescription)")
        let seen = try String(contentsOfFile: record + ".env", encoding: .utf8)
        #expect(seen == String(repeating: "Test Person <test@example.invalid> index\n", count: 2), "\(seen)")
        let trailers = try scratch.git(["log", "-1", "--format=%(trailers:key=Reviewed-by,valueonly)"], in: deck).stdout
        #expect(trailers.contains("Hook <hook@example.invalid>"), "git does not read it as a trailer: \(trailers)")
    }

    @Test("a sync's merge runs pre-merge-commit (a refusal stops it, nothing changed) and post-merge")
    func mergeHooks() throws {
        let scratch = try Scratch()
        let (_, clones) = try scratch.remoteAndClones(["laptop", "phone"])
        let (laptop, phone) = (clones[0], clones[1])
        let record = scratch.path("merge.log")
        #expect(
            try scratch.cards(["add", "--title", "Phone", "--url", "https://phone.example"], in: phone).status == 0)
        #expect(try scratch.cards(["sync"], in: phone).status == 0)
        #expect(
            try scratch.cards(["add", "--title", "Laptop", "--url", "https://laptop.example"], in: laptop).status == 0)
        try Self.writeHook(laptop + "/.git/hooks", "pre-merge-commit", "echo 'no merges today'; exit 1")
        try Self.writeHook(
            laptop + "/.git/hooks", "post-merge",
            "echo \"post-merge $1 $(git log -1 --format=%p | wc -w)\" >> \(record)")
        let before = try scratch.commits(laptop)
        let refused = try scratch.cards(["sync"], in: laptop)
        #expect(refused.status != 0)
        #expect(
            refused.stderr.contains("no merges today") && refused.stderr.contains("pre-merge-commit"),
            "\(refused.stderr)")
        #expect(try scratch.commits(laptop) == before)
        try scratch.expectClean(laptop)
        #expect(!FileManager.default.fileExists(atPath: record))
        try FileManager.default.removeItem(atPath: laptop + "/.git/hooks/pre-merge-commit")
        let synced = try scratch.cards(["sync"], in: laptop)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try String(contentsOfFile: record, encoding: .utf8) == "post-merge 0 2\n")
    }
}
