/// libFuzzer entry: compiled into one module with Sources/SwipeEngine and Sources/TerminalUI (see build.sh).
/// Property: the events do not depend on how the bytes are split into reads.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var whole = InputParser()
    let expected = whole.feed(bytes) + whole.flush()
    for chunk in [1, 3, 64] {
        var parser = InputParser()
        var events: [InputEvent] = []
        var offset = 0
        while offset < bytes.count {
            events += parser.feed(bytes[offset..<min(bytes.count, offset + chunk)])
            offset += chunk
        }
        events += parser.flush()
        if events != expected { fatalError("events depend on the split (chunks of \(chunk))") }
    }
    return 0
}
