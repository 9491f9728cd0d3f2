/// How a path of entries is written in a message (`A -> B -> A`) and kept as a problem's path: the
/// one rule shared by the cycle check and the lifetime rule. A long path names only its first and
/// last `ends` entries, so a message about a 100,000-entry chain stays short. Names are copied from
/// their bytes where they lie (a failing load writes a path for each cycle it lists, and a `String`
/// per name cost more than the rest of the message); an index with no entry is written `#index`.
enum PathText {
    /// How many entries a long path shows at each end.
    static let ends = 8

    /// Writes the path whose `count` entries are `at(0)`, `at(1)`, … into `text`, joined with
    /// " -> ", its middle elided when it has more than `2 * ends + 1` entries, and packs its first
    /// `Diagnostic.maxPathNames` names into `path` (emptied first: one buffer serves every problem
    /// of a check), as a problem keeps its path. `name(i)` is entry `i`'s name's bytes (nil: none,
    /// written `#i`); it is asked once for each name kept or shown, in one pass (a cycle's path
    /// names up to a thousand entries: asking twice for the shown ones cost a tenth of the message).
    static func write(
        count: Int, at: (Int) -> Int, name: (Int) -> UnsafeBufferPointer<UInt8>?, into text: TextBuffer,
        keeping path: inout PathNames
    ) {
        path.removeAll()
        let elided = count > 2 * ends + 1
        let kept = min(count, Diagnostic.maxPathNames)
        func show(_ j: Int, _ i: Int, _ b: UnsafeBufferPointer<UInt8>?) {
            if elided {
                if j >= ends && j < count - ends { return }
                if j == count - ends {
                    text.append(" -> ... (")
                    text.append(count - 2 * ends)
                    text.append(" more entries) ...")
                }
            }
            if j > 0 { text.append(" -> ") }
            if let b { text.append(b) } else { writeUnnamed(i, into: text) }
        }
        for j in 0..<kept {
            let i = at(j)
            let b = name(i)
            if let b { path.append(b) } else { path.append("#\(i)") }
            show(j, i, b)
        }
        // The last ones shown of a path longer than the names kept.
        if kept < count {
            for j in max(kept, count - ends)..<count {
                let i = at(j)
                show(j, i, name(i))
            }
        }
    }

    /// Writes entry `i`'s name (`name(i)`, or `#i` when there is none).
    static func writeName(_ i: Int, name: (Int) -> UnsafeBufferPointer<UInt8>?, into text: TextBuffer) {
        if let b = name(i) { text.append(b) } else { writeUnnamed(i, into: text) }
    }

    /// Writes `#i`, how an index with no entry is named.
    private static func writeUnnamed(_ i: Int, into text: TextBuffer) {
        text.append(byte: UInt8(ascii: "#"))
        text.append(i)
    }
}
