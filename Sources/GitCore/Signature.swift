import CGit2
import Glibc

/// Who made a commit and when.
public struct Signature: Sendable, Hashable {
    /// The person's name.
    public var name: String
    /// The person's email address.
    public var email: String
    /// Seconds since 1970 (UTC).
    public var time: Int64
    /// Minutes east of UTC.
    public var offsetMinutes: Int32

    /// Creates a signature; `time` defaults to now.
    public init(name: String, email: String, time: Int64? = nil, offsetMinutes: Int32 = 0) {
        self.name = name
        self.email = email
        self.time = time ?? Int64(Glibc.time(nil))
        self.offsetMinutes = offsetMinutes
    }

    init(_ raw: UnsafePointer<git_signature>) {
        name = raw.pointee.name.map { String(cString: $0) } ?? ""
        email = raw.pointee.email.map { String(cString: $0) } ?? ""
        time = raw.pointee.when.time
        offsetMinutes = raw.pointee.when.offset
    }

    func withRaw<T>(_ body: (UnsafePointer<git_signature>) throws(GitError) -> T) throws(GitError) -> T {
        var raw: UnsafeMutablePointer<git_signature>?
        try check(git_signature_new(&raw, name, email, time, offsetMinutes), "git_signature_new")
        defer { git_signature_free(raw) }
        guard let raw else { throw GitError(code: .other(-1), message: "no signature", function: "git_signature_new") }
        return try body(raw)
    }
}
