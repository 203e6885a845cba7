import CardModel
import CardStore
import Foundation
import GitCore
import TestSupport
import Testing

/// A scratch folder for in-process store tests, with an author identity and no fsync (speed).
final class StoreScratch: @unchecked Sendable {
    let root: String

    static let environmentReady: Bool = {
        // One fake HOME for every in-process test: never read the user's ~/.gitconfig.
        let home = TemporaryFolder.path + "/cards-store-tests-home"
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        setenv("HOME", home, 1)
        setenv("XDG_CONFIG_HOME", home, 1)
        setenv("CARDS_AUTHOR_NAME", "Store Test", 1)
        setenv("CARDS_AUTHOR_EMAIL", "store@example.invalid", 1)
        setenv("CARDS_FSYNC", "0", 1)
        return true
    }()

    init() throws {
        _ = StoreScratch.environmentReady
        root = TemporaryFolder.path + "/cards-store-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    func path(_ name: String) -> String { root + "/" + name }

    /// Runs the git CLI in `directory` and returns its standard output.
    @discardableResult
    func git(_ arguments: [String], in directory: String) throws -> String {
        try GitRunner.run(arguments, in: directory).output
    }
}

/// Makes `count` valid cards with predictable titles.
func makeCards(_ count: Int, prefix: String = "Card", seed: UInt64 = 1) -> [Card] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { index in
        Card(
            id: CardID.random(using: &generator), title: "\(prefix) \(index)",
            indexURL: "https://example.org/\(prefix)/\(index)",
            platformName: "Web", platformIcon: "globe", color: "blue", rank: "a\(index % 10)")
    }
}
