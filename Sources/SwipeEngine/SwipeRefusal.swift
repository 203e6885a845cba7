/// Why a programmatic swipe was refused (rule 9).
public struct SwipeRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kind of refusal.
    public var code: Code
    /// What went wrong and what to do.
    public var message: String

    /// The kinds of refusal.
    public enum Code: String, Hashable, Sendable {
        /// A finger is on the card.
        case gestureInFlight
        /// The configuration does not let the card leave by that side.
        case directionNotAllowed
        /// The card already left.
        case alreadyCommitted
        /// The card vanished.
        case invalidated
        /// The card size or the configuration cannot drive a gesture.
        case invalidGeometry
    }

    /// Creates a refusal.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
