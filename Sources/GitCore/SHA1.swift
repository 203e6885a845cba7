import CGit2
import Glibc

/// SHA-1 of a byte buffer, for the index file's trailing checksum.
///
/// Uses OpenSSL's SHA-1 (it uses the CPU's SHA instructions, ~5x faster here than portable code); the
/// portable implementation is kept for tests, which check that both give the same digest.
public enum SHA1 {
    /// The native functions (never nil since libcrypto is linked in; see `NativeSHA1.lookUp`).
    static let native = NativeSHA1.lookUp()

    /// The 20-byte digest of `buffer`.
    public static func digest(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        guard let native else { return portableDigest(buffer) }
        var out = [UInt8](repeating: 0, count: 20)
        out.withUnsafeMutableBufferPointer { digest in
            _ = native.oneShot(
                buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count, digest.baseAddress)
        }
        return out
    }

    /// The digest computed without libcrypto (the fallback, also used by tests to check the fast one).
    public static func portableDigest(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var state = PortableSHA1()
        state.update(buffer)
        return state.finalize()
    }
}

/// OpenSSL's SHA-1 functions (libcrypto is linked in with libgit2's libraries, see Package.swift).
///
/// The low-level `SHA_CTX` calls, also for a one-shot digest (`cgit2_sha1`): OpenSSL 3's `SHA1()`
/// fetches an implementation through its provider machinery, which loads `openssl.cnf` on first use
/// (~1.5 ms); these use the CPU's SHA instructions directly.
struct NativeSHA1 {
    typealias OneShot =
        @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?
    typealias Initialize = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    typealias Update = @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int32
    typealias Finalize = @convention(c) (UnsafeMutablePointer<UInt8>?, UnsafeMutableRawPointer?) -> Int32

    /// `SHA1(data, count, digest)`.
    let oneShot: OneShot
    /// `SHA1_Init(context)`.
    let initialize: Initialize
    /// `SHA1_Update(context, data, count)`.
    let update: Update
    /// `SHA1_Final(digest, context)`.
    let finalize: Finalize

    /// Bytes reserved for a `SHA_CTX` (96 in OpenSSL 1.1 and 3; room to spare, as in `cgit2_sha1`).
    static let contextSize = 256

    /// The linked functions (an optional only so that tests can also run the portable code).
    static func lookUp() -> NativeSHA1? {
        NativeSHA1(oneShot: cgit2_sha1, initialize: SHA1_Init, update: SHA1_Update, finalize: SHA1_Final)
    }
}

extension SHA1 {
    /// The digest of a byte array.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { digest($0) }
    }

    /// HMAC-SHA1 (RFC 2104), to match hashed known_hosts names (`|1|salt|hash`).
    public static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? digest(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = digest(block.map { $0 ^ 0x36 } + message)
        return digest(block.map { $0 ^ 0x5c } + inner)
    }
}
