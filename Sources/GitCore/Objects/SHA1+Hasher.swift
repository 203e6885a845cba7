import CGit2
extension SHA1 {
    /// A SHA-1 digest computed over bytes given in pieces, so a file written from several buffers
    /// (the index patch's pieces) is hashed without first being copied into one.
    ///
    /// Through OpenSSL's `SHA1_Init`/`SHA1_Update`/`SHA1_Final`, like `SHA1.digest`, or portable
    /// code for tests. Noncopyable, and `finalize()` consumes it, so a context is never shared,
    /// reused after its digest, or leaked.
    ///
    ///     var hasher = SHA1.Hasher()
    ///     hasher.update(header)
    ///     hasher.update(body)
    ///     let digest = hasher.finalize()  // == SHA1.digest(header + body)
    package struct Hasher: ~Copyable {
        /// libcrypto's `SHA_CTX`, or nil for the portable state.
        private let context: UnsafeMutableRawPointer?
        private var portable = PortableSHA1()

        /// A hasher over no bytes yet; `portable`: never use libcrypto (tests compare the two).
        package init(portable: Bool = false) {
            guard !portable else {
                context = nil
                return
            }
            let context = UnsafeMutableRawPointer.allocate(byteCount: SHA1.contextSize, alignment: 16)
            context.initializeMemory(as: UInt8.self, repeating: 0, count: SHA1.contextSize)
            // SHA1_Init only fails on a NULL context.
            _ = SHA1_Init(context)
            self.context = context
        }

        deinit {
            context?.deallocate()
        }

        /// Adds `bytes` to the hashed data.
        package mutating func update(_ bytes: UnsafeRawBufferPointer) {
            guard !bytes.isEmpty else { return }
            if let context {
                _ = SHA1_Update(context, bytes.baseAddress, bytes.count)
            } else {
                portable.update(bytes)
            }
        }

        /// The 20-byte digest of everything added.
        package consuming func finalize() -> [UInt8] {
            guard let context else { return portable.finalize() }
            var out = [UInt8](repeating: 0, count: 20)
            out.withUnsafeMutableBufferPointer { _ = SHA1_Final($0.baseAddress, context) }
            return out
        }
    }
}

/// SHA-1 (FIPS 180-4) without libcrypto, fed in pieces of any size.
struct PortableSHA1 {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )
    /// The bytes of an unfinished block (fewer than 64).
    private var pending: [UInt8] = []
    /// Bytes added so far.
    private var length: UInt64 = 0

    /// Adds `bytes`: completes the pending block, compresses whole blocks in place, keeps the rest.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let taken = min(64 - pending.count, bytes.count)
            pending += UnsafeRawBufferPointer(rebasing: bytes[0..<taken])
            offset = taken
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { Self.compress(&state, $0) }
            pending.removeAll(keepingCapacity: true)
        }
        while offset + 64 <= bytes.count {
            Self.compress(&state, UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 64]))
            offset += 64
        }
        pending += UnsafeRawBufferPointer(rebasing: bytes[offset...])
    }

    /// The digest: padding (0x80, zeros, the length in bits as a 64-bit big-endian number) added.
    consuming func finalize() -> [UInt8] {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        tail += repeatElement(0, count: (119 - pending.count) % 64)
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        tail.withUnsafeBytes { update($0) }
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
        // The message schedule on the stack: no heap allocation per 64-byte block.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { words in
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
}
