// swift-tools-version:6.0
import PackageDescription

/// The build mode. By default the package links the system's shared libgit2 through pkg-config and
/// uses no unsafe flags, so another package can depend on it by version (`from: "1.0.0"`) on any
/// distribution with libgit2 1.5 or later. `CARDS_STATIC=1 swift build …` (what `./dev` demo, bench,
/// install and deb use) builds the fast-start `cards` instead: libgit2, its libraries, the Swift
/// runtime and libstdc++ linked in statically, with the code only that needs (the `--wrap` network
/// set-up, the lazily loaded libssh2 and GSSAPI) compiled in under `CARDS_STATIC_LINK`. It reads
/// Debian's static archives, so it is for Debian 12 (libgit2 1.5.1) and its kin. As swift-system gates
/// its own flags, the switch is an environment variable: the manifest has no other input, and a
/// dependent package never sets it. Give each mode its own `--scratch-path` (`./dev` uses
/// `.build/static`): switching modes in one build folder rebuilds everything.
let staticBuild = Context.environment["CARDS_STATIC"] == "1"

/// libgit2 and the libraries it needs, linked from their Debian static archives (libgit2-dev and the
/// -dev packages it depends on): loading libgit2.so and its 16 shared libraries and binding their
/// symbols took ~2.5 ms of every `cards` start (a one-card op is ~10 ms). GSSAPI (the Kerberos
/// `Negotiate` HTTP authentication; Debian ships no static archive for it) is loaded on first use by
/// CLazyGSSAPI, and libssh2 (with the bulk of OpenSSL's libcrypto it brings) by CLazySSH2: linked in,
/// its data's ~16,600 relocations were applied at every start. Of libcrypto only the SHA-1 that
/// GitCore calls is linked in. Order matters: each archive before the archives it uses.
let staticLibgit2 = LinkerSetting.unsafeFlags(
    [
        "--push-state", "-Bstatic", "-lgit2", "-lmbedtls", "-lmbedx509", "-lmbedcrypto", "-lhttp_parser",
        "-lpcre2-8", "-lz", "-lcrypto", "--pop-state",
        // libgit2's TLS and SSH set-up go through our wrappers (GitCore/Libgit2/Libgit2+NetworkSetUp.swift):
        // deferred until a connection needs them.
        "--wrap=git_mbedtls_stream_global_init", "--wrap=git_transport_ssh_global_init",
    ].flatMap { ["-Xlinker", $0] })

/// The C++ standard library linked in too: the Swift runtime needs it, and loading libstdc++.so and
/// binding its symbols took ~0.9 ms of every `cards` start (`cards --version`: 2.2 -> 1.3 ms of CPU).
/// The driver asks for `-lstdc++`; the
/// folder below, searched first, answers with a linker script naming the static archive, which
/// libstdc++-12-dev (a dependency of the Swift toolchain on Debian) installs beside libstdc++.so.
let staticLibstdcxx = LinkerSetting.unsafeFlags([
    "-L", String(#filePath.dropLast("Package.swift".count)) + "scripts/link",
])

/// What only the static build compiles (see `staticBuild`).
let staticDefine: [SwiftSetting] = staticBuild ? [.define("CARDS_STATIC_LINK")] : []

/// The C targets of the static build: libssh2 and GSSAPI loaded on first use, in place of the shared
/// libgit2's own links to them.
let lazyTargets: [Target.Dependency] = staticBuild ? ["CLazyGSSAPI", "CLazySSH2"] : []

/// GitCore's libraries besides libgit2: zlib (it inflates pack entries itself) and OpenSSL's libcrypto
/// (its SHA-1, SHA1.swift). Dynamic: the shared libraries (libgit2-dev depends on their -dev packages).
let gitCoreLinking: [LinkerSetting] =
    staticBuild ? [staticLibgit2] : [.linkedLibrary("z"), .linkedLibrary("crypto")]

/// The fast-start `cards` executable's linking (static build only; see the `cards` target).
let cardsLinking: [LinkerSetting] =
    staticBuild
    ? [
        .unsafeFlags([
            "-static-stdlib", "-Xclang-linker", "-static-libgcc", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker",
            "pack-relative-relocs",
        ]), staticLibstdcxx,
    ] : []

let package = Package(
    name: "CardDeck",
    products: [
        .executable(name: "cards", targets: ["cards"]),
        .executable(name: "cards-bench", targets: ["cards-bench"]),
        .library(name: "CardStore", targets: ["CardStore"]),
        .library(name: "CardModel", targets: ["CardModel"]),
        .library(name: "DeckMerge", targets: ["DeckMerge"]),
        .library(name: "SwipeEngine", targets: ["SwipeEngine"]),
        // The git layer: its types (`ObjectID`, `GitError`, `Commit`, `Repository`) appear in CardStore's API.
        .library(name: "GitCore", targets: ["GitCore"]),
    ],
    targets: [
        // The system's libgit2 through pkg-config; in the static build headers only (GitCore links the
        // archives), so pkg-config's dynamic `-lgit2` is not used.
        .systemLibrary(
            name: "CGit2", pkgConfig: staticBuild ? nil : "libgit2",
            providers: [.apt(["libgit2-dev"]), .yum(["libgit2-devel"]), .brew(["libgit2"])]),
        .target(name: "CFastCRC"),
        // The Linux calls the Glibc module does not show (for SystemCalls), and the fork-and-exec of git
        // (GitCore's Remote/).
        .target(name: "CLinux"),
        // The Linux calls the other modules share: `SystemError`, `FileDescriptor` (reads and writes made
        // whole), file sync, lock files, background threads, the monotonic clock.
        .target(name: "SystemCalls", dependencies: ["CLinux"]),
        // libmicrohttpd for `cards serve`, loaded on first use (its headers from libmicrohttpd-dev).
        .target(name: "CMicroHTTPD"),
        // libqrencode for QR codes (`cards serve`'s phone link, `cards qr`), loaded on first use (its
        // headers from libqrencode-dev).
        .target(name: "CQREncode"),
        // QR codes: encoded by libqrencode, drawn for a terminal, as SVG and as PNG.
        .target(name: "QRCode", dependencies: ["CQREncode"]),
        .target(
            name: "GitCore", dependencies: ["CGit2", "CFastCRC", "CLinux", "SystemCalls"] + lazyTargets,
            swiftSettings: staticDefine,
            linkerSettings: gitCoreLinking),
        .target(name: "CardModel"),
        // A card's look, shared by `cards serve`'s page and `cards publish`'s: the colours, the ink that reads
        // on them, the platform glyphs (icons.svg and its licence, embedded) — standard library only.
        .target(
            name: "CardLook", resources: [.embedInCode("icons.svg"), .embedInCode("icons-LICENSE.txt")]),
        .target(name: "DeckMerge", dependencies: ["CardModel"]),
        // vCard 3.0/4.0 in and out (RFC 6350, RFC 2426, RFC 9554): standard library and CardModel only.
        .target(name: "VCard", dependencies: ["CardModel"]),
        // `cards publish`'s page and what a QR code of a card or the deck holds.
        .target(name: "DeckPage", dependencies: ["CardModel", "CardLook", "VCard", "QRCode"]),
        .target(name: "SwipeEngine"),
        .target(name: "TerminalUI", dependencies: ["SwipeEngine", "SystemCalls"]),
        .target(name: "CardStore", dependencies: ["GitCore", "CardModel", "DeckMerge", "SystemCalls"]),
        // `cards serve`: the HTTP server, its checks, the page, the routes to the store and the engine.
        // The page's files are embedded in the binary at build time (no Foundation `Bundle` needed).
        .target(
            name: "DeckServer",
            dependencies: [
                "CMicroHTTPD", "CardStore", "CardModel", "CardLook", "DeckMerge", "GitCore", "SwipeEngine", "QRCode",
                "SystemCalls",
            ],
            resources: [
                .embedInCode("Page/index.html"), .embedInCode("Page/app.css"), .embedInCode("Page/app.js"),
                .embedInCode("Page/state.js"), .embedInCode("Page/editor.js"), .embedInCode("Page/conflicts.js"),
                .embedInCode("Page/features.css"),
                .embedInCode("Page/engine.js"),
            ]),
        .target(
            name: "CardsCLI",
            dependencies: [
                "CardStore", "CardModel", "DeckMerge", "GitCore", "SwipeEngine", "TerminalUI", "DeckServer", "VCard",
                "DeckPage", "QRCode", "SystemCalls",
            ]
        ),
        // In the static build (`cardsLinking`): the Swift runtime linked in (no libswiftCore, _Concurrency, _StringProcessing, dispatch … to load
        // at every start): `cards` runs once per command, and start-up is a large part of a one-card op.
        // libgcc's unwinder linked in too (`-static-libgcc`): loading libgcc_s.so cost ~0.2 ms a start.
        // Linked by lld (in the toolchain) with packed relative relocations (DT_RELR, glibc 2.36+): the
        // 28,000 relocations of the position-independent executable, mostly the Swift runtime's
        // metadata, take 5.7 KB instead of 673 KB that the loader read and applied at every start (gold
        // cannot pack them). `cards --version`: ~0.3 ms less CPU.
        .executableTarget(name: "cards", dependencies: ["CardsCLI"], linkerSettings: cardsLinking),
        .executableTarget(name: "cards-bench", dependencies: ["CardStore", "CardModel", "DeckMerge", "GitCore"]),
        // Seeded fuzzing of the parsers and the merge driver (`./dev reliability`, and a short run in the tests).
        .executableTarget(
            name: "cards-fuzz",
            dependencies: [
                "CardModel", "CardStore", "CardsCLI", "DeckMerge", "SwipeEngine", "TerminalUI", "SeededRandom",
            ]),
        // SplitMix64: the seeded generator of the property tests and of cards-fuzz (standard library only).
        .target(name: "SeededRandom"),
        .target(name: "TestSupport", dependencies: ["SeededRandom"], path: "Tests/TestSupport"),
        .testTarget(name: "CardModelTests", dependencies: ["CardModel", "TestSupport"]),
        .testTarget(name: "DeckMergeTests", dependencies: ["DeckMerge", "CardModel", "TestSupport"]),
        .testTarget(name: "VCardTests", dependencies: ["VCard", "CardModel", "TestSupport"]),
        .testTarget(name: "SwipeEngineTests", dependencies: ["SwipeEngine", "TestSupport"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "SwipeEngine", "TestSupport"]),
        // GitCore's own tests (packs, the index, trees, SHA-1, replies, local transfer, the lazy loaders): no
        // CardStore in them (a deck's repository made by git or by GitCore's own calls).
        .testTarget(
            name: "GitCoreTests",
            dependencies: ["GitCore", "CGit2", "CFastCRC", "SystemCalls", "TestSupport"] + lazyTargets,
            swiftSettings: staticDefine),
        .testTarget(
            name: "CardStoreTests",
            dependencies: [
                "CardStore", "GitCore", "CGit2", "CardModel", "DeckMerge", "SwipeEngine", "SeededRandom", "TestSupport",
            ]),
        // SystemCalls' own tests: the descriptor's whole reads and writes, the errors' words.
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls", "TestSupport"]),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode", "TestSupport"]),
        // The command line in-process: usage, help and exit statuses (no process, no deck).
        .testTarget(name: "CardsCLITests", dependencies: ["CardsCLI", "DeckMerge", "SeededRandom"]),
        .testTarget(
            name: "DeckServerTests",
            dependencies: [
                "DeckServer", "CardStore", "CardModel", "CardLook", "SwipeEngine", "SeededRandom", "SystemCalls",
                "TestSupport",
            ]),
        // The built `cards` against real repositories and servers; CardStore and GitCore in-process too, for
        // what a Swift app embedding the library does (LibraryCredentialsTests).
        .testTarget(name: "IntegrationTests", dependencies: ["CardModel", "CardStore", "GitCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

if staticBuild {
    package.targets += [.target(name: "CLazyGSSAPI"), .target(name: "CLazySSH2")]
}
