import SwipeEngine
import TestSupport
import Testing

@testable import TerminalUI

@Suite("Interactive swipe session (model only)")
struct SwipeSessionTests {
    static let size = TerminalSize(columns: 80, rows: 24)

    static func session(_ count: Int = 3, preset: SwipeConfiguration = .stack) -> SwipeSession<MemoryDeck> {
        SwipeSession(deck: MemoryDeck(count: count), configuration: preset, size: size)
    }

    static func layout(_ s: SwipeSession<MemoryDeck>) throws -> SessionLayout {
        try #require(SessionLayout(size: s.size, cardSize: s.cardSize))
    }

    /// Presses the left button at the card's centre, drags `columns` sideways one column per 20 ms (slow: no
    /// fling), and returns the session before the release plus the release point.
    static func drag(
        _ s: inout SwipeSession<MemoryDeck>, columns: Int, start: Double = 0
    ) throws -> (column: Int, row: Int, time: Double) {
        let l = try layout(s)
        let column = l.left + l.columns / 2
        let row = l.top + 2
        var time = start
        s.handle(.mouse(MouseEvent(kind: .press, button: .left, column: column, row: row)), at: time)
        let step = columns < 0 ? -1 : 1
        for k in 1...abs(columns) {
            time += 0.02
            s.handle(.mouse(MouseEvent(kind: .drag, button: .left, column: column + k * step, row: row)), at: time)
        }
        return (column + columns, row, time)
    }

    static func release(_ s: inout SwipeSession<MemoryDeck>, at point: (column: Int, row: Int, time: Double)) {
        s.handle(
            .mouse(MouseEvent(kind: .release, button: .left, column: point.column, row: point.row)), at: point.time)
    }

    static func settle(_ s: inout SwipeSession<MemoryDeck>, from time: Double) -> Double {
        var t = time
        for _ in 0..<40 where s.isAnimating {
            t += 0.016
            s.tick(at: t)
        }
        #expect(!s.isAnimating)
        return t
    }

    /// Cells whose background is the "release to delete" red.
    static func redCells(_ grid: ScreenGrid) -> Int {
        grid.cells.filter { $0.style.background == .alarm }.count
    }

    @Test func showsTheTopCardWithItsFieldsAndThePosition() {
        let s = Self.session()
        let text = s.render().text
        #expect(text.contains("Card 1"))
        #expect(text.contains("Platform 1"))
        #expect(text.contains("icon: icon1"))
        #expect(text.contains("https://example.com/1"))
        #expect(text.contains("1/3"))
        #expect(!text.contains("release to delete"))
    }

    @Test func dragLeftPastTheThresholdArmsDeletesAndUndoRestores() throws {
        var s = Self.session()
        let point = try Self.drag(&s, columns: -24)
        #expect(s.isArmed)
        let armed = s.render()
        #expect(armed.text.contains("release to delete"))
        // On the card itself (its second-to-last row), not only in the status line.
        let l = try Self.layout(s)
        #expect(armed.lines[l.top + l.rows - 2].contains("release to delete"))
        #expect(Self.redCells(armed) > 50)
        Self.release(&s, at: point)
        #expect(s.deck.deleted == ["id-1"])
        #expect(s.isAnimating)
        // The card flies out over a few frames, then the next card is on top.
        let t = Self.settle(&s, from: point.time)
        let after = s.render().text
        #expect(after.contains("Card 2"))
        #expect(after.contains("1/2"))
        #expect(after.contains("deleted “Card 1”"))
        // u brings it back at its place, coming in from the left.
        s.handle(.key(.character("u")), at: t + 0.1)
        #expect(s.deck.restored.map(\.0) == ["id-1"])
        #expect(s.deck.restored.map(\.1) == [0])
        #expect(s.deck.cards.map(\.id) == ["id-1", "id-2", "id-3"])
        #expect(s.topCard?.id == "id-1")
        s.tick(at: t + 0.12)
        let returning = s.render()
        // Early in the return animation the card is still off to the left of its resting place.
        #expect(!returning.lines[l.top + 1].contains("Card 1") || s.isAnimating)
        _ = Self.settle(&s, from: t + 0.12)
        #expect(s.render().text.contains("Card 1"))
        #expect(s.render().text.contains("undid delete of “Card 1”"))
    }

    @Test func aShortDragSpringsBackAndDeletesNothing() throws {
        var s = Self.session()
        let point = try Self.drag(&s, columns: -6)
        #expect(!s.isArmed)
        #expect(!s.render().text.contains("release to delete"))
        Self.release(&s, at: point)
        #expect(s.deck.deleted.isEmpty)
        #expect(s.lastAction.contains("snapped back"))
        _ = Self.settle(&s, from: point.time)
        #expect(s.topCard?.id == "id-1")
        #expect(s.render().text.contains("1/3"))
    }

    @Test func rightSwipeKeepsTheCardAndAdvances() throws {
        var s = Self.session()
        let point = try Self.drag(&s, columns: 24)
        #expect(s.render().text.contains("release to keep"))
        Self.release(&s, at: point)
        #expect(s.deck.deleted.isEmpty)
        #expect(s.deck.cards.count == 3)
        #expect(s.topCard?.id == "id-2")
        let t = Self.settle(&s, from: point.time)
        #expect(s.render().text.contains("2/3"))
        #expect(s.lastAction == "kept “Card 1”")
        s.handle(.key(.character("u")), at: t)
        #expect(s.topCard?.id == "id-1")
        #expect(s.deck.restored.isEmpty)
    }

    @Test func cardLeansWhileDragged() throws {
        var s = Self.session()
        _ = try Self.drag(&s, columns: 20)
        let l = try Self.layout(s)
        let lines = s.render().lines
        // A lean is a shear: the top and bottom borders no longer start in the same column.
        let top = lines[l.top].firstIndex(of: "╭")
        let bottom = lines[l.top + l.rows - 1].firstIndex(of: "╰")
        #expect(top != nil && bottom != nil)
        if let top, let bottom {
            #expect(
                lines[l.top].distance(from: lines[l.top].startIndex, to: top)
                    != lines[l.top + l.rows - 1].distance(from: lines[l.top + l.rows - 1].startIndex, to: bottom))
        }
    }

    @Test func arrowKeysDragAndEnterReleases() {
        var s = Self.session()
        var t = 0.0
        for _ in 0..<6 {
            s.handle(.key(.left), at: t)
            t += 0.1  // repeated within the window: each press moves further
        }
        #expect(s.isDragging)
        #expect(s.isArmed)
        s.handle(.key(.enter), at: t + 0.5)
        #expect(s.deck.deleted == ["id-1"])
    }

    @Test(
        "a held arrow key takes the card past the threshold but never further than its width; the other key brings it back"
    )
    func heldArrowKeyStopsAtTheCardsWidth() throws {
        var s = Self.session()
        var t = 0.0
        for _ in 0..<30 {
            s.handle(.key(.left), at: t)
            t += 0.04  // a key repeat
        }
        let width = s.cardSize.width
        let offset = try #require(s.frame?.offset.x)
        #expect(offset == -width, "the card went \(offset) points for a card \(width) wide")
        #expect(s.isArmed)
        // Back from there in a few presses, not dozens.
        var presses = 0
        while s.isArmed && presses < 30 {
            s.handle(.key(.right), at: t)
            t += 0.04
            presses += 1
        }
        #expect(!s.isArmed && presses <= 12, "\(presses) presses to disarm")
    }

    @Test func aSingleArrowPressAndSpaceSpringsBack() {
        var s = Self.session()
        s.handle(.key(.right), at: 0)
        s.handle(.key(.space), at: 1)
        #expect(s.deck.deleted.isEmpty)
        #expect(s.topCard?.id == "id-1")
        #expect(!s.isDragging)
    }

    @Test(arguments: [InputEvent.key(.character("q")), .key(.escape), .key(.ctrlC)])
    func quitKeysFinishWithoutDeleting(_ event: InputEvent) throws {
        var s = Self.session()
        _ = try Self.drag(&s, columns: -24)
        s.handle(event, at: 5)
        #expect(s.isFinished)
        #expect(s.deck.deleted.isEmpty)
    }

    @Test func aFailedDeleteKeepsTheCardAndSaysWhy() throws {
        var s = SwipeSession(deck: MemoryDeck(count: 2), size: Self.size)
        var deck = s.deck
        deck.failDeletes = true
        s = SwipeSession(deck: deck, size: Self.size)
        let point = try Self.drag(&s, columns: -24)
        Self.release(&s, at: point)
        #expect(s.topCard?.id == "id-1")
        #expect(s.lastAction.contains("disk on fire"))
        #expect(!s.history.canUndo)
    }

    @Test("a failed delete's long reason is shown whole on the bottom lines, the help line giving way")
    func aLongFailureIsShownWhole() throws {
        var deck = MemoryDeck(count: 2)
        deck.failDeletes = true
        deck.failure =
            "the deck is locked by process 4242 (lock file /home/someone/cards/.git/cards.lock) for more than 2 s; "
            + "wait for it to finish, or stop that process"
        var s = SwipeSession(deck: deck, size: Self.size)
        let point = try Self.drag(&s, columns: -24)
        Self.release(&s, at: point)
        _ = Self.settle(&s, from: point.time)
        let lines = s.render().text.split(separator: "\n", omittingEmptySubsequences: false)
        let bottom = lines.suffix(s.statusLines).flatMap { $0.split(separator: " ") }.joined(separator: " ")
        #expect(bottom.contains("wait for it to finish, or stop that process"), "\(bottom)")
        #expect(bottom.contains("could not delete"), "\(bottom)")
        #expect(!s.render().text.contains("u undo · q quit"))
        // The card stack is left whole: the status lines start below it.
        let stackRows = lines.prefix(lines.count - s.statusLines)
        #expect(stackRows.contains { $0.contains("Card 1") } && stackRows.contains { $0.contains("╰") }, "\(lines)")
        // The next action brings the help line back.
        s.handle(.key(.character("u")), at: 10)
        #expect(s.render().text.contains("u undo · q quit"))
    }

    @Test("on a narrow terminal a long ordinary status is cut and the keys' help stays in view")
    func narrowTerminalKeepsTheHelp() throws {
        var s = SwipeSession(deck: MemoryDeck(count: 3), size: TerminalSize(columns: 40, rows: 11))
        // The opening hint is longer than 40 columns: cut, with the help line above it.
        let opening = s.render().text
        #expect(opening.contains("←/→ or drag") && opening.contains("…"), "\(opening)")
        let point = try Self.drag(&s, columns: -24)
        Self.release(&s, at: point)
        _ = Self.settle(&s, from: point.time)
        #expect(s.lastAction.hasPrefix("deleted"))
        let text = s.render().text
        #expect(text.contains("←/→ or drag") && text.contains("deleted"), "\(text)")
    }

    @Test("a line split where it reaches a width: the part fits, the rest follows, at a space when one is near")
    func splitLines() {
        var random = SplitMix64(seed: 3)
        let alphabet = Array("ab cd  éf😀中 e\u{301}\u{200B}")
        for round in 0..<2_000 {
            let text = String(
                (0..<Int.random(in: 0...60, using: &random)).map { _ in
                    alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                })
            let columns = Int.random(in: 1...30, using: &random)
            let (line, rest) = ScreenGrid.split(text, atColumns: columns)
            #expect(ScreenGrid.width(of: line) <= columns, "round \(round)")
            #expect(text.hasPrefix(line), "round \(round)")
            #expect(String(text.dropFirst(line.count).drop { $0 == " " }) == rest, "round \(round)")
            if ScreenGrid.width(of: text) <= columns { #expect(line == text && rest.isEmpty, "round \(round)") }
            if !text.isEmpty && columns >= 2 { #expect(!line.isEmpty || text.first == " ", "round \(round)") }
            // Cut short of the width only at a space in the line's second half; else as full as it goes.
            if !rest.isEmpty {
                let next = text[text.index(text.startIndex, offsetBy: line.count)]
                let full = ScreenGrid.width(of: line + String(next)) > columns
                let atSpace = next == " " && ScreenGrid.width(of: line) * 2 >= columns
                #expect(full || atSpace, "round \(round): \(line.debugDescription) | \(rest.debugDescription)")
            }
        }
    }

    @Test("a short terminal (10 to 13 rows) still shows the top card's title, and its link where it fits")
    func shortTerminalsShowTheTitle() {
        for rows in 10...13 {
            let s = SwipeSession(deck: MemoryDeck(count: 3), size: TerminalSize(columns: 60, rows: rows))
            let text = s.render().text
            #expect(text.contains("Card 1"), "\(rows) rows: \(text)")
            if rows >= 11 { #expect(text.contains("https://example.com/1"), "\(rows) rows: \(text)") }
        }
    }

    @Test func emptyDeckAndEndOfDeck() throws {
        var s = Self.session(1)
        let point = try Self.drag(&s, columns: 24)
        Self.release(&s, at: point)
        _ = Self.settle(&s, from: point.time)
        #expect(s.render().text.contains("No more cards."))
        #expect(s.positionText == "end/1", "\(s.positionText)")
        var empty = SwipeSession(deck: MemoryDeck(count: 1), size: Self.size)
        empty.handle(.key(.character("u")), at: 0)
        #expect(empty.lastAction == "nothing to undo")
    }

    @Test func aTerminalTooSmallSaysTheSizeItNeeds() {
        for (columns, rows) in [(30, 8), (20, 12), (12, 5)] {
            let s = SwipeSession(
                deck: MemoryDeck(count: 2), configuration: .stack, size: TerminalSize(columns: columns, rows: rows))
            let lines = s.render().lines
            #expect(lines.contains { $0.contains("needs 24×10,") }, "\(columns)×\(rows): \(lines)")
            #expect(lines.contains { $0.contains("now \(columns)×\(rows).") }, "\(lines)")
            // The preset's name never runs into the header.
            #expect(!lines[0].contains("swipepreset"), "\(lines[0])")
        }
    }

    @Test func resizeRedrawsAtTheNewSize() {
        var s = Self.session()
        s.resize(to: TerminalSize(columns: 40, rows: 14))
        let grid = s.render()
        #expect(grid.size == TerminalSize(columns: 40, rows: 14))
        #expect(grid.text.contains("Card 1"))
        s.resize(to: TerminalSize(columns: 10, rows: 4))
        #expect(s.render().text.contains("Too small"))
    }

    @Test(
        "a resize during a mouse drag cancels it: a release at the new size deletes nothing, nor snaps back an armed card"
    )
    func resizeMidDragCancels() throws {
        // 15 columns left at 80 columns is short of the line; at 30 columns the same cells were past it.
        var s = Self.session()
        let short = try Self.drag(&s, columns: -15)
        #expect(Self.redCells(s.render()) == 0, "not armed before the resize")
        s.resize(to: TerminalSize(columns: 30, rows: 24))
        Self.release(&s, at: short)
        _ = Self.settle(&s, from: short.time + 0.1)
        #expect(s.deck.deleted.isEmpty)
        #expect(s.lastAction.contains("resized"), "\(s.lastAction)")
        // A keyboard drag is in points: a resize leaves it as it was.
        var keys = Self.session()
        var time = 0.0
        for _ in 0..<12 {
            time += 0.03
            keys.handle(.key(.left), at: time)
        }
        keys.resize(to: TerminalSize(columns: 60, rows: 20))
        keys.handle(.key(.enter), at: time + 0.03)
        _ = Self.settle(&keys, from: time + 0.03)
        #expect(keys.deck.deleted.count == 1)
    }

    @Test func classicRowPresetDeletesOnlyToTheLeft() throws {
        var s = Self.session(preset: .classicRow)
        let point = try Self.drag(&s, columns: 20)
        Self.release(&s, at: point)
        #expect(s.topCard?.id == "id-1")
        #expect(s.lastAction.contains("this side does not swipe"))
    }

    @Test("a press while a drag is held (its release lost) cancels that drag: the next click deletes nothing")
    func lostReleaseCancels() throws {
        var s = Self.session()
        let far = try Self.drag(&s, columns: -40)
        #expect(Self.redCells(s.render()) > 0, "armed before the release is lost")
        let l = try Self.layout(s)
        // The release never comes; a click somewhere else follows.
        let corner = (column: l.left + 1, row: l.top + 1, time: far.time + 0.5)
        s.handle(
            .mouse(MouseEvent(kind: .press, button: .left, column: corner.column, row: corner.row)), at: corner.time)
        Self.release(&s, at: corner)
        _ = Self.settle(&s, from: corner.time)
        #expect(s.deck.deleted.isEmpty)
        #expect(s.render().text.contains("Card 1"))
    }

    @Test("on a screen too small to draw the card, keys and clicks swipe nothing, and a drag begun is cancelled")
    func tooSmallSwipesNothing() throws {
        var s = Self.session()
        s.resize(to: TerminalSize(columns: 20, rows: 4))
        var time = 0.0
        for _ in 0..<8 {
            time += 0.03
            s.handle(.key(.left), at: time)
        }
        s.handle(.key(.enter), at: time + 0.03)
        #expect(s.deck.deleted.isEmpty)
        // A drag on a screen big enough, the screen shrunk before the release.
        s.resize(to: Self.size)
        let far = try Self.drag(&s, columns: -40, start: time + 1)
        s.resize(to: TerminalSize(columns: 20, rows: 4))
        Self.release(&s, at: far)
        s.resize(to: Self.size)
        let l = try Self.layout(s)
        Self.release(&s, at: (l.left + 1, l.top + 1, far.time + 0.2))
        _ = Self.settle(&s, from: far.time + 0.2)
        #expect(s.deck.deleted.isEmpty)
    }

    @Test("a delete records the engine's reason: a fast short flick is a fling, a slow long drag a distance")
    func deleteRecordsTheReason() throws {
        var s = Self.session()
        let slow = try Self.drag(&s, columns: -40)
        Self.release(&s, at: slow)
        var time = Self.settle(&s, from: slow.time)
        // A flick: a few columns in a few milliseconds.
        let l = try Self.layout(s)
        let column = l.left + l.columns / 2
        let row = l.top + 2
        time += 1
        s.handle(.mouse(MouseEvent(kind: .press, button: .left, column: column, row: row)), at: time)
        for k in 1...6 {
            time += 0.005
            s.handle(.mouse(MouseEvent(kind: .drag, button: .left, column: column - 2 * k, row: row)), at: time)
        }
        Self.release(&s, at: (column - 12, row, time + 0.005))
        _ = Self.settle(&s, from: time + 0.005)
        #expect(s.deck.reasons == ["distance", "fling"], "\(s.deck.reasons)")
    }

    @Test(
        "a held ← key (repeats 25-45 ms apart, jittered) then Enter within 40 ms deletes by distance, never reads as a fling back"
    )
    func heldKeyThenEnterDeletes() throws {
        for seed in 0..<60 {
            var random = SplitMix64(seed: UInt64(seed))
            var s = Self.session()
            var time = 1.0
            for _ in 0..<8 {
                time += 0.025 + Double(random.next() % 20) / 1000
                s.handle(.key(.left), at: time)
            }
            // Enter up to 39 ms after the last repeat: a still last sample inside the velocity window.
            time += Double(random.next() % 40) / 1000
            s.handle(.key(.enter), at: time)
            _ = Self.settle(&s, from: time)
            #expect(s.deck.deleted == ["id-1"], "seed \(seed): \(s.lastAction)")
            #expect(s.deck.reasons == ["distance"], "seed \(seed)")
        }
    }

    @Test(
        "the deck changed elsewhere (a card deleted, one added) shows up before the next swipe; a swipe on a card deleted meanwhile errs no more"
    )
    func deckChangedElsewhere() throws {
        var s = Self.session()
        s.tick(at: 0)
        // Another process deletes the top card and adds one.
        var cards = s.deck.cards.filter { $0.id != "id-1" }
        cards.append(
            SwipeCardInfo(
                id: "id-9", title: "Card 9", platformName: "P", platformIcon: "p", indexURL: "https://e/9",
                color: "blue"))
        s.deck.changedElsewhere = cards
        s.tick(at: 1.5)
        #expect(s.topCard?.id == "id-2")
        #expect(s.render().text.contains("Card 2"))
        // Deleted elsewhere while this session was about to delete it: no error, the stack moves on.
        let far = try Self.drag(&s, columns: -40, start: 2)
        s.deck.changedElsewhere = s.deck.cards.filter { $0.id != "id-2" }
        s.deck.failDeletes = true
        Self.release(&s, at: far)
        #expect(!s.lastAction.contains("could not"), "\(s.lastAction)")
        #expect(s.deck.cards.map(\.id) == ["id-3", "id-9"])
    }
}
