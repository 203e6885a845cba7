/// A commit, copied out of libgit2.
public struct Commit: Sendable, Hashable {
    /// The commit's id.
    public var id: ObjectID
    /// Its root tree.
    public var tree: ObjectID
    /// Its parents, first parent first.
    public var parents: [ObjectID]
    /// The full message.
    public var message: String
    /// Who wrote the change.
    public var author: Signature
    /// Who committed it.
    public var committer: Signature

    /// The first line of the message.
    public var subject: String {
        String(message.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// The trailers (`Key: value` lines of the message's last paragraph), in order.
    public var trailers: [(key: String, value: String)] {
        let paragraphs = message.split(separator: "\n\n", omittingEmptySubsequences: true)
        guard paragraphs.count > 1, let last = paragraphs.last else { return [] }
        var result: [(key: String, value: String)] = []
        for line in last.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { return [] }
            let key = line[..<colon]
            guard !key.isEmpty, !key.contains(" ") else { return [] }
            let value = line[line.index(after: colon)...].drop(while: { $0 == " " })
            result.append((String(key), String(value)))
        }
        return result
    }

    /// The values of every trailer named `key`.
    public func trailerValues(_ key: String) -> [String] {
        trailers.filter { $0.key == key }.map(\.value)
    }

    /// Creates a commit value.
    public init(
        id: ObjectID, tree: ObjectID, parents: [ObjectID], message: String, author: Signature, committer: Signature
    ) {
        self.id = id
        self.tree = tree
        self.parents = parents
        self.message = message
        self.author = author
        self.committer = committer
    }
}
