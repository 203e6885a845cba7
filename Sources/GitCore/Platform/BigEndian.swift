/// Big-endian 32-bit numbers, as git's pack, pack index and index files hold them.
enum BigEndian {
    /// The number in the 4 bytes at `offset` of `bytes` (the caller checked they are there).
    static func read32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    /// `value` as 4 bytes, most significant first.
    static func bytes(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }
}
