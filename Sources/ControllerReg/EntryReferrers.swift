/// Which entries name an entry by reference or provider (what keeps it from being removed), for
/// entry tables sharing one `EntryRows`: a removal asks for the entries naming the removed one
/// instead of reading every entry's plan, so it costs what it touches, not the registry.
///
/// Built at the first question, from the rows of the table asked about, and extended by the rows
/// added since (rows below a table's count are not written again while tables share them: a
/// change that replaces or compiles a row again gets new rows, with no referrers yet). Rows
/// removed since stay listed: each answer is checked against the table asked about (the entry is
/// live there and its plan still names the target), so the lists only need to be complete.
/// Used by the writer alone, under the registry's lock.
final class EntryReferrers {
    // (Unchecked: used by the writer alone, under the registry's lock; a checked use of a class's
    // `var` costs ~76 instructions, paid at every removal.)
    /// For each target row: the rows whose plans name it (each once), in row order.
    @exclusivity(unchecked) private var byTarget: [Int32: [Int32]] = [:]
    /// The rows read so far: those below this.
    @exclusivity(unchecked) private var covered = 0

    /// The live entries of `table` (whose rows these are) whose plans name entry `target` by
    /// reference or provider, in index order.
    func referrers(of target: Int, in table: EntryTable) -> [Int] {
        if covered < table.count {
            for i in covered..<table.count where table.isLive(i) {
                var last: Int32 = -1
                for t in table.targets(at: i).sorted() where t != last {
                    byTarget[t, default: []].append(Int32(i))
                    last = t
                }
            }
            covered = table.count
        }
        guard let rows = byTarget[Int32(target)] else { return [] }
        return rows.compactMap { r in
            let i = Int(r)
            return i < table.count && table.isLive(i) && table.targets(at: i).contains(Int32(target)) ? i : nil
        }
    }
}
