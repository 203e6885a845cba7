import Foundation

/// The git CLI as tests run it: the system's configuration left out, a fixed identity, standard error
/// dropped. The one runner the unit tests share (the integration tests run every program through
/// their `Scratch`, whose HOME is their own).
public enum GitRunner {
    /// What a run of git left: its exit status and standard output.
    public struct Outcome: Sendable {
        /// The exit status.
        public var status: Int32
        /// Everything written on standard output.
        public var output: String
    }

    /// Runs git with `arguments` in `folder`; `input` names a file for its standard input, `environment`
    /// adds variables (such as `GIT_INDEX_FILE`).
    public static func run(
        _ arguments: [String], in folder: String, input: String? = nil, environment: [String: String] = [:]
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        var variables = ProcessInfo.processInfo.environment
        variables["GIT_CONFIG_NOSYSTEM"] = "1"
        for role in ["AUTHOR", "COMMITTER"] {
            variables["GIT_\(role)_NAME"] = "Git Test"
            variables["GIT_\(role)_EMAIL"] = "git@example.invalid"
        }
        variables.merge(environment) { _, new in new }
        process.environment = variables
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        if let input { process.standardInput = FileHandle(forReadingAtPath: input) }
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// `git fsck`'s exit status in the repository at `path` (`--strict` also refuses git's old file
    /// modes and other oddities).
    public static func fsckStatus(_ path: String, strict: Bool = true) throws -> Int32 {
        try run(["fsck", "--no-dangling", "--no-progress"] + (strict ? ["--strict"] : []), in: path).status
    }
}
