import Foundation
import TestSupport
import Testing

@testable import GitCore

/// Which packs get combined: the fewest small ones that leave a geometric progression.
@Suite("Pack consolidation choice")
struct PackConsolidationTests {
    @Test("within the limit and already geometric: nothing to combine")
    func nothingToDo() {
        #expect(PackConsolidation.combinedCount([5, 10, 40, 100_000], limit: 16) == 0)
    }

    @Test("seventeen one-commit packs beside an import: all the small ones, never the import")
    func smallOnesOnly() {
        let counts = Array(repeating: 5, count: 17) + [100_000]
        #expect(PackConsolidation.combinedCount(counts, limit: 16) == 17)
    }

    @Test("a pack that is not yet twice the ones below it is combined with them")
    func notYetDouble() {
        // 16 packs of 5 (80 objects) below a pack of 85: 85 < 160, so it is combined too.
        let counts = Array(repeating: 5, count: 16) + [85, 100_000]
        #expect(PackConsolidation.combinedCount(counts, limit: 16) == 17)
    }

    @Test("over the limit, enough are combined to come back to half of it, even in a geometric row")
    func overTheLimit() {
        let counts = (0..<20).map { 1 << ($0 * 2) }
        let combined = PackConsolidation.combinedCount(counts, limit: 16)
        #expect(counts.count - combined + 1 <= 8)
    }

    @Test("for random pack sizes the rest is geometric and within half the limit")
    func randomSizes() {
        var state: UInt64 = 0x5EED
        for round in 0..<500 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let size = Int(state >> 59) + 17
            var counts: [Int] = []
            for _ in 0..<size {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                counts.append(Int(state >> 44) + 1)
            }
            counts.sort()
            let combined = PackConsolidation.combinedCount(counts, limit: 16)
            #expect(combined >= 2 && counts.count - combined + 1 <= 9, "round \(round): \(counts)")
            var running = counts.prefix(combined).reduce(0, +)
            for next in counts.dropFirst(combined) {
                #expect(next >= 2 * running, "round \(round): \(counts) combining \(combined)")
                running += next
            }
        }
    }
}

/// Combining packs on disk: objects copied as they lie (deltas read whole), every object kept with
/// its content, and a damaged entry stopping the combination with every old pack still there.
@Suite("Pack consolidation on disk", .scratchFolder)
struct PackConsolidationDiskTests {
    /// The path of a bare repository with a pack per commit, written by git (deltas among similar files).
    static func manyPacks(_ scratch: ScratchFolder, commits: Int) throws -> String {
        let work = scratch.path("work")
        let bare = scratch.path("repo.git")
        try scratch.git(["init", "-q", "-b", "main", work], in: scratch.root)
        for commit in 0..<commits {
            // Two similar versions of a long file a commit: git stores one as a delta of the other.
            let lines = (0..<300).map { "line \($0) of commit \(commit / 2)" }.joined(separator: "\n")
            try (lines + "\nend \(commit)\n").write(toFile: work + "/long.txt", atomically: true, encoding: .utf8)
            try (lines + "\nother \(commit)\n").write(toFile: work + "/copy.txt", atomically: true, encoding: .utf8)
            try "small \(commit)\n".write(toFile: work + "/small-\(commit).txt", atomically: true, encoding: .utf8)
            try scratch.git(["add", "-A"], in: work)
            try scratch.git(
                ["-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "c\(commit)"], in: work)
            try scratch.git(["repack", "-q", "-d"], in: work)
        }
        try scratch.git(["clone", "-q", "--bare", "--no-local", work, bare], in: scratch.root)
        // The clone has one pack: give it the work tree's many instead.
        let packs = bare + "/objects/pack"
        for name in try FileManager.default.contentsOfDirectory(atPath: packs) {
            try FileManager.default.removeItem(atPath: packs + "/" + name)
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: work + "/.git/objects/pack") {
            try FileManager.default.copyItem(atPath: work + "/.git/objects/pack/" + name, toPath: packs + "/" + name)
        }
        return bare
    }

    static func packCount(_ repository: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: repository + "/objects/pack").filter {
            $0.hasSuffix(".pack")
        }
        .count
    }

    @Test("combined packs hold every object with the same content, git fsck finds nothing wrong")
    func combinedKeepsEverything() throws {
        let scratch = try ScratchFolder.current
        let bare = try Self.manyPacks(scratch, commits: 12)
        let before = try Self.packCount(bare)
        let listing = ["cat-file", "--batch-all-objects", "--batch-check"]
        let objectsBefore = try scratch.git(listing, in: bare)
        #expect(objectsBefore.split(separator: "\n").count > 40)
        let repository = try Repository.open(at: bare)
        let combined = try PackConsolidation.consolidate(repository, limit: 4)
        #expect(combined >= 2, "nothing combined of \(before) packs")
        #expect(try Self.packCount(bare) == before - combined + 1)
        // Every object's content checked against its id.
        #expect(try GitRunner.fsckStatus(bare) == 0, "git fsck --strict found damage")
        #expect(try scratch.git(listing, in: bare) == objectsBefore, "objects lost, added or changed in size")
    }

    @Test("an index whose list of ids was damaged: that pack left as it is, the others combined without it")
    func damagedIndexLeftOut() throws {
        let scratch = try ScratchFolder.current
        let bare = try Self.manyPacks(scratch, commits: 8)
        let folder = bare + "/objects/pack"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let sizes = try names.filter { $0.hasSuffix(".idx") }.map { name in
            (name, (try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? 0)
        }
        // The smallest pack's (one that gets combined): one byte of the first id it lists, so that its
        // entry would be copied under an id that is not its own.
        let victim = try #require(sizes.min { $0.1 < $1.1 }).0
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + victim)))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder + "/" + victim)
        bytes[8 + 256 * 4 + 19] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + victim))
        let victimPack = String(victim.dropLast(4)) + ".pack"
        let packBytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + victimPack))
        let before = try Self.packCount(bare)
        let repository = try Repository.open(at: bare)
        let combined = try PackConsolidation.consolidate(repository, limit: 4)
        #expect(combined >= 2, "the undamaged packs were not combined")
        #expect(try Self.packCount(bare) == before - combined + 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + victim)) == Data(bytes))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + victimPack)) == packBytes)
    }

    @Test("an entry whose bytes fail its CRC: nothing combined, every old pack still there")
    func damagedEntryStops() throws {
        let scratch = try ScratchFolder.current
        let bare = try Self.manyPacks(scratch, commits: 8)
        let folder = bare + "/objects/pack"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".pack") }
            .sorted()
        // The smallest pack (one that gets combined): a byte in the middle of its objects flipped.
        let sizes = try names.map { name in
            (name, (try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? 0)
        }
        let victim = try #require(sizes.min { $0.1 < $1.1 }).0
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + victim)))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder + "/" + victim)
        bytes[12 + (bytes.count - 32) / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + victim))
        let repository = try Repository.open(at: bare)
        #expect(throws: GitError.self) { try PackConsolidation.consolidate(repository, limit: 4) }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".pack") }.sorted()
        #expect(left == names, "packs were removed or added after a failed combination")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.hasPrefix("tmp_") },
            "a temporary file was left")
    }
}

extension PackConsolidationDiskTests {
    /// Sets `path`'s modification time `age` seconds back.
    static func age(_ path: String, by age: Double) {
        var times = [timespec](repeating: timespec(), count: 2)
        let then = time(nil) - Int(age)
        times[0].tv_sec = then
        times[1].tv_sec = then
        _ = utimensat(AT_FDCWD, path, times, 0)
    }

    @Test(
        "git repacking: a live or fresh .tmp- pack and gc.pid count; a killed repack's old one, a 12-hour-old gc.pid do not"
    )
    func leftoversDoNotStopConsolidation() throws {
        let scratch = try ScratchFolder.current
        let bare = scratch.path("repo.git")
        try scratch.git(["init", "-q", "--bare", bare], in: scratch.root)
        let repository = try Repository.open(at: bare)
        #expect(!PackConsolidation.gitRepacking(repository))
        let temporary = repository.packFolder + "/.tmp-999999-pack-leftover.pack"
        #expect(FileManager.default.createFile(atPath: temporary, contents: Data()))
        #expect(PackConsolidation.gitRepacking(repository), "a fresh one may be a repack just started")
        Self.age(temporary, by: 3_600)
        #expect(!PackConsolidation.gitRepacking(repository), "a dead process's hour-old leftover")
        let live = repository.packFolder + "/.tmp-\(getpid())-pack-live.pack"
        #expect(FileManager.default.createFile(atPath: live, contents: Data()))
        Self.age(live, by: 3_600)
        #expect(PackConsolidation.gitRepacking(repository), "its process still runs")
        unlink(live)
        let pid = Repository.trimmedSlash(repository.commonDirectory) + "/gc.pid"
        #expect(FileManager.default.createFile(atPath: pid, contents: Data("1 elsewhere\n".utf8)))
        #expect(PackConsolidation.gitRepacking(repository), "another machine's gc")
        Self.age(pid, by: 13 * 3_600)
        #expect(!PackConsolidation.gitRepacking(repository), "older than 12 hours: stale, as git reads it")
    }
}
