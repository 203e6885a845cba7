import Glibc
import Testing

@testable import TerminalUI

@Suite("Session runner without a terminal")
struct RunnerTests {
    @Test func refusesAPipeAndPointsToTheScriptedForm() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        var deck = MemoryDeck(count: 1)
        let error = #expect(throws: TerminalError.self) {
            try SwipeSessionRunner.run(deck: &deck, input: fds[0], output: fds[1])
        }
        #expect(error?.code == .notATerminal)
        #expect(error?.message.contains("cards swipe ID --drag") == true)
        #expect(error?.message.contains("--left | --right") == true)
    }

    @Test func modesAreEnteredAndLeftSymmetrically() {
        #expect(TerminalModes.enableMouse.contains("1000h") && TerminalModes.enableMouse.contains("1002h"))
        #expect(TerminalModes.enableMouse.contains("1006h"))
        #expect(TerminalModes.leaveAll.contains("?1049l") && TerminalModes.leaveAll.contains("?25h"))
        #expect(TerminalModes.leaveAll.contains("1000l"))
    }
}
