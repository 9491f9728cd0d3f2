/// "Did you mean …?" help: the closest candidate to a misspelt name.
enum Suggestions {
    /// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo
    /// (distance at most 2, or a third of the word's length for long words).
    static func closest<S: Sequence>(to word: String, in candidates: S) -> String? where S.Element == String {
        let target = Array(word.utf8)
        let limit = max(2, target.count / 3)
        var best: (String, Int)?
        for candidate in candidates {
            let c = Array(candidate.utf8)
            if abs(c.count - target.count) > limit { continue }
            let d = distance(target, c, cap: best.map { min($0.1 - 1, limit) } ?? limit)
            if d <= limit, best == nil || d < best!.1 { best = (candidate, d) }
        }
        return best?.0
    }

    /// The `" (did you mean 'X'?)"` suffix, or "".
    static func hint(for word: String, in candidates: some Sequence<String>) -> String {
        closest(to: word, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Case-insensitive Levenshtein distance; returns `cap + 1` as soon as it must exceed `cap`.
    static func distance(_ a: [UInt8], _ b: [UInt8], cap: Int) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        func lower(_ x: UInt8) -> UInt8 { (x >= 65 && x <= 90) ? x + 32 : x }
        var previous = Array(0 ... b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1 ... a.count {
            current[0] = i
            var rowMin = i
            for j in 1 ... b.count {
                let cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMin = min(rowMin, current[j])
            }
            if rowMin > cap { return cap + 1 }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
