import Foundation
import Testing

/// Decks on devices whose git converts files (issue 32): `core.autocrlf=true` or `eol=crlf` attributes
/// (a Windows-style device, or its gitconfig copied), git LFS (a `filter=` driver), and a file system
/// where every file looks executable (`core.filemode=false`: exFAT, SMB, WSL's /mnt/c). Each is held
/// against plain git in the same set-up: what `git clone`/`git pull` write there, `cards` writes there,
/// and `git status` stays clean on every device after every step.
@Suite("Line endings, filter drivers and file modes as git has them")
struct LineEndingFilterTests {
    /// How a device comes to check card files out with CRLF endings.
    enum CRLFSetUp: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// `core.autocrlf=true` in the device's global git config.
        case autocrlf
        /// `* text=auto eol=crlf` in the device's `.git/info/attributes` (the committed `.gitattributes`
        /// stays the deck's).
        case attributes

        var testDescription: String {
            self == .autocrlf ? "core.autocrlf=true" : "* text=auto eol=crlf in info/attributes"
        }
    }

    @Test(
        "a CRLF device adds, edits, hand-edits, deletes and syncs with an LF device: its files are git's checkout's, git status clean, blobs LF",
        arguments: CRLFSetUp.allCases)
    func crlfDevice(setUp: CRLFSetUp) throws {
        let scratch = try Scratch()
        let remote = scratch.path("remote.git")
        #expect(try scratch.cards(["init", "--bare", remote, "--from", Binaries.sampleRepo]).status == 0)
        let windows = try scratch.device("windows", config: setUp == .autocrlf ? "[core]\n\tautocrlf = true\n" : "")
        let lf = scratch.path("lf")
        let crlf = scratch.path("crlf")
        let reference = scratch.path("git-crlf")
        #expect(try scratch.cards(["clone", remote, lf]).status == 0)
        if setUp == .attributes {
            // The attributes must be there before the checkout: a clone with no checkout, then git's own or ours.
            for folder in [crlf, reference] {
                try scratch.checked(scratch.run("/usr/bin/git", ["init", "-q", folder], extraEnvironment: windows))
                try FileManager.default.createDirectory(
                    atPath: folder + "/.git/info", withIntermediateDirectories: true)
                try "* text=auto eol=crlf\n".write(
                    toFile: folder + "/.git/info/attributes", atomically: true, encoding: .utf8)
            }
            try scratch.checked(
                scratch.run("/usr/bin/git", ["remote", "add", "origin", remote], in: crlf, extraEnvironment: windows))
            try scratch.checked(
                scratch.run("/usr/bin/git", ["pull", "-q", "origin", "main"], in: crlf, extraEnvironment: windows))
            try scratch.checked(
                scratch.run("/usr/bin/git", ["branch", "-q", "-u", "origin/main"], in: crlf, extraEnvironment: windows))
            try scratch.checked(
                scratch.run(
                    "/usr/bin/git", ["remote", "add", "origin", remote], in: reference, extraEnvironment: windows))
        } else {
            try scratch.checked(scratch.cards(["clone", remote, crlf], extraEnvironment: windows))
            try scratch.checked(scratch.run("/usr/bin/git", ["init", "-q", reference], extraEnvironment: windows))
            try scratch.checked(
                scratch.run(
                    "/usr/bin/git", ["remote", "add", "origin", remote], in: reference, extraEnvironment: windows))
        }
        /// Checks both devices and the CRLF device's files against what plain git checks out there.
        func expectAsGit(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            for deck in [lf, crlf] {
                let status = try scratch.run(
                    "/usr/bin/git", ["status", "--porcelain"], in: deck, extraEnvironment: deck == crlf ? windows : [:])
                #expect(
                    status.stdout.isEmpty, "after \(step), git status in \(deck): \(status.stdout)",
                    sourceLocation: sourceLocation)
            }
            let main = try scratch.run("/usr/bin/git", ["rev-parse", "main"], in: crlf, extraEnvironment: windows)
                .stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            try scratch.checked(
                scratch.run("/usr/bin/git", ["fetch", "-q", crlf, "main"], in: reference, extraEnvironment: windows))
            try scratch.checked(
                scratch.run(
                    "/usr/bin/git", ["checkout", "-q", "-f", "-B", "main", main], in: reference,
                    extraEnvironment: windows))
            let files = try scratch.run("/usr/bin/git", ["ls-files"], in: reference, extraEnvironment: windows).stdout
                .split(separator: "\n").map(String.init)
            #expect(files.contains("deck.json"), sourceLocation: sourceLocation)
            var crlfCards = 0
            for file in files {
                let ours = FileManager.default.contents(atPath: crlf + "/" + file)
                let git = FileManager.default.contents(atPath: reference + "/" + file)
                #expect(
                    ours == git, "after \(step), \(file) differs from git's checkout", sourceLocation: sourceLocation)
                if file.hasPrefix("cards/"), let ours, ours.range(of: Data("\r\n".utf8)) != nil { crlfCards += 1 }
            }
            #expect(crlfCards > 0, "after \(step), no card file has CRLF endings", sourceLocation: sourceLocation)
            // Every blob of main, on both devices, is LF only.
            for deck in [lf, crlf] {
                let blobs = try scratch.run("/usr/bin/git", ["ls-tree", "-r", "main"], in: deck).stdout.split(
                    separator: "\n"
                )
                .map { $0.split(separator: " ")[2].prefix(40) }
                for blob in blobs {
                    let content = try scratch.run("/usr/bin/git", ["cat-file", "blob", String(blob)], in: deck).stdout
                    #expect(
                        !content.contains("\r"), "after \(step), blob \(blob) of main in \(deck) has a CR",
                        sourceLocation: sourceLocation)
                }
            }
        }
        try expectAsGit("the clone")
        let added = try scratch.checked(
            scratch.cards(
                ["add", "--title", "From Windows", "--url", "https://w.example"], in: crlf, extraEnvironment: windows)
        )
        .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try expectAsGit("add")
        let listed = try scratch.run("/usr/bin/git", ["ls-files", "cards"], in: crlf).stdout.split(separator: "\n").map(
            String.init)
        let ids = listed.map { String(($0 as NSString).lastPathComponent.dropLast(5)) }.filter { $0 != added }
        try scratch.checked(
            scratch.cards(["edit", ids[0], "--title", "Edited on Windows"], in: crlf, extraEnvironment: windows))
        try expectAsGit("edit of a card git checked out with CRLF")
        try scratch.checked(scratch.cards(["delete", ids[1]], in: crlf, extraEnvironment: windows))
        try expectAsGit("delete")
        // A hand edit in the CRLF file, as an editor on Windows keeps it: committed LF, as `git add` does.
        let handPath = crlf + "/" + listed.first { $0.contains(ids[2]) }!
        let text = try String(contentsOfFile: handPath, encoding: .utf8)
        #expect(text.contains("\r\n"))
        let edited = text.replacingOccurrences(of: "\"title\": \"", with: "\"title\": \"Hand ")
        try edited.write(toFile: handPath, atomically: true, encoding: .utf8)
        let status = try scratch.cards(["status"], in: crlf, extraEnvironment: windows)
        #expect(status.stdout.contains(ids[2]), "cards status: \(status.stdout) \(status.stderr)")
        try scratch.checked(scratch.cards(["commit", "-m", "Hand edit"], in: crlf, extraEnvironment: windows))
        try expectAsGit("commit of a hand edit")
        // Sync with the LF device both ways: a push, a fast-forward, and a merge.
        try scratch.checked(scratch.cards(["sync"], in: crlf, extraEnvironment: windows))
        try scratch.checked(scratch.cards(["sync"], in: lf))
        try scratch.checked(scratch.cards(["edit", ids[3], "--title", "Edited on Linux"], in: lf))
        try scratch.checked(scratch.cards(["sync"], in: lf))
        try scratch.checked(scratch.cards(["sync"], in: crlf, extraEnvironment: windows))
        try expectAsGit("a fast-forward")
        try scratch.checked(scratch.cards(["edit", ids[4], "--title", "Linux again"], in: lf))
        try scratch.checked(scratch.cards(["sync"], in: lf))
        try scratch.checked(
            scratch.cards(["edit", ids[5], "--title", "Windows again"], in: crlf, extraEnvironment: windows))
        try scratch.checked(scratch.cards(["sync"], in: crlf, extraEnvironment: windows))
        try scratch.checked(scratch.cards(["sync"], in: lf))
        try expectAsGit("a merge")
        let check = try scratch.cards(["fsck"], in: crlf, extraEnvironment: windows)
        #expect(check.status == 0, "cards fsck on the CRLF device: \(check.stdout) \(check.stderr)")
    }

    @Test("an LFS image is checked out by `cards clone`, a merge and a fast-forward as git does, not as its pointer")
    func lfsImages() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/git-lfs") else {
            try Test.cancel("git-lfs is not installed; `./dev test` installs it")
        }
        let scratch = try Scratch()
        try scratch.checked(scratch.run("/usr/bin/git", ["lfs", "install", "--skip-repo"]))
        // A local bare remote: git-lfs 3 moves the images of a file:// remote itself (its standalone
        // transfer agent), so clone and fetch download them as from an LFS server.
        let remote = scratch.path("remote.git")
        #expect(try scratch.cards(["init", "--bare", remote, "--from", Binaries.sampleRepo]).status == 0)
        let url = "file://" + remote
        let seed = scratch.path("seed")
        try scratch.checked(scratch.git(["clone", "-q", url, seed], in: scratch.root))
        try scratch.checked(scratch.git(["lfs", "track", "*.png"], in: seed))
        func image(_ size: Int, seed value: UInt8) -> Data {
            Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(value)) })
        }
        try FileManager.default.createDirectory(atPath: seed + "/images", withIntermediateDirectories: true)
        try image(5_000, seed: 1).write(to: URL(fileURLWithPath: seed + "/images/logo.png"))
        try scratch.checked(scratch.git(["add", ".gitattributes", "images/logo.png"], in: seed))
        try scratch.checked(scratch.git(["commit", "-q", "-m", "Logo"], in: seed))
        try scratch.checked(scratch.git(["push", "-q", "origin", "main"], in: seed))
        let pointer = try scratch.git(["cat-file", "-p", "main:images/logo.png"], in: seed).stdout
        #expect(pointer.hasPrefix("version https://git-lfs"), "not an LFS pointer: \(pointer)")

        let deck = scratch.path("deck")
        let reference = scratch.path("git-clone")
        try scratch.checked(scratch.cards(["clone", url, deck]))
        try scratch.checked(scratch.git(["clone", "-q", url, reference], in: scratch.root))
        /// The deck's image is git's (and the seed's), and git status is clean.
        func expectImage(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let ours = FileManager.default.contents(atPath: deck + "/images/logo.png")
            #expect(
                ours == FileManager.default.contents(atPath: seed + "/images/logo.png"),
                "after \(step), the image is not the seed's", sourceLocation: sourceLocation)
            #expect(
                ours == FileManager.default.contents(atPath: reference + "/images/logo.png"),
                "after \(step), the image is not git's", sourceLocation: sourceLocation)
            let status = try scratch.git(["status", "--porcelain"], in: deck)
            #expect(
                status.stdout.isEmpty, "after \(step), git status: \(status.stdout)", sourceLocation: sourceLocation)
        }
        try expectImage("cards clone")
        // A new image while the deck adds a card: the sync merges.
        try image(7_000, seed: 2).write(to: URL(fileURLWithPath: seed + "/images/logo.png"))
        try scratch.checked(scratch.git(["commit", "-q", "-am", "New logo"], in: seed))
        try scratch.checked(scratch.git(["push", "-q", "origin", "main"], in: seed))
        try scratch.checked(scratch.cards(["add", "--title", "Local", "--url", "https://l.example"], in: deck))
        try scratch.checked(scratch.cards(["sync"], in: deck))
        try scratch.checked(scratch.git(["pull", "-q"], in: reference))
        try expectImage("a merge")
        // Another image, nothing local: the sync fast-forwards.
        try scratch.checked(scratch.git(["pull", "-q", "--no-rebase"], in: seed))
        try image(9_000, seed: 3).write(to: URL(fileURLWithPath: seed + "/images/logo.png"))
        try scratch.checked(scratch.git(["commit", "-q", "-am", "Third logo"], in: seed))
        try scratch.checked(scratch.git(["push", "-q", "origin", "main"], in: seed))
        let sync = try scratch.checked(scratch.cards(["sync"], in: deck))
        #expect(sync.stdout.contains("Fast-forwarded"), "not a fast-forward: \(sync.stdout)")
        try scratch.checked(scratch.git(["pull", "-q"], in: reference))
        try expectImage("a fast-forward")
        // The image is no hand edit: cards writes go on.
        try scratch.checked(scratch.cards(["add", "--title", "After", "--url", "https://a.example"], in: deck))
        try expectImage("an add")
    }

    @Test(
        "core.filemode=false where every file looks executable: every entry stays 100644, git status clean, a plain git commit changes no mode"
    )
    func fileModeOff() throws {
        let scratch = try Scratch()
        let shim = try scratch.executableFileSystemShim()
        let remote = scratch.path("remote.git")
        #expect(try scratch.cards(["init", "--bare", remote, "--from", Binaries.sampleRepo]).status == 0)
        let other = scratch.path("other")
        #expect(try scratch.cards(["clone", remote, other]).status == 0)
        let deck = scratch.path("deck")
        let exfat = ["LD_PRELOAD": shim]
        try scratch.checked(scratch.cards(["clone", remote, deck], extraEnvironment: exfat))
        // As git would have set it when it probed such a file system.
        try scratch.checked(scratch.git(["config", "core.filemode", "false"], in: deck))
        let made = try scratch.run("/usr/bin/sh", ["-c", "chmod +x deck.json cards/*/*.json"], in: deck)
        #expect(made.status == 0)
        func expectModes(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let status = try scratch.run("/usr/bin/git", ["status", "--porcelain"], in: deck, extraEnvironment: exfat)
            #expect(
                status.stdout.isEmpty, "after \(step), git status: \(status.stdout)", sourceLocation: sourceLocation)
            for listing in [["ls-files", "-s"], ["ls-tree", "-r", "main"]] {
                let modes = Set(try scratch.git(listing, in: deck).stdout.split(separator: "\n").map { $0.prefix(6) })
                #expect(
                    modes == ["100644"], "after \(step), \(listing[0]) modes: \(modes)", sourceLocation: sourceLocation)
            }
            let probe = try scratch.run(
                "/usr/bin/sh", ["-c", "test -x deck.json && test -x \"$(ls cards/*/*.json | head -1)\""], in: deck)
            #expect(
                probe.status == 0, "the simulated file system does not show files executable",
                sourceLocation: sourceLocation)
        }
        try expectModes("the clone")
        let added = try scratch.checked(
            scratch.cards(
                ["add", "--title", "On exFAT", "--url", "https://x.example"], in: deck, extraEnvironment: exfat)
        )
        .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try expectModes("add")
        try scratch.checked(
            scratch.cards(["edit", added, "--title", "Still on exFAT"], in: deck, extraEnvironment: exfat))
        try expectModes("edit")
        try scratch.checked(scratch.cards(["sync"], in: deck, extraEnvironment: exfat))
        try expectModes("a push")
        try scratch.checked(scratch.cards(["sync"], in: other))
        try scratch.checked(scratch.cards(["edit", added, "--title", "From elsewhere"], in: other))
        try scratch.checked(scratch.cards(["sync"], in: other))
        try scratch.checked(scratch.cards(["sync"], in: deck, extraEnvironment: exfat))
        try expectModes("a fast-forward")
        try scratch.checked(scratch.cards(["delete", added], in: deck, extraEnvironment: exfat))
        try expectModes("delete")
        try scratch.checked(
            scratch.run(
                "/usr/bin/git", ["commit", "-q", "-a", "--allow-empty", "-m", "plain git"], in: deck,
                extraEnvironment: exfat))
        try expectModes("a plain git commit")
    }
}

extension Scratch {
    /// Fails the test with the program's output unless it exited 0; returns the result.
    @discardableResult
    func checked(_ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
        #expect(result.status == 0, "failed: \(result.stdout) \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    /// The environment of another device in this scratch: a home of its own whose global git config is
    /// this scratch's with `config` added (libgit2 reads `$HOME/.gitconfig`, git `GIT_CONFIG_GLOBAL`).
    func device(_ name: String, config: String) throws -> [String: String] {
        let home = path("home-" + name)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let base = try String(contentsOfFile: self.home + "/.gitconfig", encoding: .utf8)
        try (base + config).write(toFile: home + "/.gitconfig", atomically: true, encoding: .utf8)
        return ["HOME": home, "GIT_CONFIG_GLOBAL": home + "/.gitconfig"]
    }

    /// A preloaded library that makes every file created executable, as exFAT, SMB or WSL's /mnt/c show
    /// them (`core.filemode=false` there): `open` with `O_CREAT` gets the execute bits added to its mode.
    /// Cancels the test when there is no C compiler.
    func executableFileSystemShim() throws -> String {
        guard
            let compiler = ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            try Test.cancel("no C compiler to build the executable-file-system shim")
        }
        let source = path("exec-fs.c")
        let library = path("exec-fs.so")
        let calls =
            ["open", "open64"].map { name in
                """
                int \(name)(const char *path, int flags, ...) {
                    mode_t mode = 0;
                    if (flags & O_CREAT) { va_list list; va_start(list, flags); mode = va_arg(list, mode_t); va_end(list); }
                    static int (*real)(const char *, int, ...);
                    if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "\(name)");
                    return real(path, flags, (flags & O_CREAT) ? (mode | 0111) : mode);
                }
                """
            }
            + ["openat", "openat64"].map { name in
                """
                int \(name)(int folder, const char *path, int flags, ...) {
                    mode_t mode = 0;
                    if (flags & O_CREAT) { va_list list; va_start(list, flags); mode = va_arg(list, mode_t); va_end(list); }
                    static int (*real)(int, const char *, int, ...);
                    if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "\(name)");
                    return real(folder, path, flags, (flags & O_CREAT) ? (mode | 0111) : mode);
                }
                """
            }
        try
            ("#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <fcntl.h>\n#include <stdarg.h>\n#include <sys/types.h>\n"
            + calls.joined(separator: "\n")).write(toFile: source, atomically: true, encoding: .utf8)
        try checked(run(compiler, ["-shared", "-fPIC", "-O1", "-o", library, source, "-ldl"]))
        return library
    }
}
