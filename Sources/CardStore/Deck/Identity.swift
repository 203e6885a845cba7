import GitCore
import Glibc

extension Deck {
    /// The author of new commits: `user.name`/`user.email` from git config, else
    /// `CARDS_AUTHOR_NAME`/`CARDS_AUTHOR_EMAIL`, else an error that says how to set them.
    public func signature() throws(StoreError) -> Signature {
        let name = ((try? repository.configString("user.name")) ?? nil) ?? Deck.environment("CARDS_AUTHOR_NAME")
        let email = ((try? repository.configString("user.email")) ?? nil) ?? Deck.environment("CARDS_AUTHOR_EMAIL")
        guard let name, !name.isEmpty, let email, !email.isEmpty else {
            throw StoreError(
                .noIdentity,
                "no author identity for commits: set it with `git config --global user.name \"Your Name\"` and "
                    + "`git config --global user.email you@example.com`, or set CARDS_AUTHOR_NAME and CARDS_AUTHOR_EMAIL"
            )
        }
        let signature = Signature(name: name, email: email, time: Deck.commitTime(), offsetMinutes: 0)
        if let problem = signature.commitProblem {
            throw StoreError(
                .noIdentity,
                "\(problem), which git cannot write in a commit: set another with `git config user.name` / "
                    + "`git config user.email` (this deck) or `--global`, or CARDS_AUTHOR_NAME and CARDS_AUTHOR_EMAIL")
        }
        return signature
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
