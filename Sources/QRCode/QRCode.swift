import CQREncode

/// QR codes for sharing a card or the deck's page: encoded by libqrencode (loaded on first use, see
/// `CQREncode`), drawn here for a terminal, as SVG and as PNG.
///
///     let matrix = try QRCode.encode("https://github.com/ada")
///     print(matrix.terminalText(style: .ansi))
public enum QRCode {
    /// Encodes `text`'s UTF-8 bytes in the smallest QR code that holds them at `correction`.
    ///
    /// - Throws: `QRCodeError` when libqrencode is missing, or the text is empty or too long for a QR
    ///   code (about 2,300 bytes at `.medium`).
    public static func encode(_ text: String, correction: QRErrorCorrection = .medium) throws(QRCodeError)
        -> QRMatrix
    {
        var bytes = Array(text.utf8)
        if bytes.isEmpty { throw QRCodeError(kind: .empty) }
        if bytes.count > QRCodeError.largestByteCount { throw QRCodeError(kind: .tooLong(bytes: bytes.count)) }
        var width: Int32 = 0
        var errorNumber: Int32 = 0
        let modules = bytes.withUnsafeMutableBufferPointer { buffer in
            cards_qr_encode(buffer.baseAddress, Int32(buffer.count), correction.rawValue, &width, &errorNumber)
        }
        guard let modules else {
            switch errorNumber {
            case ENOENT_:
                let reason = cards_qr_load_error().map { String(cString: $0) } ?? "not found"
                throw QRCodeError(kind: .libraryMissing(reason: reason))
            case ERANGE_: throw QRCodeError(kind: .tooLong(bytes: bytes.count))
            default: throw QRCodeError(kind: .failed(errorNumber: errorNumber))
            }
        }
        defer { cards_qr_free(modules) }
        let side = Int(width)
        let dark = UnsafeBufferPointer(start: modules, count: side * side).map { $0 != 0 }
        return QRMatrix(width: side, modules: dark)
    }

    /// Whether QR codes can be made here (libqrencode.so.4 loads), without encoding anything.
    public static var isAvailable: Bool { cards_qr_available() != 0 }
}

// errno values, spelled here so this module needs no Glibc import for three constants.
private let ENOENT_: Int32 = 2
private let ERANGE_: Int32 = 34

/// How much of a QR code may be damaged and still read (ISO/IEC 18004's levels).
public enum QRErrorCorrection: Int32, Sendable, CaseIterable {
    /// About 7 % of the code may be lost.
    case low = 0
    /// About 15 %: the usual choice for a screen.
    case medium = 1
    /// About 25 %.
    case quartile = 2
    /// About 30 %: for print that may be scratched.
    case high = 3
}

/// Why a QR code could not be made.
public struct QRCodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The cases of failure.
    public enum Kind: Sendable, Equatable {
        /// libqrencode.so.4 could not be loaded; `reason` is the loader's message.
        case libraryMissing(reason: String)
        /// Nothing to encode.
        case empty
        /// More bytes than the largest QR code holds.
        case tooLong(bytes: Int)
        /// libqrencode failed with this errno.
        case failed(errorNumber: Int32)
    }

    /// What went wrong.
    public let kind: Kind

    /// An error of the given kind.
    public init(kind: Kind) { self.kind = kind }

    /// The largest byte count a version-40 code holds at the lowest correction level.
    static let largestByteCount = 2953

    /// The message for a person: what failed and what to do.
    public var description: String {
        switch kind {
        case .libraryMissing(let reason):
            "QR codes need libqrencode, which could not be loaded (\(reason)): install it with "
                + "`apt-get install libqrencode4`"
        case .empty: "there is nothing to put in a QR code"
        case .tooLong(let bytes):
            "\(bytes) bytes are too many for a QR code (at most about 2,300 at the usual error correction): "
                + "share a link to them instead"
        case .failed(let errorNumber): "libqrencode could not make the QR code (errno \(errorNumber))"
        }
    }
}
