import CardStore
import DeckServer
import Glibc
import QRCode

/// `cards serve`'s way in: the deck's token (kept, so a phone's cookie and home-screen icon outlive a
/// restart), the addresses it prints, and the QR code of the first.
enum ServeAccess {
    /// The token's file, in the deck's git folder (never in its working tree or its history), readable by
    /// its owner only: another user on this machine must not be able to swipe the deck.
    static func tokenPath(_ gitDirectory: String) -> String { gitDirectory + "/cards-serve-token" }

    /// The deck's token: the one kept in its git folder, else (or with `renew`) a new one, kept there.
    /// When the folder cannot be written, a token for this run only, and a warning.
    static func token(gitDirectory: String, renew: Bool, context: Context) -> String {
        let path = tokenPath(gitDirectory)
        if !renew, let kept = readToken(path) { return kept }
        let token = newToken()
        do {
            // Readable by its owner only, from its creation on.
            try FileSystem.writeAtomically(Array((token + "\n").utf8), to: path, durable: false, mode: 0o600)
        } catch {
            context.output.error(
                "warning: \(error.message); this run's token ends with it, and a phone must scan the new code "
                    + "next time")
        }
        return token
    }

    /// The token kept at `path`, if it is one (48 hex digits) and only its owner can read it.
    static func readToken(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid(),
            info.st_mode & 0o077 == 0
        else { return nil }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first.map(String.init)
        guard let text, text.count == 48, text.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        return text
    }

    /// A secret for the URL: 24 bytes from the system's CSPRNG (getrandom), as hex.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<24).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
        }.joined()
    }

    /// The QR code of `url` for a terminal (`qrStyle`), or a line saying why there is none.
    static func qrText(_ url: String, terminal: Bool) -> String {
        do {
            return try QRCode.encode(url).terminalText(style: qrStyle(terminal: terminal))
        } catch {
            return "(no QR code: \(error))\n"
        }
    }

    /// How a QR code is drawn where it is printed (`cards serve`, `cards qr`): on a terminal, ANSI black on
    /// white, or with `NO_COLOR` set light blocks for a terminal's light text on its dark background; to a
    /// file or a pipe, dark blocks for a light page (print, an editor).
    static func qrStyle(terminal: Bool) -> QRTerminalStyle {
        guard terminal else { return .darkOnLight }
        return getenv("NO_COLOR").map { $0.pointee != 0 } == true ? .lightOnDark : .ansi
    }
}
