import Testing

/// Gives each test case its own `ScratchFolder` (read through `ScratchFolder.current`), made before the
/// test runs and removed when it ends, whatever the test kept a reference to. On a suite, every test
/// of the suite gets one of its own.
public struct ScratchFolderTrait: TestTrait, SuiteTrait, TestScoping {
    /// Each test of a suite marked so has a folder of its own.
    public var isRecursive: Bool { true }

    /// Runs `function` with a new scratch folder bound to `ScratchFolder.current`, then removes the folder.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: () async throws -> Void
    ) async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        try await ScratchFolder.$bound.withValue(scratch) { try await function() }
    }
}

extension Trait where Self == ScratchFolderTrait {
    /// A scratch folder for each test (`ScratchFolder.current`), removed when the test ends.
    public static var scratchFolder: Self { ScratchFolderTrait() }
}
