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

    /// "name <email> time ±hhmm" as libgit2 writes a signature into a commit (`git_signature_new`, then
    /// `git_signature__writebuf`): name and email cut at a NUL (where a C string ends), refused when
    /// either holds an angle bracket, trimmed of what libgit2 calls crud at both ends (control
    /// characters, space and `.,:;<>"\'`), refused when either is then empty; the time as an
    /// unsigned 32-bit number.
    func commitText() throws(GitError) -> [UInt8] {
        if let problem = commitProblem {
            throw GitError(code: .invalidArgument, message: problem, function: "Signature.commitText")
        }
        let trimmedName = Signature.trimmed(Signature.cString(name))
        let trimmedEmail = Signature.trimmed(Signature.cString(email))
        return trimmedName + Array(" <".utf8) + trimmedEmail
            + Array("> \(UInt32(truncatingIfNeeded: time)) \(zone)".utf8)
    }

    /// Why git (libgit2's `git_signature_new`) cannot write this name and email into a commit, naming
    /// the one at fault; nil when it can. A name or email holding `<` or `>`, or left empty once the
    /// spaces, control characters and `.,:;<>"\'` at its ends are trimmed (a NUL ends it, as in C).
    public var commitProblem: String? {
        for (field, value) in [("name", name), ("email", email)] {
            let bytes = Signature.cString(value)
            if bytes.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) {
                return "the author \(field) \"\(value)\" holds an angle bracket (< or >)"
            }
            if Signature.trimmed(bytes).isEmpty {
                return "the author \(field) \"\(value)\" is empty once spaces and punctuation at its ends are dropped"
            }
        }
        return nil
    }

    /// The offset as git writes it, `+hhmm` or `-hhmm`: hours and minutes each at least two digits,
    /// from the offset's magnitude (libgit2's too, for the one offset whose negation overflows).
    package var zone: String {
        let magnitude = offsetMinutes.magnitude
        func twoDigits(_ value: UInt32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return (offsetMinutes < 0 ? "-" : "+") + twoDigits(magnitude / 60) + twoDigits(magnitude % 60)
    }

    /// What libgit2 trims besides control characters and space.
    private static let crud = Set(".,:;<>\"\\'".utf8)

    /// The bytes of `text` up to its first NUL.
    private static func cString(_ text: String) -> ArraySlice<UInt8> {
        let bytes = Array(text.utf8)
        return bytes[..<(bytes.firstIndex(of: 0) ?? bytes.count)]
    }

    /// `bytes` without libgit2's "crud" at either end.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        func isCrud(_ byte: UInt8) -> Bool { byte <= 32 || Signature.crud.contains(byte) }
        guard let first = bytes.firstIndex(where: { !isCrud($0) }), let last = bytes.lastIndex(where: { !isCrud($0) })
        else { return [] }
        return Array(bytes[first...last])
    }
}
