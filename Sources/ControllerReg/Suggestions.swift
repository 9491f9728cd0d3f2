#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// "Did you mean …?" help: the closest candidate to a misspelt name, found in bounded time.
///
/// The work is bounded whatever the input: only candidates whose length is within the cut-off
/// are compared, the edit distance is computed in a band of the cut-off's width (so two
/// 64,000-byte names cost about 64,000 × 17 steps, not 64,000²), and a caller reporting many
/// problems gives a suggestion to the first `suggestedProblems(candidates:)` only.
package enum Suggestions {
    /// The most problems of one call that get a suggestion (the rest are reported without one).
    package static let maxSuggestedProblems = 32
    /// The most candidate names one call's suggestions compare in all: a change with thousands of
    /// misspelt references into a large registry stops suggesting once this is spent, so its error
    /// path stays near the cost of a successful load of the same size (32 scans of 10,000 names
    /// cost more than the whole load).
    package static let maxComparedCandidates = 65_536

    /// How many problems of one call get a suggestion when each scans `candidates` names: every
    /// one up to `maxSuggestedProblems` in a registry of up to 2,048 names, fewer in larger ones,
    /// never none.
    package static func suggestedProblems(candidates: Int) -> Int {
        max(1, min(maxSuggestedProblems, maxComparedCandidates / max(candidates, 1)))
    }
    /// The largest edit distance ever suggested, however long the word.
    package static let maxDistance = 8

    /// The most edits a candidate may be from a word of `length` bytes to be a likely typo: a third
    /// of the length (at least 1), at most `maxDistance`. 'N1' is not a typo of 'M'; nothing is a
    /// typo of the empty word (no "did you mean 'A'?" for a name left empty).
    package static func cutoff(forLength length: Int) -> Int {
        length == 0 ? 0 : min(max(length, 3) / 3, maxDistance)
    }

    /// The candidate closest to `word` (case-insensitive edit distance with transpositions, within
    /// the cut-off), or nil. `excluding` is never offered (e.g. the entry that holds the reference).
    /// Ties go to the candidate whose length is nearer, then to the first one.
    package static func closest(to word: String, in candidates: some Sequence<String>, excluding: String? = nil) -> String? {
        var best: String?
        withSearch(for: word) { search in
            for candidate in candidates {
                guard let near = withBytes(of: candidate, { search.nearer($0) }) else { continue }
                // The word itself and `excluding` are never offered (compared only now: rarely
                // does a candidate get this far).
                if candidate == word || candidate == excluding { continue }
                search.accept(near)
                best = candidate
            }
        }
        return best
    }

    /// `closest(to:in:excluding:)` of `count` candidates given as their bytes (names read in place
    /// where they are stored: no `String` per candidate, one for a candidate that comes close).
    package static func closest(
        to word: String, among count: Int, candidate: (Int) -> UnsafeBufferPointer<UInt8>, excluding: String? = nil
    ) -> String? {
        var best: String?
        withSearch(for: word) { search in
            for i in 0..<count {
                let bytes = candidate(i)
                guard let near = search.nearer(bytes) else { continue }
                let text = String(decoding: bytes, as: UTF8.self)
                if text == word || text == excluding { continue }
                search.accept(near)
                best = text
            }
        }
        return best
    }

    /// Names to suggest among, read in place, each with its letters as bits (`signature`), worked
    /// out when a search first needs them and kept for all the problems of one call, so a search
    /// skips most names by two bit counts. Once a search has a candidate one edit away, only a
    /// name equal to the word but for case can win: the rest are ruled out by their length and
    /// last byte (`tails`, made for every name at once, a few instructions each), and their
    /// signatures are never needed.
    package struct Candidates {
        let names: [UnsafeBufferPointer<UInt8>]
        /// Each name's length and last byte (`tail(of:)`).
        let tails: [UInt64]
        private let signatures: Signatures

        /// The candidates `names` (bytes that stay valid while these are used).
        package init(_ names: [UnsafeBufferPointer<UInt8>]) {
            self.names = names
            tails = names.map { Candidates.tail(of: $0) }
            signatures = Signatures(count: names.count)
        }

        /// A name's length and its last byte in lower case (0 for an empty name): equal for two
        /// names equal but for case.
        @inline(__always) static func tail(of name: UnsafeBufferPointer<UInt8>) -> UInt64 {
            guard let p = name.baseAddress, name.count > 0 else { return 0 }
            return UInt64(name.count) << 8 | UInt64(Suggestions.lower(p[name.count - 1]))
        }

        /// Name `i`'s signature (`signatureBits` in `table`), worked out now if it is not known.
        @inline(__always) func signature(_ i: Int, _ table: UnsafeBufferPointer<UInt64>) -> UInt64 {
            let known = signatures.memory[i]
            if known != Signatures.unknown { return known }
            let bits = Suggestions.signature(of: names[i], table)
            signatures.memory[i] = bits
            return bits
        }
    }

    /// The candidates' signatures, `unknown` until one is worked out (a signature with every bit
    /// set, which a name of 64 distinct byte values could have, is worked out again each time:
    /// the same answer).
    private final class Signatures {
        static let unknown = ~UInt64(0)
        let memory: UnsafeMutablePointer<UInt64>

        init(count: Int) {
            memory = .allocate(capacity: max(count, 1))
            memory.initialize(repeating: Signatures.unknown, count: count)
        }

        deinit { memory.deallocate() }
    }

    /// One bit per byte value a word holds (ASCII letters folded to lower case, values folded
    /// modulo 64). The bytes one word has and another lacks each need an edit, so the larger of
    /// the two counts of bits set in one signature only is a lower bound of their distance
    /// (`exceeds(_:_:)` tells whether it rules a candidate out).
    static func signature(of bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        signatureBits.withUnsafeBufferPointer { signature(of: bytes, $0) }
    }

    /// Whether `bits` has more than `cap` bits set (`cap` >= 0): its lowest `cap` set bits cleared,
    /// one step each, and something left. What a signature's bound is asked (a cut-off is at most
    /// `maxDistance`, mostly 0 to 2 once a close candidate is found); a population count, which
    /// this target computes in software (~20 instructions, two per candidate), cost more than the
    /// rest of a scan's step.
    @inline(__always) static func exceeds(_ bits: UInt64, _ cap: Int) -> Bool {
        var bits = bits, left = cap
        while left > 0 && bits != 0 {
            bits &= bits &- 1
            left -= 1
        }
        return bits != 0
    }

    /// `signature(of:)` with `signatureBits` at hand (one load a byte).
    @inline(__always)
    static func signature(of bytes: UnsafeBufferPointer<UInt8>, _ table: UnsafeBufferPointer<UInt64>) -> UInt64 {
        guard let p = bytes.baseAddress, let t = table.baseAddress else { return 0 }
        var bits: UInt64 = 0
        for i in 0..<bytes.count { bits |= t[Int(p[i])] }
        return bits
    }

    /// The signature bit of each byte value.
    static let signatureBits: [UInt64] = (0..<256).map { 1 << UInt64(lower(UInt8($0)) & 63) }

    /// `closest(to:among:candidate:excluding:)` of `candidates`, most of them ruled out by their
    /// signatures alone.
    package static func closest(to word: String, in candidates: Candidates, excluding: String? = nil) -> String? {
        var best: String?
        withSearch(for: word) { search in
            let wordBits = signature(of: search.word)
            let wordTail = Candidates.tail(of: search.word)
            candidates.names.withUnsafeBufferPointer { names in
                candidates.tails.withUnsafeBufferPointer { tails in
                    signatureBits.withUnsafeBufferPointer { table in
                        // The most edits any candidate may still be from the word (`Search.widestCap`),
                        // read again only when the best changes: most candidates are ruled out by
                        // their signature against it, before their length or the best is looked at.
                        var widest = search.widestCap
                        var next = 0
                        while next < names.count {
                            let i = next
                            next += 1
                            var wordOnly: UInt64 = 0, candidateOnly: UInt64 = 0
                            if widest == 0 {
                                // Only a candidate equal to the word but for case can win now (no
                                // edit, no length gap): ruled out by its length and last byte (the
                                // names up to the next with the word's skipped in one tight loop),
                                // then its bytes from the end (names alike share their beginnings),
                                // without its signature (the word's, as equal).
                                if tails[i] != wordTail {
                                    while next < names.count && tails[next] != wordTail { next += 1 }
                                    continue
                                }
                                if !equalIgnoringCaseFromEnd(names[i], search.word) { continue }
                            } else {
                                let bits = candidates.signature(i, table)
                                wordOnly = wordBits & ~bits
                                candidateOnly = bits & ~wordBits
                                if exceeds(wordOnly, widest) || exceeds(candidateOnly, widest) { continue }
                            }
                            guard let near = search.nearer(names[i], differing: wordOnly, candidateOnly) else { continue }
                            let text = String(decoding: names[i], as: UTF8.self)
                            if text == word || text == excluding { continue }
                            search.accept(near)
                            best = text
                            widest = search.widestCap
                            if widest < 0 { break }
                        }
                    }
                }
            }
        }
        return best
    }

    /// The last answer of `closest(to:in:excluding:memo:)`: a config that misspells a name
    /// misspells it in many entries (each its own problem), and the answer for the next one
    /// follows from the last one's without scanning every candidate again.
    package struct Memo {
        fileprivate var word: String?
        fileprivate var excluding: String?
        fileprivate var answer: String?

        /// An empty memo.
        package init() {}
    }

    /// `closest(to:in:excluding:)`, answered from `memo` when it holds the same word: the same
    /// answer, whatever `excluding` is. `excluding` must name one of `candidates` (or be nil) in
    /// every call with the same memo: the name excluded last is then a candidate again, and wins
    /// when it is nearer than the last answer (a tie, decided by the candidates' order, is
    /// searched again).
    package static func closest(
        to word: String, in candidates: Candidates, excluding: String?, memo: inout Memo
    ) -> String? {
        if memo.word == word {
            if memo.excluding == excluding { return memo.answer }
            if memo.answer != excluding, let answer = remembered(word, memo.answer, before: memo.excluding) {
                memo.excluding = excluding
                memo.answer = answer
                return answer
            }
        }
        let answer = closest(to: word, in: candidates, excluding: excluding)
        memo = Memo()
        memo.word = word
        memo.excluding = excluding
        memo.answer = answer
        return answer
    }

    /// The nearer of `answer` and `previous` to `word` (`answer` was the closest with `previous`
    /// excluded; now `previous` is a candidate again): nil when that takes a search (a tie).
    private static func remembered(_ word: String, _ answer: String?, before previous: String?) -> String?? {
        guard let previous, previous != word else { return .some(answer) }
        // Compared as a search compares (the word's bit-parallel pattern when it has one: the
        // banded table cost ~30,000 instructions a 40-byte name, and a config that misspells a
        // name in many entries asks this for each).
        var result: String??
        withSearch(for: word) { search in
            let limit = search.limit
            result = withBytes(of: previous) { p -> String?? in
                let dp = search.distance(to: p, cap: limit)
                guard let answer else { return dp > limit ? .some(nil) : .some(previous) }
                return withBytes(of: answer) { a -> String?? in
                    let da = search.distance(to: a, cap: limit)
                    if dp > limit || dp > da { return .some(answer) }
                    if dp < da { return .some(previous) }
                    let gp = abs(p.count - search.word.count), ga = abs(a.count - search.word.count)
                    if gp != ga { return .some(gp < ga ? previous : answer) }
                    return nil
                }
            }
        }
        return result
    }

    /// Runs `body` with a search for `word`: its pattern table on the stack (2 KiB, no allocation
    /// per call), one scratch buffer for every banded comparison.
    private static func withSearch(for word: String, _ body: (inout Search) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 256) { table in
            withBytes(of: word) { t in
                var search = Search(word: t, table: table)
                body(&search)
                search.scratch.free()
            }
        }
    }

    /// The state of one `closest` search: the word, its cut-off and the best candidate so far.
    private struct Search {
        let word: UnsafeBufferPointer<UInt8>
        let limit: Int
        /// The word compared a machine word at a time, when it has at most 64 bytes.
        let pattern: Pattern?
        var scratch = Scratch()
        var bestDistance = -1
        var bestGap = 0

        init(word: UnsafeBufferPointer<UInt8>, table: UnsafeMutableBufferPointer<UInt64>) {
            self.word = word
            limit = Suggestions.cutoff(forLength: word.count)
            pattern = word.count <= Pattern.maxLength ? Pattern(word, table: table) : nil
        }

        /// The candidate's distance and length gap when it would be the best so far (within the
        /// cut-off, nearer than the best, or as near with a nearer length; ties go to the first).
        /// `differing` are the signature bits only the word has and only the candidate has (0, 0:
        /// none known): each bit set is an edit (`signature(of:)`).
        @inline(__always)
        mutating func nearer(
            _ candidate: UnsafeBufferPointer<UInt8>, differing wordOnly: UInt64 = 0, _ candidateOnly: UInt64 = 0
        ) -> (distance: Int, gap: Int)? {
            let gap = abs(candidate.count - word.count)
            if gap > limit { return nil }
            // What this candidate must reach to win.
            let cap = bestDistance >= 0 ? min(gap >= bestGap ? bestDistance - 1 : bestDistance, limit) : limit
            if cap < 0 || gap > cap || Suggestions.exceeds(wordOnly, cap) || Suggestions.exceeds(candidateOnly, cap) {
                return nil
            }
            let d = distance(to: candidate, cap: cap)
            if d > cap || (bestDistance >= 0 && d == bestDistance && gap >= bestGap) { return nil }
            return (d, gap)
        }

        /// The word's distance to `candidate` when it is at most `cap`, else `cap + 1`.
        mutating func distance(to candidate: UnsafeBufferPointer<UInt8>, cap: Int) -> Int {
            pattern.map { $0.distance(to: candidate, cap: cap) }
                ?? Suggestions.distance(word, candidate, cap: cap, scratch: &scratch)
        }

        /// The largest cap `nearer` may give any candidate now (whatever its length): the cut-off
        /// before a best is found; after, the best's distance, less one when its length is the
        /// word's (no candidate's gap is smaller); -1 when none can win.
        var widestCap: Int {
            bestDistance < 0 ? limit : min(bestGap == 0 ? bestDistance - 1 : bestDistance, limit)
        }

        /// Makes the candidate `nearer` returned the best so far.
        mutating func accept(_ near: (distance: Int, gap: Int)) {
            bestDistance = near.distance
            bestGap = near.gap
        }
    }

    /// The words before and after the name in a hint, `" (did you mean 'X'?)"`: the one wording
    /// `hint` and `MessageForm` write (its literals).
    package static let hintOpening = MessageForm.hintOpening.description
    package static let hintClosing = MessageForm.hintClosing.description

    /// The `" (did you mean 'X'?)"` suffix for a suggestion, or "".
    package static func hint(_ suggestion: String?) -> String {
        suggestion.map { hintOpening + $0 + hintClosing } ?? ""
    }

    /// The `" (did you mean 'X'?)"` suffix for the closest candidate, or "".
    package static func hint(for word: String, in candidates: some Sequence<String>, excluding: String? = nil) -> String {
        hint(closest(to: word, in: candidates, excluding: excluding))
    }

    /// Case-insensitive (ASCII) edit distance counting an adjacent transposition as one edit
    /// (optimal string alignment). Returns `cap + 1` as soon as it must exceed `cap`; costs
    /// O(max(a, b) × cap).
    package static func distance(_ a: [UInt8], _ b: [UInt8], cap: Int) -> Int {
        var scratch = Scratch()
        defer { scratch.free() }
        return a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in distance(x, y, cap: cap, scratch: &scratch) } }
    }

    /// Rows for `distance`, reused across calls (grown as needed).
    struct Scratch {
        private(set) var base: UnsafeMutablePointer<Int>?
        private var capacity = 0

        /// Room for `n` integers (the contents are not kept).
        mutating func reserve(_ n: Int) -> UnsafeMutablePointer<Int> {
            if n > capacity {
                base?.deallocate()
                capacity = max(n, 64)
                base = .allocate(capacity: capacity)
            }
            return base!
        }

        mutating func free() {
            base?.deallocate()
            base = nil
            capacity = 0
        }
    }

    /// A word of at most 64 bytes prepared for `distance`'s bit-parallel form (Hyyrö 2003, "A
    /// bit-vector algorithm for computing Levenshtein and Damerau edit distances"): one bit per
    /// byte of the word, each row of the table in one machine word, so comparing a candidate costs
    /// a few instructions per byte of it, whatever the cut-off. Same distances as the banded table.
    struct Pattern {
        /// The longest word the pattern holds.
        static let maxLength = 64
        /// For each byte value (ASCII letters folded to lower case), the bits of the word's
        /// positions holding it: 256 words, the caller's.
        private let positions: UnsafeMutableBufferPointer<UInt64>
        private let word: UnsafeBufferPointer<UInt8>
        private var length: Int { word.count }

        /// The pattern of `word` (at most `maxLength` bytes), its table written into `table`.
        init(_ word: UnsafeBufferPointer<UInt8>, table: UnsafeMutableBufferPointer<UInt64>) {
            precondition(word.count <= Pattern.maxLength && table.count >= 256)
            positions = table
            self.word = word
            memset(table.baseAddress!, 0, 256 * MemoryLayout<UInt64>.stride)
            for i in word.indices { table[Int(Suggestions.lower(word[i]))] |= 1 << UInt64(i) }
        }

        /// `Suggestions.distance(word, other, cap:)`: the distance when it is at most `cap`, else
        /// `cap + 1`.
        func distance(to other: UnsafeBufferPointer<UInt8>, cap: Int) -> Int {
            let wordCount = length, otherCount = other.count
            if abs(wordCount - otherCount) > cap { return cap + 1 }
            if wordCount == 0 || otherCount == 0 { return max(wordCount, otherCount) }
            if cap == 0 { return Suggestions.equalIgnoringCase(word, other) ? 0 : 1 }
            // The bytes both begin with, and those both end with (case aside), take no edit: an
            // alignment that matches them is as short as any (a transposition swaps two bytes that
            // differ), so only what lies between is compared (names alike share long beginnings).
            // The word's part starts `head` positions in: its bits are the table's shifted down
            // (bits past its end never reach lower ones: carries and shifts only go up).
            let shorter = min(wordCount, otherCount)
            var head = 0
            while head < shorter && Suggestions.sameIgnoringCase(word[head], other[head]) { head += 1 }
            var tail = 0
            while tail < shorter - head
                && Suggestions.sameIgnoringCase(word[wordCount - 1 - tail], other[otherCount - 1 - tail])
            {
                tail += 1
            }
            let n = wordCount - head - tail, m = otherCount - head - tail
            if n == 0 || m == 0 { return min(max(n, m), cap + 1) }
            var vp = ~UInt64(0), vn = UInt64(0), d0 = UInt64(0), previousMatch = UInt64(0)
            var current = n
            let last = UInt64(1) << UInt64(n - 1)
            let table = positions
            let shift = UInt64(head)
            do {
                for j in head..<head + m {
                    let match = table[Int(Suggestions.lower(other[j]))] >> shift
                    let transposed = ((~d0 & match) << 1) & previousMatch
                    d0 = ((((match & vp) &+ vp) ^ vp) | match | vn) | transposed
                    var hp = vn | ~(d0 | vp)
                    var hn = d0 & vp
                    if hp & last != 0 { current += 1 }
                    if hn & last != 0 { current -= 1 }
                    hp = (hp << 1) | 1
                    hn = hn << 1
                    vp = hn | ~(d0 | hp)
                    vn = hp & d0
                    previousMatch = match
                }
            }
            return min(current, cap + 1)
        }
    }

    /// Whether two bytes are equal but for the case of an ASCII letter.
    @inline(__always) static func sameIgnoringCase(_ a: UInt8, _ b: UInt8) -> Bool { a == b || lower(a) == lower(b) }

    /// `equalIgnoringCase`, compared from the last byte to the first.
    @inline(__always) static func equalIgnoringCaseFromEnd(
        _ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        var i = a.count
        while i > 0 {
            i -= 1
            if a[i] != b[i] && lower(a[i]) != lower(b[i]) { return false }
        }
        return true
    }

    /// Whether two byte strings of the same length are equal but for the case of ASCII letters
    /// (a distance within a cut-off of 0: most comparisons once a close candidate is found).
    @inline(__always) static func equalIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for i in a.indices where a[i] != b[i] && lower(a[i]) != lower(b[i]) { return false }
        return true
    }

    /// Calls `body` with `text`'s UTF-8 bytes, read in place when they are contiguous.
    static func withBytes<R>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let r = text.utf8.withContiguousStorageIfAvailable(body) { return r }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }

    /// An ASCII letter in lower case; any other byte as it is.
    @inline(__always) static func lower(_ x: UInt8) -> UInt8 { (x &- 65) < 26 ? x | 0x20 : x }

    /// `distance` of two byte buffers, its rows in `scratch`.
    static func distance(
        _ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, cap: Int, scratch: inout Scratch
    ) -> Int {
        let n = a.count, m = b.count
        if abs(n - m) > cap { return cap + 1 }
        if n == 0 || m == 0 { return max(n, m) }
        if cap == 0 { return equalIgnoringCase(a, b) ? 0 : 1 }
        let infinity = cap + 1
        // Three rows (the transposition looks two rows back); cells outside the band stay `infinity`.
        let rows = scratch.reserve(3 * (m + 1))
        rows.update(repeating: infinity, count: 3 * (m + 1))
        var before = rows, previous = rows + (m + 1), current = rows + 2 * (m + 1)
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
            (before, previous, current) = (previous, current, before)
        }
        return min(previous[m], infinity)
    }
}
