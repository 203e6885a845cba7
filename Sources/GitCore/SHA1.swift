import Glibc

/// SHA-1 of a byte buffer, for the index file's trailing checksum.
///
/// Uses OpenSSL's `SHA1` when the process already has libcrypto loaded (libgit2's libssh2 brings it
/// on Debian; it uses the CPU's SHA instructions, ~5x faster here than portable code), else a portable
/// implementation. Both give the same digest; a test checks that.
public enum SHA1 {
    typealias NativeFunction =
        @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) ->
        UnsafeMutablePointer<UInt8>?

    static let native: NativeFunction? = {
        // RTLD_DEFAULT: search the libraries already loaded; never load one ourselves.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "SHA1") else { return nil }
        return unsafeBitCast(symbol, to: NativeFunction.self)
    }()

    /// The 20-byte digest of `buffer`.
    public static func digest(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        if let native {
            out.withUnsafeMutableBufferPointer { digest in
                _ = native(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count, digest.baseAddress)
            }
            return out
        }
        return portableDigest(buffer)
    }

    /// The digest computed without libcrypto (the fallback, also used by tests to check the fast one).
    public static func portableDigest(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
        )
        let length = buffer.count
        var block = [UInt8](repeating: 0, count: 64)
        var offset = 0
        while offset + 64 <= length {
            compress(&state, UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + 64]))
            offset += 64
        }
        // Padding: 0x80, zeros, then the length in bits as a 64-bit big-endian number.
        var tail = Array(UnsafeRawBufferPointer(rebasing: buffer[offset..<length]))
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        let bits = UInt64(length) &* 8
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        var index = 0
        while index < tail.count {
            for position in 0..<64 { block[position] = tail[index + position] }
            block.withUnsafeBytes { compress(&state, $0) }
            index += 64
        }
        var out: [UInt8] = []
        out.reserveCapacity(20)
        for word in [state.0, state.1, state.2, state.3, state.4] {
            out.append(UInt8(truncatingIfNeeded: word >> 24))
            out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8))
            out.append(UInt8(truncatingIfNeeded: word))
        }
        return out
    }

    private static func compress(
        _ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32), _ chunk: UnsafeRawBufferPointer
    ) {
        var words = [UInt32](repeating: 0, count: 80)
        for index in 0..<16 {
            let base = index * 4
            words[index] =
                UInt32(chunk[base]) << 24 | UInt32(chunk[base + 1]) << 16 | UInt32(chunk[base + 2]) << 8
                | UInt32(chunk[base + 3])
        }
        for index in 16..<80 {
            let mixed = words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16]
            words[index] = mixed << 1 | mixed >> 31
        }
        var (a, b, c, d, e) = state
        for index in 0..<80 {
            let f: UInt32
            let k: UInt32
            switch index {
            case 0..<20:
                f = (b & c) | (~b & d)
                k = 0x5A82_7999
            case 20..<40:
                f = b ^ c ^ d
                k = 0x6ED9_EBA1
            case 40..<60:
                f = (b & c) | (b & d) | (c & d)
                k = 0x8F1B_BCDC
            default:
                f = b ^ c ^ d
                k = 0xCA62_C1D6
            }
            let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ words[index]
            e = d
            d = c
            c = b << 30 | b >> 2
            b = a
            a = temp
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
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
