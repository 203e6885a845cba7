import Foundation

/// A scratch folder for in-process tests of GitCore and CardStore, with an author identity, a HOME of
/// its own and no fsync (speed); removed when released.
public final class ScratchFolder: @unchecked Sendable {
    /// The folder.
    public let root: String

    /// Set once for the process: a fake HOME (never the user's ~/.gitconfig), an author, no fsync.
    static let environmentReady: Bool = {
        // One fake HOME for every in-process test: never read the user's ~/.gitconfig. A folder of this
        // run's own, removed when the test process exits (a fixed name was left behind in the temp folder).
        let home = ScratchFolder.processHome
        setenv("HOME", home, 1)
        setenv("XDG_CONFIG_HOME", home, 1)
        setenv("CARDS_AUTHOR_NAME", "Store Test", 1)
        setenv("CARDS_AUTHOR_EMAIL", "store@example.invalid", 1)
        setenv("CARDS_FSYNC", "0", 1)
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

    /// Makes a new, empty scratch folder.
    public init() throws {
        _ = ScratchFolder.environmentReady
        root = TemporaryFolder.path + "/cards-store-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// `name` inside the folder.
    public func path(_ name: String) -> String { root + "/" + name }

    /// Runs the git CLI in `directory` and returns its standard output.
    @discardableResult
    public func git(_ arguments: [String], in directory: String) throws -> String {
        try GitRunner.run(arguments, in: directory).output
    }
}
