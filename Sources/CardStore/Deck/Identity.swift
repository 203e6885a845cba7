import GitCore
import Glibc

/// Who a commit names as its author and as its committer, and when, chosen as `git commit` chooses
/// them (`git var GIT_AUTHOR_IDENT` / `GIT_COMMITTER_IDENT` in the same environment and repository).
public struct CommitIdentity: Sendable, Hashable {
    /// The commit's author.
    public var author: Signature
    /// The commit's committer (and the name in the reflog line of the branch it moves).
    public var committer: Signature

    /// Creates an identity; the committer defaults to the author.
    package init(author: Signature, committer: Signature? = nil) {
        self.author = author
        self.committer = committer ?? author
    }
}

extension Deck {
    /// The author of new commits (see `commitIdentity`).
    package func signature() throws(StoreError) -> Signature {
        try commitIdentity().author
    }

    /// The author and committer of new commits, as git chooses them: `GIT_AUTHOR_NAME`/`_EMAIL`
    /// (`GIT_COMMITTER_…` for the committer), else `author.name`/`author.email` (`committer.…`), else
    /// `user.name`/`user.email`, else `CARDS_AUTHOR_NAME`/`CARDS_AUTHOR_EMAIL`, else `EMAIL` for the
    /// address; `user.useConfigOnly` refuses what no config or variable gave; the time now, in the
    /// local time zone (`TZ`). git itself is asked (`git var`) only where it has the only exact answer:
    /// a `GIT_AUTHOR_DATE`/`GIT_COMMITTER_DATE` in any of git's date formats, an
    /// `includeIf "hasconfig:…"` section (which libgit2 skips), or an identity git would detect from the
    /// system. An identity git cannot write is an error naming it and where to change it.
    public func commitIdentity() throws(StoreError) -> CommitIdentity {
        let asksGit =
            Deck.environment("GIT_AUTHOR_DATE") != nil || Deck.environment("GIT_COMMITTER_DATE") != nil
            || hasConditionalIdentity
        if !asksGit, let native = try nativeIdentity() { return native }
        return try identityFromGit()
    }

    /// The identity from the environment and config alone, or nil when git would have to detect part
    /// of it from the system (its name from the password file, its address from the host name).
    private func nativeIdentity() throws(StoreError) -> CommitIdentity? {
        let configOnly = repository.configBool("user.useConfigOnly") ?? false
        func pick(_ role: String, _ field: String) throws(StoreError) -> String? {
            if let given = Deck.environment("GIT_\(role.uppercased())_\(field.uppercased())") { return given }
            for key in ["\(role).\(field)", "user.\(field)"] {
                if let value = (try? repository.configString(key)) ?? nil { return value }
            }
            if let given = Deck.environment("CARDS_AUTHOR_\(field.uppercased())") { return given }
            if configOnly {
                throw StoreError(
                    .noIdentity,
                    "no \(field) was given and auto-detection is disabled (user.useConfigOnly): set it with "
                        + "`git config user.\(field) …` (this deck) or `--global`, or GIT_\(role.uppercased())_"
                        + "\(field.uppercased())")
            }
            return field == "email" ? Deck.environment("EMAIL") : nil
        }
        guard let authorName = try pick("author", "name"), let authorEmail = try pick("author", "email"),
            let committerName = try pick("committer", "name"), let committerEmail = try pick("committer", "email")
        else { return nil }
        let now = Deck.commitTime()
        let zone = Deck.localOffsetMinutes(at: now)
        let author = try Deck.checkedSignature(authorName, authorEmail, time: now, offset: zone, role: "author")
        let committer = try Deck.checkedSignature(
            committerName, committerEmail, time: now, offset: zone, role: "committer")
        return CommitIdentity(author: author, committer: committer)
    }

    /// Whether the config has an `includeIf "hasconfig:…"` section: libgit2 skips the condition, so
    /// the identity it includes is known to git alone.
    private var hasConditionalIdentity: Bool {
        !((try? repository.configEntries(matching: "^includeif\\.hasconfig:")) ?? []).isEmpty
    }

    /// The identity git itself would use (`git var`), with git's words when it has none.
    private func identityFromGit() throws(StoreError) -> CommitIdentity {
        func ask(_ role: String) throws(StoreError) -> Signature {
            let line: String
            do {
                line = try repository.gitVariable("GIT_\(role.uppercased())_IDENT")
            } catch {
                throw StoreError(
                    .noIdentity,
                    "no \(role) identity for commits: git says: \(error.message); or set CARDS_AUTHOR_NAME and "
                        + "CARDS_AUTHOR_EMAIL")
            }
            guard let parsed = Deck.parseIdent(line) else {
                throw StoreError(
                    .noIdentity, "`git var GIT_\(role.uppercased())_IDENT` gave \"\(line)\": not an identity")
            }
            var signature = parsed
            if let fixed = Deck.environment("CARDS_COMMIT_TIME").flatMap(Int64.init) { signature.time = fixed }
            return try Deck.checkedSignature(
                signature.name, signature.email, time: signature.time, offset: signature.offsetMinutes, role: role)
        }
        return CommitIdentity(author: try ask("author"), committer: try ask("committer"))
    }

    /// "Name <email> 1796530675 +0545" (git's ident line) as a signature; nil when it is not one.
    static func parseIdent(_ line: String) -> Signature? {
        let bytes = Array(line.utf8)
        guard let close = bytes.lastIndex(of: UInt8(ascii: ">")),
            let open = bytes[..<close].lastIndex(of: UInt8(ascii: "<"))
        else { return nil }
        var name = String(decoding: bytes[..<open], as: UTF8.self)
        if name.hasSuffix(" ") { name.removeLast() }
        let email = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
        let rest = String(decoding: bytes[(close + 1)...], as: UTF8.self).split(separator: " ")
        guard rest.count == 2, let time = Int64(rest[0]), let zone = Int32(rest[1].dropFirst()), rest[1].count == 5
        else { return nil }
        let minutes = (zone / 100) * 60 + zone % 100
        return Signature(
            name: name, email: email, time: time, offsetMinutes: rest[1].hasPrefix("-") ? -minutes : minutes)
    }

    /// A signature of git's cleaned name and email (`Signature.gitCleaned`), or the error that names
    /// what git would refuse.
    static func checkedSignature(
        _ name: String, _ email: String, time: Int64, offset: Int32, role: String
    ) throws(StoreError) -> Signature {
        let signature = Signature(
            name: Signature.gitCleaned(name), email: Signature.gitCleaned(email), time: time, offsetMinutes: offset)
        if signature.name.isEmpty {
            let fault =
                name.isEmpty
                ? "empty ident name (for <\(signature.email)>) not allowed"
                : "name consists only of disallowed characters: \"\(name)\""
            throw StoreError(
                .noIdentity,
                "\(fault): git cannot write this \(role) name in a commit; set another with `git config user.name` "
                    + "(this deck) or `--global`, or CARDS_AUTHOR_NAME")
        }
        if let problem = signature.commitProblem {
            throw StoreError(
                .noIdentity,
                "\(problem), which git cannot write in a commit: set another with `git config user.name` / "
                    + "`git config user.email` (this deck) or `--global`, or CARDS_AUTHOR_NAME and CARDS_AUTHOR_EMAIL")
        }
        return signature
    }

    /// Minutes east of UTC of the local time zone at `time` (`TZ`, else /etc/localtime), as git writes
    /// a commit's time.
    static func localOffsetMinutes(at time: Int64) -> Int32 {
        var seconds = time_t(time)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return Int32(parts.tm_gmtoff / 60)
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Now, or `CARDS_COMMIT_TIME` (seconds) when a test needs reproducible commits.
    static func commitTime() -> Int64 {
        if let text = environment("CARDS_COMMIT_TIME"), let value = Int64(text) { return value }
        return Int64(time(nil))
    }
}

extension Signature {
    /// A name or email as git writes it into an identity line (ident.c's
    /// `strbuf_addstr_without_crud`): spaces, control characters and `.,:;<>"\'` dropped at both ends,
    /// and `<`, `>` and line breaks dropped inside ("Ada <ada@home>" is "Ada ada@home").
    static func gitCleaned(_ text: String) -> String {
        func isCrud(_ byte: UInt8) -> Bool { byte <= 32 || Array(".,:;<>\"\\'".utf8).contains(byte) }
        let bytes = Array(text.utf8)
        guard let first = bytes.firstIndex(where: { !isCrud($0) }), let last = bytes.lastIndex(where: { !isCrud($0) })
        else { return "" }
        let kept = bytes[first...last].filter {
            $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">")
        }
        return String(decoding: kept, as: UTF8.self)
    }
}
