import CGit2
import Foundation
@testable import GitCore
import TestSupport
import Testing

/// `Repository.commitBytes` writes a commit's bytes itself (no lookups); here against libgit2's
/// `git_commit_create_buffer` on random signatures (spaces, punctuation and control characters at the
/// ends, angle brackets, NULs, other scripts), time zones, times and messages: the same bytes, or both
/// refusing. Seeded; the seed is in every failure message.
@Suite("Commit bytes: as libgit2 makes them", .scratchFolder)
struct CommitBytesTests {
    static let seeds: [UInt64] = (0..<UInt64(8)).map { 11_000 + $0 }

    /// libgit2's bytes for the same commit, or nil when it refuses.
    static func libgit2Bytes(
        _ repository: Repository, tree: ObjectID, parents: [ObjectID], message: String, author: Signature,
        committer: Signature
    ) -> [UInt8]? {
        var treePointer: OpaquePointer?
        var treeOID = tree.raw
        guard git_tree_lookup(&treePointer, repository.pointer, &treeOID) == 0 else { return nil }
        defer { git_tree_free(treePointer) }
        var parentPointers: [OpaquePointer?] = []
        defer { for parent in parentPointers { git_commit_free(parent) } }
        for parent in parents {
            var commit: OpaquePointer?
            var oid = parent.raw
            guard git_commit_lookup(&commit, repository.pointer, &oid) == 0 else { return nil }
            parentPointers.append(commit)
        }
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        var made: Int32 = -1
        do {
            try author.withRaw { (authorRaw) throws(GitError) in
                try committer.withRaw { (committerRaw) throws(GitError) in
                    made = parentPointers.withUnsafeMutableBufferPointer { pointers in
                        git_commit_create_buffer(
                            &buffer, repository.pointer, authorRaw, committerRaw, "UTF-8", message, treePointer,
                            pointers.count, pointers.baseAddress)
                    }
                }
            }
        } catch {
            git_error_clear()
            return nil
        }
        guard made == 0, let bytes = buffer.ptr else { return nil }
        return bytes.withMemoryRebound(to: UInt8.self, capacity: buffer.size) {
            Array(UnsafeBufferPointer(start: $0, count: buffer.size))
        }
    }

    static func randomText(using random: inout SplitMix64) -> String {
        let pieces = [
            "Ada", "Lovelace", " ", "  ", ".", ",", ":", ";", "\"", "'", "\\", "\t", "\n", "\u{1}", "é", "Łódź",
            "名前", "🦊", "a.b", "<", ">", "\u{0}", "x", "-", "_", "@", "example.com",
        ]
        var text = ""
        for _ in 0..<Int.random(in: 0...7, using: &random) {
            // Angle brackets and NULs now and then; libgit2 refuses the first, a C string ends at the second.
            var piece = pieces[Int.random(in: 0..<pieces.count, using: &random)]
            if (piece == "<" || piece == ">" || piece == "\u{0}") && Int.random(in: 0..<4, using: &random) > 0 {
                piece = "y"
            }
            text += piece
        }
        return text
    }

    @Test("random signatures, zones, times and messages: libgit2's bytes, or both refuse", arguments: seeds)
    func matchesLibgit2(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let scratch = try ScratchFolder.current
        let directory = scratch.path("repo.git")
        try scratch.git(["init", "-q", "--bare", directory], in: scratch.root)
        let repository = try Repository.open(at: directory)
        let tree = try repository.updatedTree(
            base: nil, updates: [TreeUpdate(path: "a.txt", blob: try repository.writeBlob(Array("a\n".utf8)))])
        let someone = Signature(name: "Someone", email: "someone@example.com", time: 1_700_000_000)
        var commits: [ObjectID] = []
        for index in 0..<3 {
            commits.append(
                try repository.createCommit(
                    tree: tree, parents: commits.suffix(1), message: "c\(index)\n", author: someone, committer: someone)
            )
        }
        var compared = 0
        var refused = 0
        for round in 0..<150 {
            let zones: [Int32] = [0, 60, -60, 330, -210, 840, -720, 45, -1, 6_000, Int32.min, Int32.max]
            let times: [Int64] = [0, 1, 1_700_000_000, -5, 4_294_967_296 + 7, Int64(Int32.max)]
            func signature() -> Signature {
                Signature(
                    name: Self.randomText(using: &random), email: Self.randomText(using: &random),
                    time: times[Int.random(in: 0..<times.count, using: &random)],
                    offsetMinutes: zones[Int.random(in: 0..<zones.count, using: &random)])
            }
            let author = signature()
            let committer = Int.random(in: 0..<2, using: &random) == 0 ? author : signature()
            let message = Self.randomText(using: &random) + (Int.random(in: 0..<2, using: &random) == 0 ? "\n" : "")
            let parents = Array(commits.prefix(Int.random(in: 0...3, using: &random)))
            let expected = Self.libgit2Bytes(
                repository, tree: tree, parents: parents, message: message, author: author, committer: committer)
            let ours = try? Repository.commitBytes(
                tree: tree, parents: parents, message: message, author: author, committer: committer)
            let oursText = String(decoding: ours ?? [], as: UTF8.self).debugDescription
            let libgit2Text = String(decoding: expected ?? [], as: UTF8.self).debugDescription
            #expect(ours == expected, "seed \(seed), round \(round): \(oursText) against libgit2's \(libgit2Text)")
            if expected == nil { refused += 1 } else { compared += 1 }
        }
        // Both kinds happened: the comparison means something either way.
        #expect(compared > 20 && refused > 5, "seed \(seed): \(compared) compared, \(refused) refused")
    }
}

extension Signature {
    /// The signature as libgit2's own (`git_signature_new`), for the comparison above.
    func withRaw<T>(_ body: (UnsafePointer<git_signature>) throws(GitError) -> T) throws(GitError) -> T {
        var raw: UnsafeMutablePointer<git_signature>?
        guard git_signature_new(&raw, name, email, time, offsetMinutes) == 0, let raw else {
            git_error_clear()
            throw GitError(code: .other(-1), message: "refused", function: "git_signature_new")
        }
        defer { git_signature_free(raw) }
        return try body(raw)
    }
}
