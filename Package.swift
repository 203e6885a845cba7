// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CardDeck",
    products: [
        .executable(name: "cards", targets: ["cards"]),
        .executable(name: "cards-bench", targets: ["cards-bench"]),
        .library(name: "CardStore", targets: ["CardStore"]),
        .library(name: "CardModel", targets: ["CardModel"]),
        .library(name: "DeckMerge", targets: ["DeckMerge"]),
        .library(name: "SwipeEngine", targets: ["SwipeEngine"]),
    ],
    targets: [
        .systemLibrary(
            name: "CGit2",
            pkgConfig: "libgit2",
            providers: [.apt(["libgit2-dev"])]
        ),
        .target(name: "GitCore", dependencies: ["CGit2"]),
        .target(name: "CardModel"),
        .target(name: "DeckMerge", dependencies: ["CardModel"]),
        .target(name: "SwipeEngine"),
        .target(name: "TerminalUI", dependencies: ["SwipeEngine"]),
        .target(name: "CardStore", dependencies: ["GitCore", "CardModel", "DeckMerge"]),
        .target(
            name: "CardsCLI",
            dependencies: ["CardStore", "CardModel", "DeckMerge", "SwipeEngine", "TerminalUI"]
        ),
        // The Swift runtime linked in (no libswiftCore, _Concurrency, _StringProcessing, dispatch … to load
        // at every start): `cards` runs once per command, and start-up is a large part of a one-card op.
        .executableTarget(
            name: "cards", dependencies: ["CardsCLI"],
            linkerSettings: [.unsafeFlags(["-static-stdlib"])]),
        .executableTarget(name: "cards-bench", dependencies: ["CardStore", "CardModel", "DeckMerge", "GitCore"]),
        // Seeded fuzzing of the parsers and the merge driver (`./dev reliability`, and a short run in the tests).
        .executableTarget(
            name: "cards-fuzz",
            dependencies: [
                "CardModel", "CardStore", "CardsCLI", "DeckMerge", "SwipeEngine", "TerminalUI", "TestSupport",
            ]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "CardModelTests", dependencies: ["CardModel", "TestSupport"]),
        .testTarget(name: "DeckMergeTests", dependencies: ["DeckMerge", "CardModel", "TestSupport"]),
        .testTarget(name: "SwipeEngineTests", dependencies: ["SwipeEngine", "TestSupport"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "SwipeEngine"]),
        .testTarget(
            name: "CardStoreTests", dependencies: ["CardStore", "GitCore", "CardModel", "DeckMerge", "TestSupport"]),
        .testTarget(name: "IntegrationTests", dependencies: ["CardModel", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
