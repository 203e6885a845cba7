import SwipeEngine
import Testing

@Suite("Scripted drags: parser and runner")
struct DragScriptTests {
    @Test func parsesSamplesAndRelease() throws {
        let script = try DragScript.parse("0:0,0   0.1:-50.5,2\t0.2:-130,4e0", grab: SwipeVector(x: 10, y: 400))
        #expect(script.samples.count == 3)
        #expect(script.samples[1] == SwipeSample(time: 0.1, x: -50.5, y: 2))
        #expect(script.samples[0].location == SwipeVector(x: 10, y: 400))
        #expect(script.samples[2].location == nil)
        #expect(script.ending == .release)
    }

    @Test("the note a deleting swipe leaves for the store names its reason and preset; a kept card has none")
    func deletionNote() throws {
        let away = SwipeOutcome.run(try DragScript.parse("0:0,0 0.5:-200,0 1:-210,0"), configuration: .row, cardID: "c")
        #expect(away.decision.reasonName == "distance")
        #expect(away.deletionNote == "swipe left, distance, preset row")
        let kept = SwipeOutcome.run(try DragScript.parse("0:0,0 0.5:-20,0 1:-21,0"), configuration: .row, cardID: "c")
        #expect(!kept.deletes && kept.deletionNote == nil)
    }

    @Test func parsesBothCancelForms() throws {
        #expect(try DragScript.parse("0:0,0 0.1:-20,0 cancel").ending == .cancel(time: 0.1))
        #expect(try DragScript.parse("0:0,0 0.1:-20,0 0.15:cancel").ending == .cancel(time: 0.15))
        #expect(try DragScript.parse(tokens: ["0:0,0", "0.3:cancel"]).samples.count == 1)
    }

    @Test func acceptsNonFiniteNumbersForTheEngineToDrop() throws {
        let script = try DragScript.parse("0:0,0 0.1:nan,0 0.2:inf,5 0.3:10,0")
        #expect(script.samples[1].translation.x.isNaN)
        let outcome = SwipeOutcome.run(script, configuration: .classicStack, cardID: "c")
        #expect(outcome.events.filter { if case .sampleDropped = $0 { true } else { false } }.count == 2)
    }

    @Test(arguments: [
        ("", "", 0),
        ("abc", "abc", 1),
        ("0:0,0 0.1:-4o,0", "0.1:-4o,0", 2),
        ("0:0,0 x:1,1", "x:1,1", 2),
        ("0:0", "0:0", 1),
        ("0:0,0,0", "0:0,0,0", 1),
        ("0::0,0", "0::0,0", 1),
        ("0:0,0 0.1:1,", "0.1:1,", 2),
        ("cancel", "cancel", 1),
        ("0:0,0 cancel 0.1:1,1", "cancel", 2),
        ("0:0,0 zz:cancel", "zz:cancel", 2),
        ("0:0,0 0.1:−5,0", "0.1:−5,0", 2),
    ])
    func badTokensAreNamed(_ text: String, _ token: String, _ position: Int) {
        let error = #expect(throws: DragScriptError.self) { try DragScript.parse(text) }
        #expect(error?.token == token)
        #expect(error?.position == position)
        if !token.isEmpty { #expect(error?.message.contains("'\(token)'") == true) }
        #expect(error?.message.contains("T:X,Y") == true)
    }

    @Test func grabParses() throws {
        #expect(try DragScript.parseGrab("150,400") == SwipeVector(x: 150, y: 400))
        let error = #expect(throws: DragScriptError.self) { try DragScript.parseGrab("150") }
        #expect(error?.message.contains("'150'") == true)
        #expect(throws: DragScriptError.self) { try DragScript.parseGrab("nan,1") }
    }

    @Test func runningAScriptGivesTheReleaseFrame() throws {
        let script = try DragScript.parse("0:0,0 0.05:-60,1 0.1:-120,2 0.15:-190,3")
        let outcome = SwipeOutcome.run(script, configuration: .row, cardID: "c")
        #expect(outcome.decision == .commit(.left, .distance))
        #expect(outcome.deletes)
        #expect(outcome.lastFrame.offset == SwipeVector(x: -190, y: 0))
        #expect(outcome.lastFrame.armed)
        #expect(outcome.frames.count == 4)
    }

    @Test func aOneSampleScriptIsATap() throws {
        let outcome = SwipeOutcome.run(try DragScript.parse("0:0,0"), configuration: .stack, cardID: "c")
        #expect(outcome.decision == SwipeDecision.none)
        #expect(!outcome.deletes)
    }

    @Test func aScriptWhoseTouchDownIsDroppedDecidesNothing() throws {
        let outcome = SwipeOutcome.run(try DragScript.parse("nan:0,0 0.1:-300,0"), configuration: .stack, cardID: "c")
        #expect(outcome.decision == SwipeDecision.none)
    }

    @Test func cancelledScriptSnapsBack() throws {
        let script = try DragScript.parse("0:0,0 0.5:-200,0 cancel")
        let outcome = SwipeOutcome.run(script, configuration: .stack, cardID: "c")
        #expect(outcome.decision == .snapBack(.cancelled))
        #expect(!outcome.deletes)
    }

    @Test func programmaticOutcome() throws {
        let outcome = try SwipeOutcome.programmatic(.left, configuration: .classicRow, cardID: "c")
        #expect(outcome.decision == .commit(.left, .programmatic))
        #expect(outcome.deletes)
        #expect(throws: SwipeRefusal.self) { try SwipeOutcome.programmatic(.right, configuration: .row, cardID: "c") }
        #expect(try SwipeOutcome.programmatic(.right, configuration: .stack, cardID: "c").deletes == false)
    }
}
