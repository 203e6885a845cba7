import Glibc
import Testing

@testable import TerminalUI

/// Runs the real session runner on a pseudo-terminal: raw mode in, keys typed ahead, the exact original termios
/// back afterwards.
@Suite("Session runner on a pseudo-terminal")
struct PseudoTerminalTests {
    struct PTY {
        var master: Int32
        var slave: Int32
    }

    static func openPTY(columns: UInt16, rows: UInt16) -> PTY? {
        // posix_openpt/grantpt/unlockpt are hidden behind _XOPEN_SOURCE in Swift's Glibc; the Linux ioctls are
        // what they do anyway (the request numbers are the generic _IOR/_IOW encodings).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard master >= 0 else { return nil }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        let setLock: UInt = 0x4004_5431  // TIOCSPTLCK
        let getNumber: UInt = 0x8004_5430  // TIOCGPTN
        guard ioctl(master, setLock, &unlock) == 0, ioctl(master, getNumber, &number) == 0 else {
            close(master)
            return nil
        }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard slave >= 0 else { return nil }
        var window = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &window)
        return PTY(master: master, slave: slave)
    }

    static func same(_ a: termios, _ b: termios) -> Bool {
        var a = a
        var b = b
        return memcmp(&a, &b, MemoryLayout<termios>.size) == 0
    }

    @Test func typedAheadKeysDeleteAndTheTerminalIsRestoredExactly() throws {
        guard let pty = Self.openPTY(columns: 60, rows: 16) else {
            Issue.record("no pseudo-terminal available")
            return
        }
        defer {
            close(pty.slave)
            close(pty.master)
        }
        var before = termios()
        #expect(tcgetattr(pty.slave, &before) == 0)
        #expect(RawTerminal.size(of: pty.slave) == TerminalSize(columns: 60, rows: 16))
        // Six presses of ←, Enter to release, q to quit: typed before the session starts.
        let keys = Array(String(repeating: "\u{1B}[D", count: 6).utf8) + [0x0D] + Array("q".utf8)
        #expect(write(pty.master, keys, keys.count) == keys.count)

        var deck = MemoryDeck(count: 2)
        try SwipeSessionRunner.run(deck: &deck, input: pty.slave, output: pty.slave)

        #expect(deck.deleted == ["id-1"])
        var after = termios()
        #expect(tcgetattr(pty.slave, &after) == 0)
        #expect(Self.same(before, after))
        // A pty hands its output over in chunks: read until nothing is left, not just once.
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var collected: [UInt8] = []
        _ = fcntl(pty.master, F_SETFL, O_NONBLOCK)
        while true {
            let count = read(pty.master, &buffer, buffer.count)
            if count > 0 {
                collected += buffer.prefix(count)
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        let output = String(decoding: collected, as: UTF8.self)
        #expect(output.contains(TerminalModes.enterAlternateScreen))
        #expect(output.contains(TerminalModes.enableMouse))
        #expect(output.contains("Card 1"))
        #expect(output.hasSuffix(TerminalModes.leaveAll))
    }

    @Test("a terminal of 65,535 × 65,535 is drawn in a bounded part of it: a frame renders without a huge allocation")
    func hugeTerminalIsBounded() throws {
        let pty = try #require(Self.openPTY(columns: 65_535, rows: 65_535))
        defer {
            close(pty.slave)
            close(pty.master)
        }
        let size = try #require(RawTerminal.size(of: pty.slave))
        #expect(size.columns <= RawTerminal.largestSize.columns && size.rows <= RawTerminal.largestSize.rows)
        let session = SwipeSession(deck: MemoryDeck(count: 2), configuration: .stack, size: size)
        #expect(session.render().text.contains("Card 1"))
    }
}
