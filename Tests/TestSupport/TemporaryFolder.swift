import Foundation

/// Where tests make their scratch folders.
public enum TemporaryFolder {
    /// The system's temporary folder without a trailing slash (`NSTemporaryDirectory()` ends with one),
    /// so that paths built under it are spelled as git and the `cards` binary spell them.
    public static var path: String {
        var folder = NSTemporaryDirectory()
        while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
        return folder
    }
}
