import Glibc

// cards-fuzz: a seeded generator that feeds mutated inputs to the parsers and the merge driver and
// checks what must hold for each (see Targets.swift). Reproducible: the same seed gives the same inputs.
//   cards-fuzz [--count N] [--seed S] [--json] [TARGET...]     (targets: json card args drag input merge driver)
var count = 100_000
var seed = UInt64(time(nil)) &* 0x9E37_79B9_7F4A_7C15 | 1
var names: [String] = []
var json = false
var arguments = CommandLine.arguments.dropFirst()
while let word = arguments.first {
    arguments = arguments.dropFirst()
    switch word {
    case "--count":
        count = arguments.first.flatMap { Int($0) } ?? count
        arguments = arguments.dropFirst()
    case "--seed":
        seed = arguments.first.flatMap { UInt64($0) } ?? seed
        arguments = arguments.dropFirst()
    case "--json":
        json = true
    case "-h", "--help":
        print("usage: cards-fuzz [--count N] [--seed S] [--json] [TARGET...]")
        print("targets: " + Targets.all.map(\.name).joined(separator: " "))
        exit(0)
    default:
        names.append(word)
    }
}
// A closed pipe must not kill us (the driver target prints nothing, but be safe).
signal(SIGPIPE, SIG_IGN)
let chosen = names.isEmpty ? Targets.all : Targets.all.filter { names.contains($0.name) }
if chosen.count != max(names.count, chosen.count) || (!names.isEmpty && chosen.isEmpty) {
    print("cards-fuzz: unknown target in \(names); targets: \(Targets.all.map(\.name))")
    exit(64)
}
var failed = false
var lines: [String] = []
var total = 0
for target in chosen {
    var clock = timespec()
    clock_gettime(CLOCK_MONOTONIC, &clock)
    let start = Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9
    var report = Report()
    // The driver writes three files and runs a command per input: a tenth of the count.
    target.run(target.name == "driver" ? max(count / 10, 1) : count, seed, &report)
    clock_gettime(CLOCK_MONOTONIC, &clock)
    let seconds = Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9 - start
    total += report.inputs
    let rate = seconds > 0 ? Int(Double(report.inputs) / seconds) : 0
    let status = report.failures.isEmpty ? "ok" : "FAILED"
    let name = target.name + String(repeating: " ", count: max(0, 7 - target.name.count))
    let time = String(Double(Int(seconds * 10)) / 10)
    print(
        "\(name) \(status): \(report.inputs) inputs (\(report.accepted) accepted) in \(time) s, \(rate)/s: "
            + target.summary)
    for failure in report.failures { print("  \(failure)") }
    if !report.failures.isEmpty { failed = true }
    lines.append(
        "\"\(target.name)\": {\"inputs\": \(report.inputs), \"accepted\": \(report.accepted), \"failures\": \(report.failures.count)}"
    )
}
print("cards-fuzz: \(total) inputs, seed \(seed), \(failed ? "FAILURES (replay with --seed \(seed))" : "no failures")")
if json { print("FUZZ {\"seed\": \"\(seed)\", \"total\": \(total), " + lines.joined(separator: ", ") + "}") }
exit(failed ? 1 : 0)
