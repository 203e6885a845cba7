import Foundation
import TestSupport
import Testing

/// The author and committer of every commit `cards` makes, against `git var GIT_AUTHOR_IDENT` /
/// `GIT_COMMITTER_IDENT` in the same environment and repository: who, and the time zone.
@Suite("Commit identity: as git chooses it")
struct CommitIdentityTests {
    /// `cards add` in `deck` with `environment`, then the new commit's "author|committer" lines
    /// (`%an <%ae> %ad`, raw dates) and what git var says in the same environment.
    static func addAndCompare(
        _ scratch: Scratch, _ deck: String, _ environment: [String: String], title: String
    ) throws -> (ours: [String], git: [String]) {
        let added = try scratch.cards(
            ["add", "--title", title, "--url", "https://example.com/\(title.count)"], in: deck,
            extraEnvironment: environment)
        #expect(added.status == 0, "\(added.stderr)")
        let log = try scratch.run(
            "/usr/bin/git", ["log", "-1", "--date=raw", "--format=%an <%ae> %ad%n%cn <%ce> %cd"], in: deck)
        let ours = log.stdout.split(separator: "\n").map(String.init)
        var theirs: [String] = []
        for variable in ["GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"] {
            let said = try scratch.run("/usr/bin/git", ["var", variable], in: deck, extraEnvironment: environment)
            theirs.append(said.stdout.trimmingCharacters(in: .newlines))
        }
        return (ours, theirs)
    }

    /// "name <email> seconds zone" without the seconds, which differ by the run's duration.
    static func withoutSeconds(_ line: String) -> String {
        var parts = line.split(separator: " ").map(String.init)
        if parts.count >= 2 { parts.remove(at: parts.count - 2) }
        return parts.joined(separator: " ")
    }

    @Test("the local time zone (TZ) is recorded as git records it; cards log shows it")
    func timeZone() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let environment = ["TZ": "Asia/Kathmandu"]
        let (ours, git) = try Self.addAndCompare(scratch, deck, environment, title: "Kathmandu")
        #expect(ours.map(Self.withoutSeconds) == git.map(Self.withoutSeconds), "\(ours) against git's \(git)")
        #expect(ours.first?.hasSuffix(" +0545") == true, "\(ours)")
        let log = try scratch.cards(["log", "-n", "1"], in: deck)
        #expect(log.stdout.contains(" +0545  Add card"), "\(log.stdout)")
        let json = try scratch.cards(["log", "-n", "1", "--json"], in: deck)
        #expect(json.stdout.contains("+05:45\""), "\(json.stdout)")
        let west = try Self.addAndCompare(scratch, deck, ["TZ": "America/St_Johns"], title: "St Johns")
        #expect(west.ours.map(Self.withoutSeconds) == west.git.map(Self.withoutSeconds), "\(west)")
    }

    @Test("GIT_AUTHOR_* and GIT_COMMITTER_* (names, addresses, a date in git's formats) as git takes them")
    func environmentIdentity() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let environment = [
            "GIT_AUTHOR_NAME": "Ada Author", "GIT_AUTHOR_EMAIL": "ada@author.example",
            "GIT_COMMITTER_NAME": "Cy Committer", "GIT_COMMITTER_EMAIL": "cy@committer.example",
        ]
        let (ours, git) = try Self.addAndCompare(scratch, deck, environment, title: "Env")
        #expect(ours.map(Self.withoutSeconds) == git.map(Self.withoutSeconds), "\(ours) against git's \(git)")
        #expect(ours.first?.hasPrefix("Ada Author <ada@author.example>") == true)
        #expect(ours.last?.hasPrefix("Cy Committer <cy@committer.example>") == true)
        // Dates: git's parser decides, exactly (seconds included).
        for date in ["2005-04-07T22:13:13+0200", "@1112911993 -0330", "Thu, 07 Apr 2005 22:13:13 +0200"] {
            let dated = ["GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": "2006-01-02 03:04:05 +0000"]
            let (ours, git) = try Self.addAndCompare(scratch, deck, dated, title: "Dated \(date.count)")
            #expect(ours == git, "GIT_AUTHOR_DATE=\(date): \(ours) against git's \(git)")
        }
        // author.* and committer.* config, and a name git cleans ("<", ">" dropped, crud trimmed).
        #expect(try scratch.git(["config", "author.email", "configured@author.example"], in: deck).status == 0)
        #expect(try scratch.git(["config", "committer.name", " Committer Name. "], in: deck).status == 0)
        #expect(try scratch.git(["config", "user.name", "Ada <ada@home>"], in: deck).status == 0)
        let configured = try Self.addAndCompare(scratch, deck, [:], title: "Configured")
        #expect(
            configured.ours.map(Self.withoutSeconds) == configured.git.map(Self.withoutSeconds), "\(configured)")
        #expect(configured.ours.first?.hasPrefix("Ada ada@home <configured@author.example>") == true, "\(configured)")
    }

    @Test("includeIf hasconfig:remote.*.url picks the work identity for a deck whose remote is the work server")
    func conditionalIdentity() throws {
        let scratch = try Scratch()
        let work = scratch.path("work.gitconfig")
        try "[user]\n\temail = ada@work.example\n\tname = Ada at Work\n".write(
            toFile: work, atomically: true, encoding: .utf8)
        let global = scratch.home + "/.gitconfig"
        let text = try String(contentsOfFile: global, encoding: .utf8)
        try (text + "[includeIf \"hasconfig:remote.*.url:https://git.work.example/**\"]\n\tpath = \(work)\n").write(
            toFile: global, atomically: true, encoding: .utf8)
        let deck = try scratch.sampleDeck()
        let personal = try Self.addAndCompare(scratch, deck, [:], title: "Personal")
        #expect(personal.ours.first?.hasPrefix("Test Person <test@example.invalid>") == true, "\(personal)")
        #expect(
            try scratch.git(["remote", "add", "origin", "https://git.work.example/ada/cards.git"], in: deck).status
                == 0)
        let (ours, git) = try Self.addAndCompare(scratch, deck, [:], title: "Work")
        #expect(ours.map(Self.withoutSeconds) == git.map(Self.withoutSeconds), "\(ours) against git's \(git)")
        #expect(ours.first?.hasPrefix("Ada at Work <ada@work.example>") == true, "\(ours)")
    }

    @Test("user.useConfigOnly with no address configured: refused in git's words, nothing committed")
    func configOnly() throws {
        let scratch = try Scratch()
        let deck = try scratch.sampleDeck()
        let before = try scratch.commits(deck)
        #expect(try scratch.git(["config", "user.useConfigOnly", "true"], in: deck).status == 0)
        #expect(try scratch.git(["config", "--global", "--unset", "user.email"], in: deck).status == 0)
        let refused = try scratch.cards(
            ["add", "--title", "X", "--url", "https://x.example"], in: deck, extraEnvironment: ["EMAIL": "e@x.example"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no email was given and auto-detection is disabled"), "\(refused.stderr)")
        let gitSays = try scratch.run(
            "/usr/bin/git", ["var", "GIT_AUTHOR_IDENT"], in: deck, extraEnvironment: ["EMAIL": "e@x.example"])
        #expect(gitSays.status != 0 && gitSays.stderr.contains("no email was given and auto-detection is disabled"))
        #expect(try scratch.commits(deck) == before)
        try scratch.expectClean(deck)
    }
}
