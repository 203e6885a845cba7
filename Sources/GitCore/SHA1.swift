import Glibc

/// SHA-1 of a byte buffer, for the index file's trailing checksum.
///
/// Uses OpenSSL's SHA-1 when the process already has libcrypto loaded (libgit2's libssh2 brings it
/// on Debian; it uses the CPU's SHA instructions, ~5x faster here than portable code), else a portable
/// implementation. Both give the same digest; a test checks that.
public enum SHA1 {
    /// The native functions, or nil when libcrypto is not loaded (then every digest is portable).
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

/// OpenSSL's SHA-1 functions, found in the libraries the process has already loaded.
///
/// The only place that looks them up: linking libcrypto directly would replace `lookUp` with the
/// functions themselves, and nothing else would change.
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

    /// Bytes reserved for a `SHA_CTX` (96 in OpenSSL 1.1 and 3; room to spare, since its size is not
    /// part of the symbols we find).
    static let contextSize = 256

    /// All four functions, or nil when any is missing (never a mix of native and portable state).
    static func lookUp() -> NativeSHA1? {
        func symbol(_ name: String) -> UnsafeMutableRawPointer? {
            // RTLD_DEFAULT: search the libraries already loaded; never load one ourselves.
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)
        }
        guard let oneShot = symbol("SHA1"), let initialize = symbol("SHA1_Init"), let update = symbol("SHA1_Update"),
            let finalize = symbol("SHA1_Final")
        else { return nil }
        return NativeSHA1(
            oneShot: unsafeBitCast(oneShot, to: OneShot.self),
            initialize: unsafeBitCast(initialize, to: Initialize.self),
            update: unsafeBitCast(update, to: Update.self), finalize: unsafeBitCast(finalize, to: Finalize.self))
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
