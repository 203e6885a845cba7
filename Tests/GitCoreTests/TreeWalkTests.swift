import Foundation
import GitCore
import TestSupport
import Testing

@Suite("Tree walk: the changed leaves of two or three trees, in git's order", .scratchFolder)
struct TreeWalkTests {
    /// A bare repository with trees made by git itself (`git mktree`), so the order is git's.
    struct Trees {
        let scratch: ScratchFolder
        let directory: String

        init() throws {
            scratch = try ScratchFolder.current
            directory = scratch.path("repo.git")
            try scratch.git(["init", "-q", "--bare", directory], in: scratch.root)
        }

        func blob(_ text: String) throws -> String {
            let file = scratch.path("blob-\(UUID().uuidString)")
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            return try scratch.git(["hash-object", "-w", file], in: directory).trimmingCharacters(
                in: .whitespacesAndNewlines)
        }

        /// A tree from (name, mode, id) entries.
        func tree(_ entries: [(String, String, String)]) throws -> ObjectID {
            let input = entries.map { "\($0.1) \($0.1 == "040000" ? "tree" : "blob") \($0.2)\t\($0.0)" }
            let file = scratch.path("mktree-\(UUID().uuidString)")
            try Data((input.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
            let hex = try mktree(input: file)
            guard let id = ObjectID(hex: hex.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw CocoaError(.fileReadCorruptFile)
            }
            return id
        }

        /// `git mktree` reading its entries from `input`.
        private func mktree(input: String) throws -> String {
            try GitRunner.run(["mktree"], in: directory, input: input).output
        }
    }

    /// The paths that differ between two trees, as `cards fsck` and `cards log` walk them.
    static func changes(
        in repository: Repository, from old: ObjectID?, to new: ObjectID?, verified: Bool = false
    ) throws -> [(path: String, old: TreeEntry?, new: TreeEntry?)] {
        try repository.changedLeaves([old, new], comparing: (0, 1), verified: verified).map { change in
            (change.path, change.entries[0], change.entries[1])
        }
    }

    @Test("a tree whose bytes no longer match its id: a verified walk (cards fsck) refuses it")
    func verifiedDiffChecksTreeHashes() throws {
        let trees = try Trees()
        let x = try trees.blob("x")
        let y = try trees.blob("y")
        let sub = try trees.tree([("f", "100644", x)])
        let other = try trees.tree([("f", "100644", y)])
        let root = try trees.tree([("sub", "040000", sub.hex)])
        // Damage: the loose object of `sub` now holds `other`'s (valid, canonical) bytes.
        let path = { (id: ObjectID) in "\(trees.directory)/objects/\(id.hex.prefix(2))/\(id.hex.dropFirst(2))" }
        try FileManager.default.removeItem(atPath: path(sub))
        try FileManager.default.copyItem(atPath: path(other), toPath: path(sub))
        let repository = try Repository.open(at: trees.directory)
        #expect(throws: GitError.self) { try Self.changes(in: repository, from: nil, to: root, verified: true) }
    }

    @Test("a file that becomes a folder of the same name, next to a folder whose name sorts around it")
    func fileBecomesFolder() throws {
        let trees = try Trees()
        let x = try trees.blob("x")
        let y = try trees.blob("y")
        let sub = try trees.tree([("f", "100644", x)])
        let newSub = try trees.tree([("f", "100644", y)])
        let old = try trees.tree([("a", "100644", x), ("a-b", "040000", sub.hex), ("c", "100644", x)])
        let new = try trees.tree([("a", "040000", newSub.hex), ("a-b", "040000", newSub.hex), ("c", "100644", x)])
        let repository = try Repository.open(at: trees.directory)
        let changes = try Self.changes(in: repository, from: old, to: new)
        let summary = changes.map { "\($0.path):\($0.old?.id.hex.prefix(7) ?? "-")>\($0.new?.id.hex.prefix(7) ?? "-")" }
        let xs = x.prefix(7)
        let ys = y.prefix(7)
        #expect(Set(summary) == ["a:\(xs)>-", "a/f:->\(ys)", "a-b/f:\(xs)>\(ys)"])
        #expect(try Self.changes(in: repository, from: new, to: old).count == 3)
        #expect(try Self.changes(in: repository, from: nil, to: old).count == 3)
        #expect(try Self.changes(in: repository, from: old, to: old).isEmpty)

        // Three trees: only where ours and theirs differ, with the base's entry beside them.
        let three = try repository.changedLeaves([old, old, new], comparing: (1, 2))
        #expect(three.map(\.path).sorted() == ["a", "a-b/f", "a/f"])
        let file = three.first { $0.path == "a-b/f" }
        #expect(file?.entries.map { $0?.id.hex } == [x, x, y])
        #expect(try repository.changedLeaves([old, new, new], comparing: (1, 2)).isEmpty)
    }
}
