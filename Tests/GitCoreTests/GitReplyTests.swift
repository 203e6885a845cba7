import Testing

@testable import GitCore

/// How what `git push --porcelain` and `git fetch` print is read (GitReply): which refusal is the
/// remote having moved, which is the server's own, and what the user is told.
@Suite("Reading git's replies")
struct GitReplyTests {
    static func outcome(_ lines: [String], status: Int32 = 128) -> GitProcess.Outcome {
        GitProcess.Outcome(status: status, output: [], errorLines: lines, stalled: false, interrupted: false)
    }

    @Test(
        "a porcelain status line: flag, ref, summary, reason; only a moved remote is retried",
        arguments: [
            ("!\trefs/heads/main:refs/heads/main\t[rejected] (fetch first)", "[rejected]", "fetch first", true),
            (
                "!\trefs/heads/main:refs/heads/main\t[rejected] (non-fast-forward)", "[rejected]", "non-fast-forward",
                true
            ),
            (
                "!\trefs/heads/main:refs/heads/main\t[remote rejected] (pre-receive hook declined)",
                "[remote rejected]", "pre-receive hook declined", false
            ),
            (
                "!\trefs/heads/main:refs/heads/main\t[remote rejected] (protected branch hook declined)",
                "[remote rejected]", "protected branch hook declined", false
            ),
            (
                "!\trefs/heads/main:refs/heads/main\t[remote rejected] (failed to update ref)", "[remote rejected]",
                "failed to update ref", true
            ),
            (
                "!\trefs/heads/main:refs/heads/main\t[remote failure] (remote failed to report status)",
                "[remote failure]",
                "remote failed to report status", false
            ),
        ])
    func statusLine(_ line: String, _ summary: String, _ reason: String, _ moved: Bool) {
        let statuses = GitReply.statuses(Array("To /srv/deck.git\n\(line)\nDone\n".utf8))
        #expect(statuses.count == 1)
        #expect(statuses.first?.flag == "!")
        #expect(statuses.first?.reference == "refs/heads/main")
        #expect(statuses.first?.summary == summary)
        #expect(statuses.first?.reason == reason)
        #expect(statuses.first?.remoteMoved == moved)
    }

    @Test("a pushed ref's line is no refusal")
    func pushedLine() {
        let statuses = GitReply.statuses(Array(" \trefs/heads/main:refs/heads/main\tabc1234..def5678\nDone\n".utf8))
        #expect(statuses.map(\.flag) == [" "])
        #expect(statuses.first?.remoteMoved == false)
    }

    @Test("the server's lines are kept without prefix and padding; progress is not")
    func serverMessages() {
        let lines = [
            "remote: Counting objects: 100% (3/3), done.", "remote: deck is frozen        ", "remote: ",
            "Writing objects: 100% (3/3), 300 bytes | 300.00 KiB/s, done.", "To /srv/deck.git",
            "remote: CI started for main",
        ]
        #expect(GitReply.serverMessages(lines) == ["deck is frozen", "CI started for main"])
        #expect(GitReply.isProgress("Receiving objects:  45% (9/20)"))
        #expect(!GitReply.isProgress("remote: deck is frozen"))
    }

    @Test("progress is told by git's first words, with or without the server's prefix, and nothing else is")
    func progressWords() {
        let words = [
            "Enumerating objects", "Counting objects", "Compressing objects", "Writing objects", "Receiving objects",
            "Resolving deltas", "Total ", "Unpacking objects", "Finding sources", "Checking connectivity",
        ]
        for word in words {
            #expect(GitReply.isProgress(word + ": 45% (9/20)"), "\(word)")
            #expect(GitReply.isProgress("remote: " + word + ": 100% (3/3), done."), "\(word)")
            #expect(!GitReply.isProgress(String(word.dropLast())), "\(word)")
            #expect(!GitReply.isProgress("remote:  " + word), "\(word)")
        }
        for other in ["", "remote: ", "remote:", "Total", "fatal: Counting objects", "To /srv/deck.git"] {
            #expect(!GitReply.isProgress(other), "\(other.debugDescription)")
        }
    }

    @Test(
        "a failure is told in the user's terms, with what to do",
        arguments: [
            ("root@127.0.0.1: Permission denied (publickey).", GitError.Code.authentication, "ssh-add"),
            ("Host key verification failed.", .certificate, "known_hosts"),
            (
                "fatal: could not read Username for 'https://example.org': terminal prompts disabled",
                .authentication, "credential.helper"
            ),
            (
                "fatal: unable to access 'https://127.0.0.1/x/': SSL certificate problem: unable to get local issuer "
                    + "certificate", .certificate, "http.sslCAInfo"
            ),
            ("fatal: unable to access 'https://h/x/': The requested URL returned error: 500", .remoteFailed, "500"),
        ])
    func failures(_ line: String, _ code: GitError.Code, _ advice: String) {
        let error = GitReply.failure(
            Self.outcome([line, "fatal: Could not read from remote repository."]), url: "ssh://h/x", pushing: false,
            timeout: 60)
        #expect(error.code == code)
        #expect(error.message.contains(advice), "\(error.message)")
        #expect(!error.message.contains("Could not read from remote repository"), "\(error.message)")
    }

    @Test(
        "an ssh server's own refusal (gitolite, GitHub, Gitea, GitLab) is the reason told, not ssh's or git's words",
        arguments: [
            (["FATAL: W any cards carol DENIED by fallthru", "(or you mis-spelled the reponame)"], true),
            (["ERROR: Permission to alice/cards.git denied to carol."], true),
            (["Gitea: User permission denied for writing."], true),
            (["GitLab: The project you were looking for could not be found or you don't have permission."], false),
        ])
    func sshServerRefusal(_ said: [String], _ pushing: Bool) {
        let lines = said + ["fatal: Could not read from remote repository.", "", "Please make sure you have the "]
        let error = GitReply.failure(Self.outcome(lines), url: "git@h:cards", pushing: pushing, timeout: 60)
        #expect(error.code == (pushing ? .pushRefused : .remoteFailed))
        #expect(
            error.message.hasPrefix(pushing ? said.joined(separator: " ") : "the server refused: "), "\(error.message)")
        #expect(error.message.contains(said.joined(separator: " ")), "\(error.message)")
        #expect(error.message.contains("administrator"), "\(error.message)")
    }

    @Test("ssh's own failures are not taken for the server's words")
    func sshOwnWords() {
        for line in [
            "ssh: connect to host 127.0.0.1 port 2222: Connection refused",
            "kex_exchange_identification: read: Connection reset by peer",
            "Connection closed by 127.0.0.1 port 2222", "Load key \"/k\": invalid format",
            "Unable to negotiate with 127.0.0.1 port 22: no matching host key type found.",
        ] {
            #expect(
                GitReply.sshServerWords([line, "fatal: Could not read from remote repository."]).isEmpty, "\(line)")
        }
        // Without git's closing words the connection did not end in a server's refusal.
        #expect(GitReply.sshServerWords(["FATAL: something"]).isEmpty)
    }

    @Test("a stalled run names the URL and the timeout; an interrupted one says so")
    func stalledAndInterrupted() {
        var stalled = Self.outcome([], status: 143)
        stalled.stalled = true
        let error = GitReply.failure(stalled, url: "git://h/deck.git", pushing: true, timeout: 5)
        #expect(error.code == .timedOut)
        #expect(error.message.contains("gave up after 5 s without a word from git://h/deck.git"), "\(error.message)")
        #expect(error.message.contains("CARDS_NETWORK_TIMEOUT"))
        var interrupted = Self.outcome([], status: 143)
        interrupted.interrupted = true
        #expect(GitReply.failure(interrupted, url: "x", pushing: false, timeout: 5).function == "interrupted")
    }

    @Test("a word for a shell stays one word, quotes and all")
    func shellQuoting() {
        #expect(ShellWord.singleQuoted("/home/a b/it's") == "'/home/a b/it'\\''s'")
    }
}
