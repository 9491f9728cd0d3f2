/// Which entries' `{Tagged: t}` lists use which tag, and which entries' `{Optional: X}`
/// references name which entry, for entry tables sharing one `EntryRows`: a change asks for the
/// entries using the tags and names it touches instead of reading every such entry, so an add or
/// a removal in a registry with many of them costs what it touches, not their number.
///
/// Built at the first question from the table's `dynamic` rows (each decoded once), and extended
/// by the dynamic rows added since (a table sharing rows lists its base's dynamic rows first, then
/// its own: a change that compiles a row again gets new rows, with no uses read yet). Rows removed
/// since stay listed: answers are checked against the table asked about (`EntryTable.isLive`).
/// Used by the writer alone, under the registry's lock.
final class MembershipUses {
    /// The dynamic rows using each tag in a tagged list, and naming each entry in an optional
    /// reference (each row once per tag or name).
    private var byTag: [String: [Int32]] = [:]
    private var byName: [String: [Int32]] = [:]
    /// How many of a table's `dynamic` rows were read.
    private var covered = 0

    /// The live dynamic entries of `table` (whose rows these are) with a `{Tagged: t}` of a tag
    /// in `tags` or an `{Optional: X}` of a name in `names`, in index order.
    func users(ofTags tags: Set<String>, orNames names: Set<String>, in table: EntryTable) -> [Int] {
        let dynamic = table.dynamic
        if covered < dynamic.count {
            for d in dynamic[covered...] {
                guard let definition = table.definition(at: Int(d)) else { continue }
                var usedTags = Set<String>(), usedNames = Set<String>()
                for dependency in definition.dependencies {
                    dependency.value.forEachEdge { e in
                        if e.kind == .tagged {
                            usedTags.insert(e.name)
                        } else if e.kind == .optional {
                            usedNames.insert(e.name)
                        }
                    }
                }
                for t in usedTags { byTag[t, default: []].append(d) }
                for n in usedNames { byName[n, default: []].append(d) }
            }
            covered = dynamic.count
        }
        var found = Set<Int32>()
        for t in tags { if let rows = byTag[t] { found.formUnion(rows) } }
        for n in names { if let rows = byName[n] { found.formUnion(rows) } }
        return found.map { Int($0) }.filter { table.isLive($0) }.sorted()
    }
}
