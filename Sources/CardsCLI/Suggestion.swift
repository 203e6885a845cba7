/// "Did you mean …?" for a mistyped command or option, as git does for its commands.
enum Suggestion {
    /// The one candidate closest to `typed` (at most two edits away, and fewer edits than `typed` has
    /// characters), or nil when none is that close or two are equally close.
    static func closest(to typed: String, among candidates: [String]) -> String? {
        let typedCharacters = Array(typed)
        var best: (name: String, distance: Int)?
        var tied = false
        for candidate in Set(candidates) {
            let distance = editDistance(typedCharacters, Array(candidate))
            guard distance <= 2, distance < typedCharacters.count else { continue }
            if let current = best, distance > current.distance { continue }
            tied = best?.distance == distance
            best = (candidate, distance)
        }
        return tied ? nil : best?.name
    }

    /// " (did you mean 'X'?)" when `typed` is a synonym of X (`rm` for `delete`) or one candidate is
    /// close to it, else nothing: to follow the quoted name in an error.
    static func hint(for typed: String, among candidates: [String], synonyms: [String: String] = [:]) -> String {
        guard let suggestion = synonyms[typed] ?? closest(to: typed, among: candidates) else { return "" }
        return " (did you mean '\(suggestion)'?)"
    }

    /// Insertions, deletions, substitutions and swaps of two neighbours (a common typo: `lsit`) that
    /// turn `a` into `b` (optimal string alignment distance).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = a[i - 1] == b[j - 1] ? 0 : 1
                var distance = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    distance = min(distance, beforePrevious[j - 2] + 1)
                }
                current[j] = distance
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
