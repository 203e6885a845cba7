import GitCore

/// A deck whose history git fetched only in part (`git clone --depth`, `--filter`): libgit2 reads no
/// shallow or promisor history, so a sync or a merge, which walk the history and read the merge
/// base's cards, is refused up front with what to run, never reported as damage half way.
extension Deck {
    /// What a shallow or partial clone lacks and how to get it, or nil for a whole history.
    package func partialHistory() -> String? {
        if isShallow {
            return "this deck is a shallow clone (`git clone --depth`): its history stops short, and a sync or a "
                + "merge needs it to find what both sides share; run `git fetch --unshallow`, then try again"
        }
        // git 2.x marks the remote a partial clone fetches from (`remote.NAME.promisor`); older ones
        // named it in `extensions.partialClone`.
        let promisors = ((try? repository.remotes()) ?? []).map(\.name).filter { name in
            ((try? repository.configString("remote.\(name).promisor")) ?? nil)?.lowercased() == "true"
        }
        let partial = promisors.first ?? ((try? repository.configString("extensions.partialClone")) ?? nil)
        if let partial, !partial.isEmpty {
            return "this deck is a partial clone (`git clone --filter`, promisor remote \(partial)): its history lacks "
                + "card files a merge reads, and cards cannot fetch them on demand as git does; make a full clone "
                + "(`cards clone URL`), then sync from there"
        }
        return nil
    }

    /// Fails, changing nothing, on a shallow or partial clone (`partialHistory`).
    func checkHistoryIsWhole(doing what: String) throws(StoreError) {
        if let missing = partialHistory() {
            throw StoreError(.invalidInput, "not \(what): \(missing); nothing was changed")
        }
    }
}
