import CardStore
import GitCore
import Glibc

// cards-bench: our deck operations against the git CLI at 1k, 10k and 100k cards (issue 7).
// Usage: cards-bench [--quick] [--sizes 1000,10000] [--repeats N] [--keep] [--only merge|ops|sync|serve|share]
// Build and run with `./dev bench` (release build). Not part of CI.

var arguments = Array(CommandLine.arguments.dropFirst())
var sizes = [1000, 10_000, 100_000]
var repeats = 7
var keep = false
// `--only merge`: only the merge rows; `--only ops`: only the one-card add/edit/delete rows (and the
// imports that build their decks).
var onlyMerge = false
var onlyOps = false
// `--only serve`: only the `cards serve` rows (a headless browser; issue 25).
var onlyServe = false
// `--only share`: only the list and export rows, with the vCard export and `cards publish` (issue 36).
var onlyShare = false
// `--only sync`: only the sync rows (and the imports and git twin they start from; issue 37).
var onlySync = false
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--quick": sizes = [1000, 10_000]
    case "--keep": keep = true
    case "--only":
        switch arguments.first {
        case "merge": onlyMerge = true
        case "ops": onlyOps = true
        case "serve": onlyServe = true
        case "sync": onlySync = true
        case "share": onlyShare = true
        default:
            fail(
                "--only takes merge (the merge rows), ops (the one-card rows), sync (the sync rows), serve (the "
                    + "browser rows) or share (list, export, the vCard export and publish)")
        }
        arguments.removeFirst()
    case "--sizes":
        guard let value = arguments.first else { fail("--sizes needs a value like 1000,10000") }
        arguments.removeFirst()
        sizes = value.split(separator: ",").compactMap { Int($0) }
    case "--repeats":
        guard let value = arguments.first.flatMap({ Int($0) }), value > 0 else { fail("--repeats needs a number") }
        arguments.removeFirst()
        repeats = value
    case "-h", "--help":
        print(
            "usage: cards-bench [--quick] [--sizes 1000,10000,100000] [--repeats 7] [--keep] "
                + "[--only merge|ops|sync|serve|share]")
        exit(0)
    default: fail("unknown option \(argument); see --help")
    }
}

guard let executable = FileSystem.executablePath() else { fail("cannot find this program's path") }
let cardsBinary = FileSystem.parent(of: executable) + "/cards"
guard FileSystem.exists(cardsBinary) else {
    fail("\(cardsBinary) is missing: build it first (swift build -c release --product cards)")
}
let root: String
do { root = try FileSystem.makeTemporaryDirectory(prefix: "cards-bench-") } catch { fail("\(error)") }
// An isolated environment: no user git config, a fixed identity, fsync on for both sides.
for (name, value) in [
    ("HOME", root), ("XDG_CONFIG_HOME", root), ("GIT_CONFIG_NOSYSTEM", "1"), ("CARDS_AUTHOR_NAME", "Bench"),
    ("CARDS_AUTHOR_EMAIL", "bench@example.invalid"), ("GIT_AUTHOR_NAME", "Bench"),
    ("GIT_AUTHOR_EMAIL", "bench@example.invalid"), ("GIT_COMMITTER_NAME", "Bench"),
    ("GIT_COMMITTER_EMAIL", "bench@example.invalid"),
] {
    setenv(name, value, 1)
}
unsetenv("CARDS_FSYNC")
unsetenv("CARDS_DECK")
// This process makes no network connection.
Deck.deferNetworkSetUp()

var machine = utsname()
uname(&machine)
let kernel = withUnsafeBytes(of: machine.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
let memory = sysconf(Int32(_SC_PHYS_PAGES)) * sysconf(Int32(_SC_PAGESIZE)) / (1 << 30)
let gitVersion = Measure.run("git", ["--version"], capture: true).output.filter { $0 != "\n" }
print("cards-bench: sizes \(sizes.map(String.init).joined(separator: ", ")), \(repeats) runs per median")
print("machine: Linux \(kernel), \(cores) cores, \(memory) GB; \(gitVersion); libgit2 \(Libgit2.version)")
print("fsync on for both: cards default (CARDS_FSYNC unset), git -c core.fsync=all")

let bench = Bench(
    root: root, cardsBinary: cardsBinary, repeats: repeats, onlyMerge: onlyMerge, onlyOps: onlyOps)
bench.onlyShare = onlyShare
bench.onlySync = onlySync
let start = Measure.now()
do {
    if !onlyServe {
        for size in sizes { try bench.run(size: size) }
    }
    if !onlyMerge && !onlyOps && !onlyShare && !onlySync {
        // The package's folder: this file is Sources/cards-bench/main.swift in it.
        var packageRoot = #filePath
        for _ in 0..<3 { packageRoot = FileSystem.parent(of: packageRoot) }
        bench.runServe(packageRoot: packageRoot)
    }
} catch {
    fail("\(error)")
}
print("")
print(Report.table(bench.rows))
print("Targets (issue 7):")
print(Report.targets(bench.rows))
print("Targets (issue 37):")
print(Report.syncTargets(bench.rows))
print("total time: \(Report.ms(Measure.now() - start))")
if !keep { FileSystem.removeTree(root) } else { print("decks kept in \(root)") }
