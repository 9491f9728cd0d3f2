/// How a path of entries is written in a message (`A -> B -> A`) and kept as a problem's path: the
/// one rule shared by the cycle check and the lifetime rule. A long path names only its first and
/// last `ends` entries, so a message about a 100,000-entry chain stays short. Names are copied from
/// their bytes where they lie (a failing load writes a path for each cycle it lists, and a `String`
/// per name cost more than the rest of the message); an index with no entry is written `#index`.
enum PathText {
    /// How many entries a long path shows at each end.
    static let ends = 8

    /// Writes the path whose `count` entries are `at(0)`, `at(1)`, … into `text`, joined with
    /// " -> ", its middle elided when it has more than `2 * ends + 1` entries; `name(i)` is entry
    /// `i`'s name's bytes (nil: none). Only the names shown are asked for.
    static func write(
        count: Int, at: (Int) -> Int, name: (Int) -> UnsafeBufferPointer<UInt8>?, into text: TextBuffer
    ) {
        let elided = count > 2 * ends + 1
        func add(_ j: Int) {
            if j > 0 { text.append(" -> ") }
            writeName(at(j), name: name, into: text)
        }
        if !elided {
            for j in 0..<count { add(j) }
        } else {
            for j in 0..<ends { add(j) }
            text.append(" -> ... (")
            text.append(count - 2 * ends)
            text.append(" more entries) ...")
            for j in (count - ends)..<count { add(j) }
        }
    }

    /// Writes entry `i`'s name (`name(i)`, or `#i` when there is none).
    static func writeName(_ i: Int, name: (Int) -> UnsafeBufferPointer<UInt8>?, into text: TextBuffer) {
        if let b = name(i) {
            text.append(b)
        } else {
            text.append(byte: UInt8(ascii: "#"))
            text.append(i)
        }
    }

    /// The names of the path's first `Diagnostic.maxPathNames` entries, packed as a problem keeps
    /// its path.
    static func names(count: Int, at: (Int) -> Int, name: (Int) -> UnsafeBufferPointer<UInt8>?) -> PathNames {
        let shown = min(count, Diagnostic.maxPathNames)
        var names = PathNames(names: shown, bytesEach: count > 0 ? name(at(0))?.count ?? 8 : 8)
        for j in 0..<shown {
            let i = at(j)
            if let b = name(i) { names.append(b) } else { names.append("#\(i)") }
        }
        return names
    }
}
