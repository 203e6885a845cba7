import Foundation
import QRCode
import Testing

/// QR codes made by libqrencode and drawn here, read back by an independent decoder (zbar's `zbarimg`,
/// Debian's zbar-tools) as a phone's camera would.
@Suite("QR codes")
struct QRCodeTests {
    /// Decodes a PNG file with zbarimg and returns the text of the one code in it.
    static func decode(png: [UInt8]) throws -> String {
        guard let zbar = ["/usr/bin/zbarimg", "/bin/zbarimg"].first(where: FileManager.default.isExecutableFile)
        else {
            throw CancellationReason.missing
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("code.png")
        try Data(png).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: zbar)
        process.arguments = ["--quiet", "--raw", "-Sbinary", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "zbarimg found no code")
        return String(decoding: data, as: UTF8.self)
    }

    enum CancellationReason: Error { case missing }

    @Test(
        "a code read back by zbarimg gives the exact text",
        arguments: [
            "https://github.com/ada",
            "mailto:ada@example.com",
            "https://例え.jp/プロフィール?name=Ada%20Lovelace&x=1",
            "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n",
        ])
    func roundTrip(text: String) throws {
        guard QRCode.isAvailable else {
            try Test.cancel("libqrencode.so.4 is not installed (apt-get install libqrencode4)")
        }
        let matrix = try QRCode.encode(text)
        #expect(matrix.width >= 21 && (matrix.width - 17) % 4 == 0, "a QR code's side is 17 + 4 × version")
        let decoded: String
        do {
            decoded = try Self.decode(png: matrix.png(scale: 4))
        } catch CancellationReason.missing {
            try Test.cancel("zbarimg is not installed (apt-get install zbar-tools)")
        }
        #expect(decoded == text)
    }

    @Test("drawings are stable and sized to the matrix")
    func drawings() throws {
        guard QRCode.isAvailable else { try Test.cancel("libqrencode.so.4 is not installed") }
        let matrix = try QRCode.encode("https://example.com/ada")
        #expect(try QRCode.encode("https://example.com/ada") == matrix)
        let lines = matrix.terminalText(style: .darkOnLight, quietZone: 2).split(separator: "\n")
        #expect(lines.count == (matrix.width + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == matrix.width + 4 })
        let svg = matrix.svg()
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg == matrix.svg())
        let png = matrix.png()
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    @Test("empty and oversized input are refused with a reason")
    func refusals() throws {
        guard QRCode.isAvailable else { try Test.cancel("libqrencode.so.4 is not installed") }
        #expect(throws: QRCodeError(kind: .empty)) { try QRCode.encode("") }
        let long = String(repeating: "x", count: 3000)
        #expect(throws: QRCodeError(kind: .tooLong(bytes: 3000))) { try QRCode.encode(long) }
        // Just over what version 40 holds at the highest level: libqrencode itself refuses it.
        let highLimit = String(repeating: "y", count: 1300)
        #expect(throws: QRCodeError(kind: .tooLong(bytes: 1300))) { try QRCode.encode(highLimit, correction: .high) }
    }
}
