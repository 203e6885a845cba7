import Foundation
import Testing

/// The package as others take it (issue 24): the two builds, the pure modules, the version, the man
/// page, the shells' completions, `./dev install` and `./dev deb`. `./dev test` builds what these run
/// (`CARDS_DYNAMIC_BIN`, the shared-libgit2 `cards`; `CARDS_RELEASE_BIN`, the static release one);
/// the consumer-by-version build runs before them (scripts/consumer.sh).
@Suite("Packaging")
struct PackagingTests {
    /// Runs `program` with `arguments` in the scratch's environment.
    static func run(_ scratch: Scratch, _ program: String, _ arguments: [String], environment: [String: String] = [:])
        throws -> RunResult
    {
        try scratch.run(program, arguments, extraEnvironment: environment)
    }

    /// The path of `name` on PATH, or nil.
    static func program(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// `program`, or the test cancelled naming the package that gives it.
    static func require(_ name: String, package: String) throws -> String {
        guard let found = program(name) else {
            try Test.cancel("\(name) is not installed (Debian package \(package); `./dev test` installs it)")
        }
        return found
    }

    /// The binary an environment variable of `./dev test` names, or the test cancelled.
    static func built(_ variable: String, what: String) throws -> String {
        guard let path = ProcessInfo.processInfo.environment[variable], !path.isEmpty,
            FileManager.default.isExecutableFile(atPath: path)
        else { try Test.cancel("\(variable) is not set: `./dev test` builds \(what) and sets it") }
        return path
    }

    /// The shared libraries `binary` names (its DT_NEEDED entries).
    static func neededLibraries(_ binary: String, in scratch: Scratch) throws -> [String] {
        let readelf = try require("readelf", package: "binutils")
        let result = try run(scratch, readelf, ["-d", binary])
        #expect(result.status == 0, "readelf failed: \(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { line in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]")
            else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    // MARK: The two builds

    @Test("the default build links the shared libgit2, the static one none, and both run a deck")
    func bothBuilds() throws {
        let dynamic = try Self.built("CARDS_DYNAMIC_BIN", what: "the shared-libgit2 cards")
        let staticBinary = try Self.built("CARDS_RELEASE_BIN", what: "the static release cards")
        let scratch = try Scratch()
        let shared = try Self.neededLibraries(dynamic, in: scratch)
        #expect(shared.contains { $0.hasPrefix("libgit2.so") }, "the default build does not link libgit2.so: \(shared)")
        let linkedIn = try Self.neededLibraries(staticBinary, in: scratch)
        #expect(
            linkedIn.allSatisfy { $0.hasPrefix("libc.so") || $0.hasPrefix("libm.so") || $0.hasPrefix("ld-linux") },
            "the static build needs more than the C library: \(linkedIn)")
        for (name, binary) in [("shared", dynamic), ("static", staticBinary)] {
            let deck = scratch.path("deck-\(name)")
            #expect(try Self.run(scratch, binary, ["init", deck, "--from", Binaries.sampleRepo]).status == 0)
            let added = try Self.run(
                scratch, binary, ["--deck", deck, "add", "--title", "Ada", "--url", "https://example.org/ada"])
            #expect(added.status == 0, "\(name): \(added.stderr)")
            let listed = try Self.run(scratch, binary, ["--deck", deck, "list"])
            #expect(listed.status == 0 && listed.stdout.contains("Ada"), "\(name): \(listed.stderr)")
        }
    }

    // MARK: Pure modules

    /// Which module may import what: the layers of docs/ARCHITECTURE.md, sealed. The pure modules use the
    /// standard library alone (and each other); GitCore is the only one that reaches libgit2; CardsCLI and
    /// DeckServer ask CardStore for the deck (GitCore's public types, such as `ObjectID` and
    /// `RemoteSettings`, appear in CardStore's API, so they may name them); no module of the product
    /// imports Foundation. Each import must also be a dependency declared in Package.swift.
    static let allowedImports: [String: Set<String>] = [
        "SwipeEngine": [], "CardModel": [], "CardLook": [], "SeededRandom": [], "DeckMerge": ["CardModel"],
        "VCard": ["CardModel"], "QRCode": ["CQREncode"], "DeckPage": ["CardModel", "CardLook", "VCard", "QRCode"],
        "SystemCalls": ["CLinux", "Glibc"],
        "TerminalUI": ["SwipeEngine", "SystemCalls", "Glibc"],
        "GitCore": [
            "CGit2", "CFastCRC", "CLinux", "CLazySSH2", "CLazyGSSAPI", "SystemCalls", "Glibc", "Dispatch",
            "Synchronization",
        ],
        "CardStore": ["GitCore", "CardModel", "DeckMerge", "SystemCalls", "Glibc", "Dispatch", "Synchronization"],
        "DeckServer": [
            "CMicroHTTPD", "CardStore", "CardModel", "CardLook", "DeckMerge", "GitCore", "SwipeEngine", "QRCode",
            "SystemCalls", "Glibc", "Synchronization",
        ],
        "CardsCLI": [
            "CardStore", "CardModel", "DeckMerge", "GitCore", "SwipeEngine", "TerminalUI", "DeckServer", "VCard",
            "DeckPage", "QRCode", "SystemCalls", "Glibc", "Dispatch", "Synchronization",
        ],
        "cards": ["CardsCLI"],
    ]

    @Test("each module imports only what its layer may: the pure ones the standard library alone")
    func layersAreSealed() throws {
        for (module, modules) in Self.allowedImports.sorted(by: { $0.key < $1.key }) {
            let folder = Binaries.packageRoot + "/Sources/" + module
            let files = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? [])
                .filter { $0.hasSuffix(".swift") }
            #expect(!files.isEmpty, "no sources in \(folder)")
            for file in files {
                let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
                for line in text.split(separator: "\n") {
                    // `import X`, `@preconcurrency import X`, `import struct X.Y`, `package import X`…
                    let words = line.split(separator: " ").drop {
                        $0.hasPrefix("@") || ["public", "package", "internal"].contains(String($0))
                    }
                    guard words.first == "import", words.count >= 2 else { continue }
                    let name =
                        words.count >= 3
                            && ["struct", "class", "enum", "func", "var", "protocol"].contains(
                                String(words[words.startIndex + 1]))
                        ? words[words.startIndex + 2] : words[words.startIndex + 1]
                    let imported = String(name.split(separator: ".").first ?? name)
                    #expect(
                        modules.contains(imported),
                        "\(module)/\(file) imports \(imported), which its layer may not (PackagingTests.allowedImports)"
                    )
                }
            }
        }
    }

    // MARK: Version

    @Test("cards --version prints a semantic version, the newest in CHANGELOG.md")
    func versionFromOnePlace() throws {
        let scratch = try Scratch()
        let version = try scratch.cards(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, "'\(version)'")
        let changelog = try String(contentsOfFile: Binaries.packageRoot + "/CHANGELOG.md", encoding: .utf8)
        // "## Unreleased" gathers what the next version will list, before it has a number.
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") && $0 != "## Unreleased" }
            .map { $0.dropFirst(3) }
        #expect(
            newest.map(String.init) == version, "CHANGELOG.md's newest entry is \(newest ?? "missing"), not \(version)")
    }

    // MARK: Man page

    @Test("cards(1) has no groff warnings and names every command --help names")
    func manPage() throws {
        let groff = try Self.require("groff", package: "groff-base")
        let scratch = try Scratch()
        let page = try scratch.cards(["__manpage"])
        #expect(page.status == 0)
        let file = scratch.path("cards.1")
        try page.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let checked = try Self.run(scratch, groff, ["-ww", "-z", "-man", file])
        #expect(checked.status == 0 && checked.stderr.isEmpty, "groff -ww: \(checked.stderr)")
        let help = try scratch.cards(["--help"]).stdout
        // The list ends at its first blank line (a "See 'cards help …'" line follows).
        let list = help.components(separatedBy: "SUBCOMMANDS:\n").last?.components(separatedBy: "\n\n").first
        let commands =
            list?.split(separator: "\n")
            .compactMap { $0.hasPrefix("  ") && !$0.hasPrefix("   ") ? $0.split(separator: " ").first : nil } ?? []
        #expect(commands.count > 10, "could not read the commands of cards --help")
        for command in commands {
            // As roff spells it: a hyphen is `\-`.
            let spelled = command.replacingOccurrences(of: "-", with: "\\-")
            #expect(page.stdout.contains(".SS \"cards \(spelled)\""), "the man page lacks cards \(command)")
        }
        // `remote`'s subcommands too.
        #expect(page.stdout.contains(".SS \"cards remote add\""))
    }

    // MARK: Completion in real shells

    /// A deck with three cards of known ids for the completion tests.
    static let cardIDs = [
        ("ab000000-0000-4000-8000-000000000001", "Ada on GitHub"),
        ("ab000000-0000-4000-8000-000000000002", "Ada on Mastodon"),
        ("cd000000-0000-4000-8000-000000000003", "Bob at home"),
    ]

    @Test(
        "the completion script completes a command, an option, a card id and a remote",
        arguments: ["bash", "zsh", "fish"])
    func completion(shell: String) throws {
        let tmuxPath = try Self.require("tmux", package: "tmux")
        let shellPath = try Self.require(shell, package: shell)
        let scratch = try Scratch()
        let deck = scratch.path("deck")
        #expect(try scratch.cards(["init", deck]).status == 0)
        for (id, title) in Self.cardIDs {
            let added = try scratch.cards([
                "--deck", deck, "add", "--id", id, "--title", title, "--url", "https://e.org",
            ])
            #expect(added.status == 0, "\(added.stderr)")
        }
        #expect(try scratch.cards(["--deck", deck, "remote", "add", "origin", scratch.path("remote.git")]).status == 0)
        // `cards` on PATH, as installed; the script as `cards completions` prints it.
        let bin = scratch.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/cards", withDestinationPath: Binaries.cards)
        let script = try scratch.cards(["completions", shell])
        #expect(script.status == 0)
        let scriptFile = scratch.path(shell == "zsh" ? "_cards" : "cards.\(shell)")
        try script.stdout.write(toFile: scriptFile, atomically: true, encoding: .utf8)

        // The server tmux forks keeps whatever it inherited open, so its output goes to a file, not a pipe
        // read to its end (which never comes).
        let socket = scratch.path("tmux.sock")
        let tmux = { (arguments: [String]) -> (status: Int32, output: String) in
            spawnAndWait(
                tmuxPath, ["-S", socket, "-f", "/dev/null"] + arguments, environment: scratch.environment,
                outputFile: scratch.path("tmux.out"))
        }
        let start: [String] =
            switch shell {
            case "bash": [shellPath, "--norc", "--noprofile"]
            case "zsh": [shellPath, "-f"]
            default: [shellPath, "--no-config"]
            }
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        // The shell's temporary and runtime files in the scratch folder: fish makes `fish.<user>` (its
        // universal variables' notifier) in the temp folder, and none of it is removed when the shell ends.
        let temporary = scratch.path("tmp")
        try FileManager.default.createDirectory(
            atPath: temporary, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let started = tmux(
            [
                "new-session", "-d", "-x", "200", "-y", "50", "-s", "t", "env", "PATH=\(path)", "HOME=\(scratch.home)",
                "TERM=xterm", "TMPDIR=\(temporary)", "XDG_RUNTIME_DIR=\(temporary)",
            ]
                + start)
        #expect(started.status == 0, "tmux new-session failed")
        defer { _ = tmux(["kill-server"]) }
        func screen() -> String { tmux(["capture-pane", "-p", "-t", "t"]).output }
        /// Waits up to 10 s for `text` on the screen.
        func waitFor(_ check: (String) -> Bool) throws -> Bool {
            let end = Date().addingTimeInterval(10)
            while Date() < end {
                if check(screen()) { return true }
                usleep(50_000)
            }
            return false
        }
        func type(_ text: String, tabs: Int = 1) throws {
            _ = tmux(["send-keys", "-t", "t", "C-u"])
            _ = tmux(["send-keys", "-t", "t", "-l", text])
            for _ in 0..<tabs {
                _ = tmux(["send-keys", "-t", "t", "Tab"])
                usleep(300_000)
            }
        }
        let load =
            switch shell {
            case "bash": "source \(scriptFile); echo LOADED"
            case "zsh": "autoload -Uz compinit && compinit -u -D && source \(scriptFile) && echo LOADED"
            default: "source \(scriptFile); and echo LOADED"
            }
        _ = tmux(["send-keys", "-t", "t", "-l", load])
        _ = tmux(["send-keys", "-t", "t", "Enter"])
        #expect(
            try waitFor { $0.split(separator: "\n").contains { $0 == "LOADED" } },
            "\(shell) did not load the script: \(screen())")
        _ = tmux(["send-keys", "-t", "t", "C-l"])

        try type("cards ed")
        #expect(try waitFor { $0.contains("cards edit") }, "\(shell), a command: \(screen())")
        try type("cards edit --tit")
        #expect(try waitFor { $0.contains("cards edit --title") }, "\(shell), an option: \(screen())")
        try type("cards --deck \(deck) show cd")
        #expect(
            try waitFor { $0.contains("show cd000000-0000-4000-8000-000000000003") },
            "\(shell), a card id: \(screen())")
        try type("cards --deck \(deck) sync or")
        #expect(try waitFor { $0.contains("sync origin") }, "\(shell), a remote: \(screen())")
        if shell != "bash" {
            // Two ids share the prefix: the list shows their titles (bash can only list the ids).
            try type("cards --deck \(deck) show ab", tabs: 2)
            #expect(
                try waitFor { $0.contains("Ada on Mastodon") && $0.contains("Ada on GitHub") },
                "\(shell), titles beside ids: \(screen())")
        }
    }

    // MARK: Install and the Debian package

    @Test("scripts/install.sh installs into DESTDIR, the installed cards runs, uninstall leaves nothing")
    func installAndUninstall() throws {
        let scratch = try Scratch()
        let binary =
            ProcessInfo.processInfo.environment["CARDS_RELEASE_BIN"].flatMap { $0.isEmpty ? nil : $0 }
            ?? Binaries.cards
        let destination = scratch.path("dest")
        let script = Binaries.packageRoot + "/scripts/install.sh"
        let installed = try Self.run(
            scratch, script, ["install", binary, "/usr/local"], environment: ["DESTDIR": destination])
        #expect(installed.status == 0, "install: \(installed.stderr)")
        let root = destination + "/usr/local"
        for file in [
            "bin/cards", "share/man/man1/cards.1", "share/bash-completion/completions/cards",
            "share/zsh/site-functions/_cards", "share/fish/vendor_completions.d/cards.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: root + "/" + file), "not installed: \(file)")
        }
        let version = try Self.run(scratch, root + "/bin/cards", ["--version"])
        let expected = try scratch.cards(["--version"]).stdout
        #expect(version.status == 0 && version.stdout == expected)
        let deck = scratch.path("deck")
        #expect(try Self.run(scratch, root + "/bin/cards", ["init", deck, "--from", Binaries.sampleRepo]).status == 0)
        #expect(try Self.run(scratch, root + "/bin/cards", ["--deck", deck, "list"]).stdout.contains("Ada"))
        if let man = Self.program("man") {
            let found = try Self.run(scratch, man, ["-M", root + "/share/man", "-w", "cards"])
            #expect(found.stdout.hasPrefix(root + "/share/man/man1/cards.1"), "man -w: \(found.stdout)\(found.stderr)")
        }
        let removed = try Self.run(scratch, script, ["uninstall", "/usr/local"], environment: ["DESTDIR": destination])
        #expect(removed.status == 0, "uninstall: \(removed.stderr)")
        let left = FileManager.default.enumerator(atPath: destination)?.allObjects as? [String] ?? []
        #expect(left.filter { !["usr", "usr/local"].contains($0) }.isEmpty, "left behind: \(left)")
    }

    @Test("the .deb installs with dpkg -i: cards --version, man -w cards; dpkg -r removes it")
    func debianPackage() throws {
        let binary = try Self.built("CARDS_RELEASE_BIN", what: "the static release cards")
        guard getuid() == 0 else { try Test.cancel("dpkg -i needs root (CI runs as root)") }
        let dpkg = try Self.require("dpkg", package: "dpkg")
        _ = try Self.require("dpkg-shlibdeps", package: "dpkg-dev")
        let man = try Self.require("man", package: "man-db")
        let scratch = try Scratch()
        if try Self.run(scratch, "/usr/bin/dpkg-query", ["-W", "-f=${Status}", "cards"]).stdout.contains("ok installed")
        {
            try Test.cancel("a package named cards is installed already: this test would replace it")
        }
        let built = try Self.run(scratch, Binaries.packageRoot + "/scripts/deb.sh", [binary, scratch.root])
        #expect(built.status == 0, "deb.sh: \(built.stderr)")
        let deb = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let info = try Self.run(scratch, "/usr/bin/dpkg-deb", ["-f", deb, "Depends"])
        #expect(info.stdout.contains("libc6"), "Depends: \(info.stdout)")
        // Another dpkg run (apt on this machine) holds the lock a while: try again for up to a minute.
        func dpkgRun(_ arguments: [String]) throws -> RunResult {
            var result = try Self.run(scratch, dpkg, arguments)
            var tries = 0
            while result.status != 0 && result.stderr.contains("lock") && tries < 30 {
                sleep(2)
                tries += 1
                result = try Self.run(scratch, dpkg, arguments)
            }
            return result
        }
        let installed = try dpkgRun(["-i", deb])
        #expect(installed.status == 0, "dpkg -i: \(installed.stderr)")
        defer { _ = try? dpkgRun(["-r", "cards"]) }
        let version = try Self.run(scratch, "/usr/bin/cards", ["--version"])
        let expected = try Self.run(scratch, binary, ["--version"]).stdout
        #expect(version.stdout == expected, "\(version.stderr)")
        let page = try Self.run(scratch, man, ["-w", "cards"])
        #expect(page.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "/usr/share/man/man1/cards.1.gz")
        let removed = try dpkgRun(["-r", "cards"])
        #expect(removed.status == 0, "dpkg -r: \(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/usr/bin/cards"))
    }
}
