/// libFuzzer entry: compiled into one module with Sources/CardModel (see build.sh), so no import.
/// Property: whatever parses re-encodes canonically and reads back equal; a decoded card round-trips.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let value = try? JSONValue.parse(bytes) {
        let canonical = value.canonicalBytes()
        guard let again = try? JSONValue.parse(canonical, maxDepth: 1_000), again == value,
            again.canonicalBytes() == canonical
        else { fatalError("canonical round trip broke") }
    }
    if let card = try? Card.decode(bytes) {
        guard let again = try? Card.decode(card.encoded(), expectedID: card.id), again == card else {
            fatalError("card round trip broke")
        }
    }
    return 0
}
