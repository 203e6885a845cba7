import SwipeEngine
import Testing

@Suite("The --json decision object")
struct JSONOutputTests {
    @Test func rowCommitMatchesTheSpecShape() throws {
        let tokens = (0...10).map { i in "\(Double(i) / 100):\(-19 * i),0" }
        let outcome = SwipeOutcome.run(try DragScript.parse(tokens: tokens), configuration: .row, cardID: "abc")
        #expect(
            outcome.json(cardID: "abc", deleted: true)
                == #"{"id": "abc", "preset": "row", "decision": "commit", "direction": "left", "reason": "distance", "#
                + #""offset": [-190, 0], "rotation": 0, "progress": 1, "armed": true, "velocity": [-1900, 0], "#
                + #""deleted": true}"#)
    }

    @Test func nullsWhereDirectionAndReasonDoNotApply() throws {
        let rejected = SwipeOutcome.run(try DragScript.parse("0:0,0 0.1:0,-100"), configuration: .row, cardID: "r")
        #expect(
            rejected.json(cardID: "r", deleted: false).contains(
                #""decision": "rejected", "direction": null, "reason": null"#))
        let snap = SwipeOutcome.run(try DragScript.parse("0:0,0 1:-40,0"), configuration: .stack, cardID: "s")
        let json = snap.json(cardID: "s", deleted: false)
        #expect(json.contains(#""decision": "snapBack", "direction": null, "reason": "belowThreshold""#))
        #expect(json.contains(#""progress": 0.333"#))
        #expect(json.hasSuffix(#""deleted": false}"#))
    }

    @Test func keysComeInTheSpecOrder() throws {
        let json = try SwipeOutcome.programmatic(.left, configuration: .stack, cardID: "p").json(
            cardID: "p", deleted: true)
        let keys = [
            "id", "preset", "decision", "direction", "reason", "offset", "rotation", "progress", "armed",
            "velocity", "deleted",
        ]
        var position = json.startIndex
        for key in keys {
            let range = json[position...].firstRange(of: "\"\(key)\": ")
            #expect(range != nil, "\(key) missing or out of order in \(json)")
            if let range { position = range.upperBound }
        }
        #expect(json.contains(#""reason": "programmatic""#))
    }

    @Test(arguments: [
        (-190.0000001, "-190"), (380.2, "380.2"), (-380.2, "-380.2"), (0.0005, "0.001"), (-0.0004, "0"),
        (-0.0, "0"), (1.23456, "1.235"), (-0.5, "-0.5"), (0.1 + 0.2, "0.3"), (12.05, "12.05"), (1e20, "1e+20"),
        (Double.nan, "0"), (Double.infinity, "0"), (7, "7"), (-2.007, "-2.007"),
    ])
    func numbersAreSane(_ value: Double, _ text: String) {
        #expect(JSONText.number(value) == text)
    }

    @Test func stringsAreEscaped() {
        #expect(JSONText.string("a\"b\\c\nd\u{1}é") == #""a\"b\\c\nd\u0001é""#)
    }
}
