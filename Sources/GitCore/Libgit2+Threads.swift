import CGit2

extension Libgit2 {
    /// Whether this libgit2 was built thread-safe, so that separate `Repository` handles may read on
    /// separate threads at the same time (one handle is still never shared between threads).
    public static var supportsThreads: Bool {
        ensureInitialized()
        return UInt32(bitPattern: git_libgit2_features()) & GIT_FEATURE_THREADS.rawValue != 0
    }
}
