import Foundation

/// A scratch folder for in-process tests of GitCore and CardStore, with an author identity, a HOME of
/// its own for the programs a test starts, and no fsync (speed); removed when released.
///
/// A suite or test marked `.scratchFolder` (`ScratchFolderTrait`) is given one for each test case, read
/// through `ScratchFolder.current`; `ScratchFolder()` makes another when a test needs more than one.
public final class ScratchFolder: @unchecked Sendable {
    /// The folder.
    public let root: String

    /// The HOME of the programs this test starts: an empty folder beside `root` (never the user's
    /// ~/.gitconfig), removed with it. Beside, not inside: a test may list everything in `root`.
    public let home: String

    /// The variables a program this test starts is given on top of the process's (`GitRunner` passes
    /// them; never `setenv`): HOME and XDG_CONFIG_HOME (`home`), no system git configuration, the
    /// author, no fsync.
    public let environment: [String: String]

    /// The folder of the test running now, bound by `ScratchFolderTrait` for the test's whole run.
    @TaskLocal static var bound: ScratchFolder?

    /// The scratch folder of the test running now: the one its `.scratchFolder` trait made.
    public static var current: ScratchFolder {
        get throws {
            guard let bound else { throw ScratchFolderMissing() }
            return bound
        }
    }

    /// Makes a new, empty scratch folder and its `home`.
    public init() throws {
        ScratchFolder.prepareProcessEnvironment()
        root = TemporaryFolder.path + "/cards-store-\(UUID().uuidString.prefix(8))"
        home = root + ".home"
        environment = ScratchFolder.settings.merging(["HOME": home, "XDG_CONFIG_HOME": home]) { _, new in new }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    deinit {
        remove()
    }

    /// Removes the folder, everything in it and `home` (again when released: nothing is left either way).
    func remove() {
        try? FileManager.default.removeItem(atPath: root)
        try? FileManager.default.removeItem(atPath: home)
    }

    /// `name` inside the folder.
    public func path(_ name: String) -> String { root + "/" + name }

    /// Runs the git CLI in `directory`, with this folder's `environment`, and returns its standard output.
    @discardableResult
    public func git(_ arguments: [String], in directory: String) throws -> String {
        try GitRunner.run(arguments, in: directory, environment: environment).output
    }

    /// What every test runs with besides its HOME: no system git configuration, the author of its
    /// commits, no fsync.
    static let settings = [
        "GIT_CONFIG_NOSYSTEM": "1", "CARDS_AUTHOR_NAME": "Store Test", "CARDS_AUTHOR_EMAIL": "store@example.invalid",
        "CARDS_FSYNC": "0",
    ]

    /// Makes the process's own environment the tests' (once; every call after the first returns at once).
    ///
    /// The code under test runs in this process and reads the environment itself: libgit2 finds the
    /// global git configuration through HOME (once, when it starts), GitCore reads HOME for
    /// `safe.directory` and git's attribute files, CardStore the author and `CARDS_FSYNC`, and the git
    /// processes GitCore starts inherit all of it. Those read `getenv`, which a test cannot scope, so
    /// this part is process-wide: the same values for every test (a fake HOME of this run's own, removed
    /// at exit), set before the first scratch folder exists, hence before any test touches libgit2.
    /// What a test starts itself gets its folder's `environment` instead.
    public static func prepareProcessEnvironment() {
        _ = environmentReady
    }

    private static let environmentReady: Bool = {
        let home = ScratchFolder.processHome
        setenv("HOME", home, 1)
        setenv("XDG_CONFIG_HOME", home, 1)
        for (name, value) in settings where name.hasPrefix("CARDS_") { setenv(name, value, 1) }
        return true
    }()

    /// The fake HOME of this test process, made once and removed at exit.
    static let processHome: String = {
        var template = Array((TemporaryFolder.path + "/cards-store-tests-home-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return mkdtemp(start) != nil
        }
        let home =
            made
            ? String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : TemporaryFolder.path + "/cards-store-tests-home-\(getpid())"
        if !made { try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true) }
        atexit { try? FileManager.default.removeItem(atPath: ScratchFolder.processHome) }
        return home
    }()
}

/// `ScratchFolder.current` asked for by a test without the `.scratchFolder` trait.
public struct ScratchFolderMissing: Error, CustomStringConvertible {
    /// What to do.
    public var description: String {
        "this test has no scratch folder: mark it, or its suite, with the .scratchFolder trait"
    }
}
