import SwipeEngine
import Testing

@Suite("Undo history")
struct UndoHistoryTests {
    @Test func undoesNewestFirst() {
        var history = SwipeUndoHistory()
        #expect(!history.canUndo)
        history.record(.init(cardID: "a", index: 0, direction: .left, deleted: true))
        history.record(.init(cardID: "b", index: 0, direction: .right, deleted: false))
        #expect(history.last?.cardID == "b")
        #expect(history.popLast()?.cardID == "b")
        #expect(history.popLast() == .init(cardID: "a", index: 0, direction: .left, deleted: true))
        #expect(history.popLast() == nil)
    }

    @Test func keepsAtMostTheLimit() {
        var history = SwipeUndoHistory(limit: 2)
        for i in 0..<5 { history.record(.init(cardID: "\(i)", index: i, direction: .left, deleted: true)) }
        #expect(history.entries.map(\.cardID) == ["3", "4"])
    }

    @Test(arguments: [
        (SwipeConfiguration.stack, SwipeDirection.left, SwipeVector(x: -600, y: 0), -15.0),
        (.stack, .right, SwipeVector(x: 600, y: 0), 15),
        (.classicStack, .right, SwipeVector(x: 200, y: 10), 5),
        (.classicStack, .left, SwipeVector(x: -200, y: 10), -5),
        (.classicRow, .left, SwipeVector(x: -360, y: 0), 0),
        (.row, .left, SwipeVector(x: -360, y: 0), 0),
    ])
    func aReturningCardComesFromTheSideItLeft(
        _ preset: SwipeConfiguration, _ direction: SwipeDirection, _ offset: SwipeVector, _ rotation: Double
    ) {
        let entry = SwipeUndoHistory.Entry(cardID: "a", index: 3, direction: direction, deleted: direction == .left)
        let start = entry.entryOffset(configuration: preset)
        #expect(start.offset == offset)
        #expect(start.rotation == rotation)
    }
}
