import Foundation
import TestSupport
import Testing

@testable import GitCore

/// A working tree whose index git itself wrote (`git add`, `git commit`: a TREE extension, and the
/// other extensions a variant asks for), with some card files racily clean for the index patch: their
/// modification time is set after the index's, as when a file is written in the same second.
final class GitIndexFixture {
    /// What git is asked to put in the index besides entries and the TREE extension.
    enum Variant: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// Version 2, TREE only.
        case plain
        /// The optional extensions the patch drops: UNTR, EOIE, IEOT.
        case optionalExtensions
        /// A resolved merge conflict: a REUC extension, which the patch keeps.
        case resolvedConflict
        /// A skip-worktree entry: extended flags, so version 3.
        case version3

        var testDescription: String { rawValue }
    }

    let scratch: ScratchFolder
    let directory: String
    /// The card paths committed, sorted.
    private(set) var cardPaths: [String] = []
    /// The paths (cards and README.md) whose files are racily clean against `indexSeconds`.
    private(set) var racyPaths: Set<String> = []
    /// The modification time (seconds) the index is given before each patch.
    let indexSeconds: Int
    private var generator: SplitMix64

    var indexPath: String { directory + "/.git/index" }

    init(cards: Int, variant: Variant, seed: UInt64 = 1) throws {
        scratch = try ScratchFolder()
        directory = scratch.path("repo")
        generator = SplitMix64(seed: seed)
        indexSeconds = Int(Date().timeIntervalSince1970) - 10_000
        var paths: [String] = []
        try check(["init", "-q", "-b", "main", directory], in: scratch.root)
        // Written now, after `indexSeconds`: racily clean too.
        try write("README.md", "readme\n")
        racyPaths.insert("README.md")
        for index in 0..<cards {
            let path = Self.cardPath(id: randomID())
            // One in three after the index's time: racily clean once the index gets `indexSeconds`.
            let racilyClean = index % 3 == 0
            try write(path, "{\"title\":\"Card \(index)\"}\n", seconds: indexSeconds + (racilyClean ? 5 : -500))
            paths.append(path)
            if racilyClean { racyPaths.insert(path) }
        }
        cardPaths = paths.sorted()
        try check(["add", "-A"])
        try check(["commit", "-q", "-m", "cards"])
        try prepare(variant)
    }

    /// Makes git write the extensions or flags `variant` asks for.
    private func prepare(_ variant: Variant) throws {
        switch variant {
        case .plain: break
        case .optionalExtensions:
            try check(["config", "index.recordEndOfIndexEntries", "true"])
            try check(["config", "index.recordOffsetTable", "true"])
            // IEOT is written only for an index read by several threads: ask for them.
            try check(["config", "index.threads", "4"])
            try check(["config", "core.untrackedCache", "true"])
            try check(["update-index", "--untracked-cache"])
            try check(["status", "--porcelain"])
        case .resolvedConflict:
            try check(["checkout", "-q", "-b", "side"])
            try write("README.md", "side\n")
            try check(["commit", "-q", "-a", "-m", "side"])
            try check(["checkout", "-q", "main"])
            try write("README.md", "main\n")
            try check(["commit", "-q", "-a", "-m", "main"])
            _ = try run(["merge", "-q", "side"])
            try write("README.md", "merged\n")
            try check(["add", "README.md"])
        case .version3:
            try check(["update-index", "--skip-worktree", "README.md"])
        }
    }

    /// A card path `cards/xx/<id>.json`.
    static func cardPath(id: String) -> String {
        CardFiles.path(id: id)
    }

    /// A random lower-case UUID-shaped card id.
    func randomID() -> String {
        CardFiles.randomID(using: &generator)
    }

    /// Writes a working-tree file (folders made), with a modification time of `seconds` when given.
    func write(_ path: String, _ text: String, seconds: Int? = nil) throws {
        let full = directory + "/" + path
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
        if let seconds { try setModificationTime(full, seconds: seconds) }
    }

    /// Writes a card file and returns its index update (blob written by git, stat data of the file).
    func edit(_ path: String, _ text: String) throws -> IndexUpdate {
        try write(path, text)
        let hex = try check(["hash-object", "-w", path]).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let blob = ObjectID(hex: hex), let stat = FileStat(path: directory + "/" + path) else {
            throw FixtureError(message: "cannot hash or stat \(path)")
        }
        return IndexUpdate(path: path, file: (blob, stat))
    }

    /// Removes a card file and returns its index update.
    func remove(_ path: String) -> IndexUpdate {
        unlink(directory + "/" + path)
        return IndexUpdate(path: path, file: nil)
    }

    /// Gives `path` the modification time `seconds`.
    func setModificationTime(_ path: String, seconds: Int) throws {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else {
            throw FixtureError(message: "cannot set the time of \(path)")
        }
    }

    /// The index's bytes.
    func indexBytes(at path: String? = nil) throws -> [UInt8] {
        try Array(Data(contentsOf: URL(fileURLWithPath: path ?? indexPath)))
    }

    /// Runs git in the working tree (isolated from the user's configuration); its status and output.
    func run(_ arguments: [String], in folder: String? = nil, index: String? = nil, input: String? = nil) throws -> (
        status: Int32, output: String
    ) {
        let outcome = try GitRunner.run(
            arguments, in: folder ?? directory, input: input, environment: index.map { ["GIT_INDEX_FILE": $0] } ?? [:])
        return (outcome.status, outcome.output)
    }

    /// Runs git and returns its output; throws when it fails.
    @discardableResult
    func check(_ arguments: [String], in folder: String? = nil, index: String? = nil, input: String? = nil) throws
        -> String
    {
        let result = try run(arguments, in: folder, index: index, input: input)
        guard result.status == 0 else {
            throw FixtureError(message: "git \(arguments.joined(separator: " ")) exited \(result.status)")
        }
        return result.output
    }
}

/// A fixture step that failed.
struct FixtureError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension PatchablePaths {
    /// CardStore's card files (`cards/xx/<36-character id>.json`), the layout these tests patch.
    static let cardFiles = PatchablePaths(folder: "cards", fanOutLength: 2, fileNameLength: 41, suffix: ".json")
}
