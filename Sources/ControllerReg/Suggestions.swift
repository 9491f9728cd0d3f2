/// "Did you mean …?" help: the closest candidate to a misspelt name, found in bounded time.
///
/// The work is bounded whatever the input: only candidates whose length is within the cut-off
/// are compared, the edit distance is computed in a band of the cut-off's width (so two
/// 64,000-byte names cost about 64,000 × 17 steps, not 64,000²), and a caller reporting many
/// problems gives a suggestion to the first `maxSuggestedProblems` only.
package enum Suggestions {
    /// The most problems of one call that get a suggestion (the rest are reported without one).
    package static let maxSuggestedProblems = 32
    /// The largest edit distance ever suggested, however long the word.
    package static let maxDistance = 8

    /// The most edits a candidate may be from a word of `length` bytes to be a likely typo: a third
    /// of the length (at least 1), at most `maxDistance`. 'N1' is not a typo of 'M'.
    package static func cutoff(forLength length: Int) -> Int {
        min(max(length, 3) / 3, maxDistance)
    }

    /// The candidate closest to `word` (case-insensitive edit distance with transpositions, within
    /// the cut-off), or nil. `excluding` is never offered (e.g. the entry that holds the reference).
    /// Ties go to the candidate whose length is nearer, then to the first one.
    package static func closest(to word: String, in candidates: some Sequence<String>, excluding: String? = nil) -> String? {
        let target = Array(word.utf8)
        let limit = cutoff(forLength: target.count)
        var best: (name: String, distance: Int, lengthGap: Int)?
        for candidate in candidates {
            let length = candidate.utf8.count
            let gap = abs(length - target.count)
            if gap > limit || candidate == word || candidate == excluding { continue }
            let cap = best.map { min($0.distance, limit) } ?? limit
            if gap > cap { continue }
            let d = distance(target, Array(candidate.utf8), cap: cap)
            if d > cap { continue }
            if let b = best, d == b.distance && gap >= b.lengthGap { continue }
            best = (candidate, d, gap)
        }
        return best?.name
    }

    /// The `" (did you mean 'X'?)"` suffix for a suggestion, or "".
    package static func hint(_ suggestion: String?) -> String {
        suggestion.map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// The `" (did you mean 'X'?)"` suffix for the closest candidate, or "".
    package static func hint(for word: String, in candidates: some Sequence<String>, excluding: String? = nil) -> String {
        hint(closest(to: word, in: candidates, excluding: excluding))
    }

    /// Case-insensitive (ASCII) edit distance counting an adjacent transposition as one edit
    /// (optimal string alignment). Returns `cap + 1` as soon as it must exceed `cap`; costs
    /// O(max(a, b) × cap).
    package static func distance(_ a: [UInt8], _ b: [UInt8], cap: Int) -> Int {
        let n = a.count, m = b.count
        if abs(n - m) > cap { return cap + 1 }
        if n == 0 || m == 0 { return max(n, m) }
        let infinity = cap + 1
        @inline(__always) func lower(_ x: UInt8) -> UInt8 { (x &- 65) < 26 ? x | 0x20 : x }
        // Three rows (the transposition looks two rows back); cells outside the band stay `infinity`.
        var before = [Int](repeating: infinity, count: m + 1)
        var previous = [Int](repeating: infinity, count: m + 1)
        var current = [Int](repeating: infinity, count: m + 1)
        for j in 0...min(m, cap) { previous[j] = j }
        for i in 1...n {
            let low = max(1, i - cap), high = min(m, i + cap)
            current[low - 1] = low == 1 && i <= cap ? i : infinity
            var rowMin = current[low - 1]
            let x = lower(a[i - 1])
            for j in low...high {
                let y = lower(b[j - 1])
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x == y ? 0 : 1))
                if i > 1 && j > 1 && x == lower(b[j - 2]) && lower(a[i - 2]) == y { d = min(d, before[j - 2] + 1) }
                current[j] = min(d, infinity)
                rowMin = min(rowMin, current[j])
            }
            if rowMin > cap { return infinity }
            swap(&before, &previous)
            swap(&previous, &current)
        }
        return min(previous[m], infinity)
    }
}
