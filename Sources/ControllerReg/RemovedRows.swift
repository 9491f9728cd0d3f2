/// The rows that tables sharing one `EntryRows` removed and that are not yet marked removed in
/// the rows' name table (`NameTable.markRemoved`): a removal that keeps the rows (its table is
/// the same rows with some hidden) must not change what the published table's readers see until
/// its table is published, so it is marked then (`EntryTable.publishRemovals`). Until then the
/// table hides those rows itself.
///
/// Shared, like `SharedTailList`, by a chain of such tables (a reload replaying many removals
/// over one candidate): a table whose base's removals are all of this list appends to it in
/// place, so a chain of removals costs each one, not a copy per table. Each table reads the
/// first `count` rows it was given. Used by the writer alone, under the registry's lock.
final class RemovedRows {
    // (Unchecked: used by the writer alone, under the registry's lock; a checked use of a class's
    // `var` costs ~76 instructions, paid at every removal.)
    /// Each removed row's position in the list.
    @exclusivity(unchecked) private var position: [Int32: Int] = [:]
    /// How many rows the list holds.
    @exclusivity(unchecked) private(set) var count = 0

    /// Whether `row` is among the first `count` removed.
    func contains(_ row: Int, within count: Int) -> Bool {
        guard let p = position[Int32(truncatingIfNeeded: row)] else { return false }
        return p < count
    }

    /// A list holding the first `count` rows of `base` (none when nil), then `rows`, and its
    /// count: `base` itself when it holds exactly those `count` rows (appended in place).
    static func extending(_ base: RemovedRows?, count: Int, with rows: [Int32]) -> (RemovedRows, Int) {
        let list: RemovedRows
        if let base, base.count == count {
            list = base
        } else {
            list = RemovedRows()
            if let base {
                for (row, p) in base.position where p < count { list.position[row] = p }
                list.count = count
            }
        }
        for row in rows where list.position[row] == nil {
            list.position[row] = list.count
            list.count += 1
        }
        return (list, list.count)
    }

    /// The first `count` rows, in no order.
    func rows(within count: Int) -> [Int32] { position.compactMap { $0.value < count ? $0.key : nil } }
}
