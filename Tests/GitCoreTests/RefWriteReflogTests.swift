import Foundation
@testable import GitCore
import TestSupport
import Testing

/// Our ref writer (`updateReferenceWrittenOut`, every commit's since 2.1.1) keeps a branch's reflog
/// where git would: `core.logAllRefUpdates` read as git reads it.
@Suite("Ref writer: a reflog where git keeps one", .scratchFolder)
struct RefWriteReflogTests {
    @Test(
        "core.logAllRefUpdates in a bare repository (on, 2, yes, always, the key alone; off, false, 0, unset): a branch moved by our writer has a reflog exactly when one git update-ref moved has one"
    )
    func logAllRefUpdatesAsGitReadsIt() throws {
        let scratch = try ScratchFolder.current
        let settings: [String?] = ["on", "2", "yes", "always", "", "off", "false", "0", nil]
        for (index, setting) in settings.enumerated() {
            var kept: [Bool] = []
            for writer in ["git", "ours"] {
                let path = scratch.path("\(writer)-\(index).git")
                _ = try scratch.git(["init", "-q", "--bare", path], in: scratch.root)
                if let setting {
                    // The key with no value ("[core] logAllRefUpdates"), which git reads as true.
                    let line = setting.isEmpty ? "\tlogAllRefUpdates\n" : "\tlogAllRefUpdates = \(setting)\n"
                    let config = path + "/config"
                    let text = try String(contentsOfFile: config, encoding: .utf8)
                    try (text.replacingOccurrences(of: "[core]\n", with: "[core]\n" + line))
                        .write(toFile: config, atomically: true, encoding: .utf8)
                }
                let tree = try scratch.git(["hash-object", "-t", "tree", "-w", "--stdin"], in: path)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                let commit = try scratch.git(["commit-tree", "-m", "one", tree], in: path)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                if writer == "git" {
                    _ = try scratch.git(["update-ref", "-m", "one", "refs/heads/main", commit], in: path)
                } else {
                    let repository = try Repository.open(at: path)
                    let committer = Signature(name: "N", email: "n@example.invalid", time: 0, offsetMinutes: 0)
                    let done = try repository.updateReferenceWrittenOut(
                        "refs/heads/main", to: try #require(ObjectID(hex: commit)), expected: nil, logMessage: "one",
                        committer: committer, flush: .none)
                    #expect(done)
                }
                kept.append(FileManager.default.fileExists(atPath: path + "/logs/refs/heads/main"))
            }
            #expect(
                kept[0] == kept[1], "core.logAllRefUpdates=\(setting ?? "unset"): git kept \(kept[0]), ours \(kept[1])")
        }
    }
}
