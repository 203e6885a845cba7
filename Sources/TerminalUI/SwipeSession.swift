import SwipeEngine

/// The interactive swipe session as a pure state machine: feed it input events with their times, ask it for
/// the screen. No I/O: `SwipeSessionRunner` adds the terminal, tests drive it directly.
///
/// The deck shows as a stack: the top card framed in its colour, the next ones peeking beneath. A mouse drag or
/// ←/→ moves the top card through a `SwipeGesture`; a left commit deletes it through `SwipeDeck`, a right one
/// keeps it and shows the next card; `u` undoes the last swipe; `q`, Esc or Ctrl-C quit.
public struct SwipeSession<Deck: SwipeDeck> {
    /// The deck, with the session's deletes applied.
    public internal(set) var deck: Deck
    /// The gesture parameters (preset `stack` by default).
    public let configuration: SwipeConfiguration
    /// The card size the gestures use.
    public let cardSize: SwipeSize
    /// The terminal size the screen is drawn for.
    public internal(set) var size: TerminalSize
    /// The index in `deck.cards` of the top card; cards before it were kept by right swipes.
    public internal(set) var position = 0
    /// The swipes `u` can take back.
    public internal(set) var history = SwipeUndoHistory()
    /// The last thing that happened, for the status line.
    public internal(set) var lastAction = "drag a card: left deletes, right keeps" {
        didSet { lastActionFailed = false }
    }
    /// Whether `lastAction` says why something failed: such a status is wrapped over the bottom lines
    /// when it is too long for one; any other is cut, and the help line stays.
    var lastActionFailed = false
    /// Whether the user asked to quit.
    public internal(set) var isFinished = false

    /// What a drag in progress is driven by.
    enum Drag: Equatable {
        case mouse(column: Int, row: Int)
        case keyboard(x: Double, lastKeyTime: Double, step: Double)
    }

    var gesture: SwipeGesture?
    var gestureCard: SwipeCardInfo?
    var frame: SwipeFrame?
    var drag: Drag?
    var flying: CardAnimation?
    var settling: CardAnimation?
    var undoCards: [String: SwipeCardInfo] = [:]
    /// Cards whose field conflict this session settled by a number key: their undo reopens the conflict.
    var picked: Set<String> = []
    var now: Double = 0
    /// When the deck was last looked at for changes made elsewhere.
    var lastRefresh = -Double.infinity

    /// Creates a session over a deck.
    public init(deck: Deck, configuration: SwipeConfiguration = .stack, size: TerminalSize) {
        self.deck = deck
        self.configuration = configuration
        self.cardSize = configuration.defaultCardSize
        self.size = size
    }

    /// The card on top of the stack, if any is left.
    public var topCard: SwipeCardInfo? {
        position < deck.cards.count ? deck.cards[position] : nil
    }

    /// Whether an animation is running: the caller should call `tick` soon (about 60 times a second).
    public var isAnimating: Bool { flying != nil || settling != nil }

    /// Whether a drag is in progress (the top card follows the mouse or the arrow keys).
    public var isDragging: Bool { drag != nil }

    /// Whether a release now would commit (the top card shows "release to delete" or "release to keep").
    public var isArmed: Bool { drag != nil && frame?.armed == true }

    /// "3/14": the top card's place in the deck ("end/14" past the last one).
    public var positionText: String {
        let count = deck.cards.count
        // Past the last card (all kept): "end", not the last card's place again.
        return count == 0 ? "0/0" : position >= count ? "end/\(count)" : "\(position + 1)/\(count)"
    }

    /// The terminal was resized. A mouse drag in progress is cancelled: it is measured in cells from
    /// its press, and at another size a cell is another distance, so its release would be judged on a
    /// drag the screen never showed (short of the line, then a delete; armed, then a snap back).
    public mutating func resize(to size: TerminalSize) {
        let changed = size != self.size
        self.size = size
        if changed, case .mouse? = drag { cancelDrag("the terminal was resized; the card went back") }
    }

    /// Advances animations to `time`.
    public mutating func tick(at time: Double) {
        now = max(now, time.isFinite ? time : now)
        if let animation = flying, animation.isDone(at: now) { flying = nil }
        if let animation = settling, animation.isDone(at: now) { settling = nil }
        // Idle: once a second, the deck is read again if something else changed it, so the stack shows
        // what is there before the next swipe (the runner ticks at least that often).
        if drag == nil && flying == nil && settling == nil && now - lastRefresh >= 1 {
            lastRefresh = now
            refreshDeck()
        }
    }

    /// Finishes every animation at once (before an undo, say).
    mutating func completeAnimations() {
        flying = nil
        settling = nil
    }
}
