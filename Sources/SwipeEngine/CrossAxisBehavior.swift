/// How the card moves vertically while dragged.
public enum CrossAxisBehavior: Equatable, Hashable, Sendable {
    /// It follows the finger.
    case free
    /// It sits at this y while dragging (seed 000: 10; rows: 0).
    case fixed(Double)
}
