import Foundation
import Testing

/// Several `cards` processes writing one deck at the same moment lose nothing.
@Suite("Concurrent writers")
struct ConcurrencyTests {
    @Test("two add loops started together, 50 each: 100 cards, 100 commits, status clean")
    func twoWriters() throws {
        let scratch = try Scratch()
        let deck = scratch.path("deck")
        #expect(try scratch.cards(["init", deck]).status == 0)
        let script = """
            for i in $(seq 1 50); do "$CARDS" add --title "Writer $1 card $i" --url "https://w$1.example/$i" >/dev/null || echo "failed $1 $i" >&2; done
            """
        var processes: [Process] = []
        var errors: [Pipe] = []
        for writer in 1...2 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script, "sh", "\(writer)"]
            process.currentDirectoryURL = URL(fileURLWithPath: deck)
            var env = scratch.environment
            env["CARDS"] = Binaries.cards
            process.environment = env
            let pipe = Pipe()
            process.standardError = pipe
            errors.append(pipe)
            processes.append(process)
        }
        for process in processes { try process.run() }
        for (process, pipe) in zip(processes, errors) {
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(text.isEmpty, "a writer failed: \(text)")
        }
        let list = try scratch.cards(["list"], in: deck).stdout.split(separator: "\n")
        #expect(list.count == 100)
        #expect(try scratch.commits(deck).count == 101)
        try scratch.expectClean(deck)
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
    }
}
