extension QRMatrix {
    /// The code as a greyscale PNG file's bytes: `scale` pixels a module, a quiet zone of `quietZone`
    /// modules, uncompressed (stored deflate blocks: a QR image is small, and no zlib is needed).
    /// Byte-identical for the same matrix and arguments.
    public func png(scale: Int = 8, quietZone: Int = 4) -> [UInt8] {
        let scale = max(1, scale)
        let margin = max(0, quietZone)
        let side = (width + 2 * margin) * scale
        var pixels: [UInt8] = []
        pixels.reserveCapacity(side * side)
        for y in 0..<side {
            let row = y / scale - margin
            for x in 0..<side { pixels.append(isDark(row: row, column: x / scale - margin) ? 0 : 255) }
        }
        return PNGFile.grey(width: side, height: side, pixels: pixels)
    }
}

/// A zlib stream of stored (uncompressed) deflate blocks, and the checksums PNG needs.
enum PNGDeflate {
    static func stored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let count = min(65_535, data.count - start)
            let last = start + count == data.count
            out.append(last ? 1 : 0)
            out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[start..<start + count]
            start += count
        } while start < data.count
        out += PNGFile.bigEndian(adler32(data))
        return out
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func crc32<S: Sequence<UInt8>>(_ bytes: S) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
