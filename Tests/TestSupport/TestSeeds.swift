import Foundation

/// Seeds for the property tests, read from the environment so that a printed seed can be replayed.
public enum TestSeeds {
    /// `count` seeds from `first` on, or as many as the environment variable `variable` asks for.
    public static func list(_ variable: String, count: Int, from first: UInt64) -> [UInt64] {
        let asked = ProcessInfo.processInfo.environment[variable].flatMap(Int.init).map { max($0, 0) } ?? count
        return (0..<UInt64(asked)).map { first + $0 }
    }

    /// The seed the environment variable `variable` gives, else a random one (the test prints it).
    public static func one(_ variable: String) -> UInt64 {
        ProcessInfo.processInfo.environment[variable].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
    }
}
