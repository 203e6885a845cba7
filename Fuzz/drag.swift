/// libFuzzer entry: compiled into one module with Sources/SwipeEngine (see build.sh), so no import.
/// Property: a parsed drag runs through the engine on every preset, the same way twice.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDrag(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let script = try? DragScript.parse(text) else { return 0 }
    for configuration in SwipeConfiguration.presets {
        let first = SwipeOutcome.run(script, configuration: configuration, cardSize: nil, cardID: "card")
        let second = SwipeOutcome.run(script, configuration: configuration, cardSize: nil, cardID: "card")
        if first != second { fatalError("the same drag decided differently") }
    }
    return 0
}
