/// PNG files written without zlib (stored deflate blocks): for the small images drawn here, QR codes
/// (greyscale) and `cards serve`'s home-screen icon (RGB).
public enum PNGFile {
    /// An 8-bit RGB PNG of `width` × `height` pixels from `pixels` (3 bytes a pixel, row by row; missing
    /// bytes are black).
    public static func rgb(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
        encode(width: width, height: height, channels: 3, colourType: 2, pixels: pixels)
    }

    /// An 8-bit greyscale PNG of `width` × `height` pixels from `pixels` (a byte a pixel, row by row;
    /// missing bytes are black).
    public static func grey(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
        encode(width: width, height: height, channels: 1, colourType: 0, pixels: pixels)
    }

    private static func encode(width: Int, height: Int, channels: Int, colourType: UInt8, pixels: [UInt8])
        -> [UInt8]
    {
        let width = max(1, width)
        let height = max(1, height)
        let rowBytes = width * channels
        var raw: [UInt8] = []
        raw.reserveCapacity((rowBytes + 1) * height)
        for row in 0..<height {
            raw.append(0)  // filter type None
            let start = row * rowBytes
            for index in start..<start + rowBytes { raw.append(index < pixels.count ? pixels[index] : 0) }
        }
        var header: [UInt8] = []
        for value in [UInt32(width), UInt32(height)] { header += bigEndian(value) }
        header += [8, colourType, 0, 0, 0]  // 8 bits a channel, the colour type, deflate, no filters, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
            + chunk("IDAT", PNGDeflate.stored(raw)) + chunk("IEND", [])
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(PNGDeflate.crc32(typed))
    }
}
