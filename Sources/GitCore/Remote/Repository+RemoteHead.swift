extension Repository {
    /// The branch a remote's HEAD names (`refs/heads/master`, say), as `git clone` takes it: nil when
    /// its HEAD names no branch (an empty repository) or the server does not say. Through git's own
    /// client (`git ls-remote --symref`) or libgit2's, as `remote.transport` says.
    package func remoteHeadBranch(_ remote: ResolvedRemote) throws(GitError) -> String? {
        if let path = remote.localPath {
            // On this machine: read its HEAD, without a transfer.
            return (try? Repository.open(at: path))?.headReferenceName().flatMap {
                $0.hasPrefix("refs/heads/") ? $0 : nil
            }
        }
        guard remote.transport == .git else { return try remoteHeadBranchThroughLibgit2(remote) }
        let outcome = try runGit(["ls-remote", "--symref", "--", remote.name, "HEAD"], settings: remote.settings)
        guard outcome.status == 0, !outcome.stalled, !outcome.interrupted else {
            throw GitReply.failure(
                outcome, url: remote.shownURL(pushing: false), pushing: false, timeout: stallTimeout(remote.settings))
        }
        for line in String(decoding: outcome.output, as: UTF8.self).split(separator: "\n")
        where line.hasPrefix("ref: ") && line.hasSuffix("\tHEAD") {
            let target = line.dropFirst(5).dropLast(5)
            if target.hasPrefix("refs/heads/") { return String(target) }
        }
        return nil
    }
}
