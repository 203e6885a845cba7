// swift-tools-version:6.0
// A package that uses CardDeck as an app would: by version, from a git URL. `scripts/consumer.sh`
// (run by `./dev test`) tags a clone of the working tree and points CARDDECK_URL at it, then builds and
// runs the two samples, whose sources it takes from docs/LIBRARY.md's code blocks.
import PackageDescription

let url = Context.environment["CARDDECK_URL"] ?? "https://example.invalid/CardDeck.git"
let version = Version(Context.environment["CARDDECK_VERSION"] ?? "1.0.0") ?? "1.0.0"

let package = Package(
    name: "Consumer",
    dependencies: [.package(url: url, from: version)],
    targets: [
        // Every product a store app uses: builds against the system's shared libgit2.
        .executableTarget(
            name: "StoreSample",
            dependencies: [
                .product(name: "CardStore", package: "CardDeck"), .product(name: "GitCore", package: "CardDeck"),
                .product(name: "SwipeEngine", package: "CardDeck"),
            ]),
        // Only the pure products (CardModel, DeckMerge, SwipeEngine: no C library), built first and on their own.
        .executableTarget(
            name: "PureSample",
            dependencies: [
                .product(name: "CardModel", package: "CardDeck"), .product(name: "DeckMerge", package: "CardDeck"),
                .product(name: "SwipeEngine", package: "CardDeck"),
            ]),
    ]
)
