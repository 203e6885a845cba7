import CGit2

/// The three-way merge of one file's contents, as `git merge` merges a text file line by line.
package struct FileMerge: Sendable, Equatable {
    /// The merged bytes, when both sides' changes fit together (no overlapping lines changed apart).
    package var merged: [UInt8]?
    /// The merged file mode (an executable bit one side set is kept).
    package var mode: UInt32

    /// Whether the sides' changes overlap, so a person must settle the file.
    package var isConflict: Bool { merged == nil }
}

extension Repository {
    /// Merges the blobs `ours` and `theirs` against `base` (nil: the file is new on both sides) line by
    /// line through libgit2's `git_merge_file`, the algorithm `git merge` uses for a text file. A file
    /// that looks binary to git (a NUL byte among its first 8,000) merges only when a side left it as
    /// the base had it, as git merges it.
    package func mergeFile(
        path: String, base: (id: ObjectID, mode: UInt32)?, ours: (id: ObjectID, mode: UInt32),
        theirs: (id: ObjectID, mode: UInt32)
    ) throws(GitError) -> FileMerge {
        let baseBytes = try base.map { (entry) throws(GitError) in try readBlob(entry.id) } ?? []
        let oursBytes = try readBlob(ours.id)
        let theirsBytes = try readBlob(theirs.id)
        if [baseBytes, oursBytes, theirsBytes].contains(where: Repository.looksBinary) {
            return FileMerge(merged: nil, mode: ours.mode)
        }
        var result = git_merge_file_result()
        var options = git_merge_file_options()
        try check(
            git_merge_file_options_init(&options, UInt32(GIT_MERGE_FILE_OPTIONS_VERSION)),
            "git_merge_file_options_init")
        let status = path.withCString { name in
            baseBytes.withUnsafeBufferPointer { baseBuffer in
                oursBytes.withUnsafeBufferPointer { oursBuffer in
                    theirsBytes.withUnsafeBufferPointer { theirsBuffer in
                        func input(_ buffer: UnsafeBufferPointer<UInt8>, mode: UInt32?) -> git_merge_file_input {
                            var input = git_merge_file_input()
                            git_merge_file_input_init(&input, UInt32(GIT_MERGE_FILE_INPUT_VERSION))
                            input.ptr = buffer.baseAddress.map {
                                UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)
                            }
                            input.size = buffer.count
                            input.path = name
                            input.mode = mode ?? 0
                            return input
                        }
                        var ancestor = input(baseBuffer, mode: base?.mode)
                        var mine = input(oursBuffer, mode: ours.mode)
                        var other = input(theirsBuffer, mode: theirs.mode)
                        if base == nil { ancestor.path = nil }
                        return git_merge_file(&result, &ancestor, &mine, &other, &options)
                    }
                }
            }
        }
        try check(status, "git_merge_file")
        defer { git_merge_file_result_free(&result) }
        let mode = result.mode == 0 ? ours.mode : UInt32(result.mode)
        guard result.automergeable != 0 else { return FileMerge(merged: nil, mode: mode) }
        let merged =
            result.ptr.map { pointer in
                Array(UnsafeRawBufferPointer(start: pointer, count: result.len).bindMemory(to: UInt8.self))
            } ?? []
        return FileMerge(merged: merged, mode: mode)
    }

    /// Git's own test for a binary file: a NUL byte among the first 8,000.
    static func looksBinary(_ bytes: [UInt8]) -> Bool {
        bytes.prefix(8000).contains(0)
    }
}
