/// The swipes a session can take back, newest last (rule 10).
///
/// Undo re-inserts the card where it was, and the card comes back from the side it left: an entry remembers the
/// index and the direction, and `entryOffset` says where the returning card starts its animation.
public struct SwipeUndoHistory: Equatable, Sendable {
    /// One swipe that can be taken back.
    public struct Entry: Equatable, Sendable {
        /// The card that left.
        public var cardID: String
        /// Its index in the deck before it left: undo puts it back there.
        public var index: Int
        /// The side it left by: it comes back from there.
        public var direction: SwipeDirection
        /// Whether the store deleted it (a left commit); a kept card only needs to be shown again.
        public var deleted: Bool

        /// Creates an entry.
        public init(cardID: String, index: Int, direction: SwipeDirection, deleted: Bool) {
            self.cardID = cardID
            self.index = index
            self.direction = direction
            self.deleted = deleted
        }

        /// The offset and rotation a returning card starts from: off the side it left by, as far as the preset's
        /// exit sends it (a card removed in place comes back from one width away).
        public func entryOffset(configuration: SwipeConfiguration, cardSize: SwipeSize? = nil) -> (
            offset: SwipeVector, rotation: Double
        ) {
            let gesture = SwipeGesture(configuration: configuration, cardSize: cardSize, cardID: cardID)
            let width = gesture.cardSize.isUsable ? gesture.cardSize.width : 0
            var target = gesture.exitHint(direction: direction, velocity: .zero)
            if target.targetOffset == .zero {
                target.targetOffset = SwipeVector(x: direction.sign * width, y: 0)
            }
            return (target.targetOffset, target.targetRotation)
        }
    }

    /// The entries, oldest first.
    public private(set) var entries: [Entry] = []
    /// At most this many entries are kept; the oldest go first.
    public var limit: Int

    /// Creates an empty history.
    public init(limit: Int = 100) {
        self.limit = max(1, limit)
    }

    /// Whether there is a swipe to take back.
    public var canUndo: Bool { !entries.isEmpty }

    /// The swipe `undo` would take back.
    public var last: Entry? { entries.last }

    /// Remembers a swipe.
    public mutating func record(_ entry: Entry) {
        entries.append(entry)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
    }

    /// Takes the newest swipe off the history.
    public mutating func popLast() -> Entry? { entries.popLast() }
}
