import Foundation
import Testing

/// The seeded fuzzer (`cards-fuzz`) over every parser and the merge driver, a bounded run per target.
/// `CARDS_FUZZ_SCALE` multiplies the counts (`./dev reliability` runs millions in a release build),
/// `CARDS_SEED` replays a run.
@Suite("Fuzzing")
struct FuzzTests {
    /// Inputs per target in CI: sized to a few seconds each in a debug build.
    static let counts: [(target: String, count: Int)] = [
        ("json", 100_000), ("card", 100_000), ("args", 100_000), ("drag", 50_000), ("input", 25_000),
        ("merge", 10_000), ("driver", 50_000),
    ]

    static let binary: String = {
        let folder = (Binaries.cards as NSString).deletingLastPathComponent
        return folder + "/cards-fuzz"
    }()

    @Test("millions in the long run, a bounded run here: no crash, every property holds")
    func fuzzEverything() throws {
        let scale = Double(ProcessInfo.processInfo.environment["CARDS_FUZZ_SCALE"] ?? "") ?? 1
        let seed = environmentSeed()
        print("fuzzing: scale \(scale), CARDS_SEED=\(seed)")
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build cards-fuzz first")
        let scratch = try Scratch()
        let lock = NSLock()
        nonisolated(unsafe) var results: [String: RunResult] = [:]
        // Two at a time: the machine has two cores.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        for (target, count) in Self.counts {
            queue.addOperation {
                let scaled = max(1, Int(Double(count) * scale))
                let result =
                    (try? scratch.run(Self.binary, ["--count", "\(scaled)", "--seed", "\(seed)", "--json", target]))
                    ?? RunResult(status: -1, stdout: "", stderr: "could not run \(Self.binary)")
                lock.lock()
                results[target] = result
                lock.unlock()
            }
        }
        queue.waitUntilAllOperationsAreFinished()
        var figures: [String: Any] = ["seed": "\(seed)"]
        var total = 0
        for (target, _) in Self.counts {
            let result = try #require(results[target])
            #expect(result.status == 0, "\(target): \(result.stdout)\(result.stderr)")
            print(result.stdout.split(separator: "\n").first.map(String.init) ?? "")
            let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("FUZZ ") }
            if let line, let data = line.dropFirst(5).data(using: .utf8),
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                let entry = object[target] as? [String: Any], let inputs = entry["inputs"] as? Int
            {
                figures[target] = inputs
                total += inputs
            }
        }
        figures["total"] = total
        reportFigures("fuzz", figures)
    }
}
