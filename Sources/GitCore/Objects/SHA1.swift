import CGit2
import Glibc

/// SHA-1 of a byte buffer, for the index file's trailing checksum.
///
/// Uses OpenSSL's SHA-1 (it uses the CPU's SHA instructions, ~5x faster here than portable code); the
/// portable implementation is kept for tests, which check that both give the same digest.
package enum SHA1 {
    /// Bytes reserved for a `SHA_CTX` (96 in OpenSSL 1.1 and 3; room to spare, as in `cgit2_sha1`).
    static let contextSize = 256

    /// The 20-byte digest of `buffer`, through libcrypto's low-level `SHA_CTX` calls (`cgit2_sha1`):
    /// OpenSSL 3's `SHA1()` fetches an implementation through its provider machinery, which loads
    /// `openssl.cnf` on first use (~1.5 ms).
    package static func digest(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        out.withUnsafeMutableBufferPointer { digest in
            _ = cgit2_sha1(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count, digest.baseAddress)
        }
        return out
    }

    /// The digest computed without libcrypto (tests check the fast one against it).
    package static func portableDigest(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var state = PortableSHA1()
        state.update(buffer)
        return state.finalize()
    }
}

extension SHA1 {
    /// The digest of a byte array.
    package static func digest(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { digest($0) }
    }

    /// HMAC-SHA1 (RFC 2104), to match hashed known_hosts names (`|1|salt|hash`).
    package static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? digest(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = digest(block.map { $0 ^ 0x36 } + message)
        return digest(block.map { $0 ^ 0x5c } + inner)
    }
}

extension ObjectID {
    /// The id git gives an object of `type` with these bytes (SHA-1 of "<type> <size>\0" and the
    /// bytes) through libcrypto's SHA-1 in hardware, ~5x faster than `git_odb_hash`, which also looks
    /// for the patterns of a SHA-1 collision attack. Only to check bytes read back against the id they
    /// are stored under (as git's unsafe SHA-1 checks pack and index checksums); a new object is
    /// named by `ObjectID.hash(of:type:)`.
    package static func hardwareHash(of buffer: UnsafeRawBufferPointer, type: git_object_t) -> ObjectID {
        var hasher = SHA1.Hasher()
        // "<type> <size>\0" laid out on the stack: formatted through a String it was a tenth of reading
        // a card's blob.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { header in
            var length = 0
            if let name = git_object_type2string(type) {
                var position = 0
                while name[position] != 0 && length < 16 {
                    header[length] = UInt8(bitPattern: name[position])
                    length += 1
                    position += 1
                }
            }
            header[length] = UInt8(ascii: " ")
            length += 1
            var digits = 1
            var rest = buffer.count / 10
            while rest > 0 {
                digits += 1
                rest /= 10
            }
            var value = buffer.count
            for place in stride(from: length + digits - 1, through: length, by: -1) {
                header[place] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            length += digits
            header[length] = 0
            hasher.update(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(header)[0...length]))
        }
        hasher.update(buffer)
        let digest = hasher.finalize()
        return ObjectID(bytes: digest)
    }
}
