import Foundation
import GitCore
import TestSupport
import Testing

/// A path a message suggests in a command is one word to a POSIX shell, whatever it holds.
@Suite("Shell words: a suggested path pastes into sh as the same one word")
struct ShellWordTests {
    @Test("odd and random paths: sh -c printf gives back the very text; plain ones are left as they are")
    func roundTrip() throws {
        var random = SplitMix64(seed: 91)
        let alphabet = Array("ab /'\"$`\\!*?[]{}()<>|&;#~=%@:,.+-_\né\t")
        var texts = ["plain/path-1.git", "/tmp/sp ace", "it's", "-", "--deck", "a'b'c", "$HOME", "`id`", "x\ny"]
        for _ in 0..<200 {
            let count = Int.random(in: 1...12, using: &random)
            texts.append(String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }))
        }
        for text in texts {
            let word = ShellWord.quoted(text)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "printf %s \(word)"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let expected = text.hasPrefix("-") ? "./" + text : text
            #expect(String(decoding: output, as: UTF8.self) == expected, "\(text.debugDescription) as \(word)")
        }
        #expect(ShellWord.quoted("plain/path-1.git") == "plain/path-1.git")
    }

    @Test("a name as an operand: the very name after a -- when it starts with a dash, never made a path")
    func operands() throws {
        for name in ["origin", "-x", "o'q", "-a b", "main"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // The words as sh splits them, a leading `--` taken as a command's option parser takes it.
            process.arguments = [
                "-c", "set -- \(ShellWord.operand(name)); [ \"$1\" = -- ] && shift; printf %s \"$1\"",
            ]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(String(decoding: output, as: UTF8.self) == name, "\(name) as \(ShellWord.operand(name))")
        }
        #expect(ShellWord.operand("-x") == "-- -x" && ShellWord.operand("origin") == "origin")
    }
}
