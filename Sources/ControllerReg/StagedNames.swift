/// The names of a change's staged entries, indexed as they are staged: where each name is first
/// staged, and which positions repeat a name staged before them. One table, one hash of each
/// name (the one `StagedEntries` keeps): the entry decoder asks it whether a top-level key repeats
/// an earlier one of its document (`EntryDecoder.Stream`), and the transaction finds in it the
/// names a change defines twice and the staged entries references reach. A load builds it while
/// its documents are read; a change from code gets it when the transaction starts.
final class StagedNames {
    /// Every staged name: the position where it is first staged. (Unchecked: one load, one
    /// thread; a checked access cost every entry ~170 instructions.)
    @exclusivity(unchecked) private var index: StagedNameIndex
    /// The staged positions whose name an earlier position has, ascending (few: a name written in
    /// two files of one load, or twice in one change from code).
    @exclusivity(unchecked) private(set) var repeated: [Int] = []

    /// An empty index with room for about `capacity` names, in `region` when given.
    init(capacity: Int, in region: ScratchRegion?) {
        index = StagedNameIndex(capacity: capacity, in: region)
    }

    /// The names of `staged`'s positions below `count` (room for `capacity` or more), in
    /// `region` when given.
    convenience init(indexing staged: StagedEntries, count: Int, capacity: Int = 0, in region: ScratchRegion?) {
        self.init(capacity: max(count, capacity), in: region)
        for k in 0..<count { add(k, hash: staged.nameHash(k), staged: staged) }
    }

    deinit { index.free() }

    /// Indexes staged position `k` (the last staged, its name's hash `hash`).
    @inline(__always) func add(_ k: Int, hash: UInt64, staged: StagedEntries) {
        if index.insert(k, hash: hash, staged: staged) != nil { repeated.append(k) }
    }

    /// Whether indexing staged position `k` as a new name needs a larger table first
    /// (`makeRoom`, which reads the staged names' hashes).
    @inline(__always) func needsRoom(toAdd k: Int) -> Bool { index.needsRoom(toInsert: k) }

    /// Grows the table so that staged position `k` can be indexed (`needsRoom`).
    func makeRoom(toAdd k: Int, staged: StagedEntries) { index.makeRoom(toInsert: k, staged: staged) }

    /// Indexes staged position `k` (its name's hash `hash`) whose name the caller just looked up
    /// (`first`): `firstStaged`, the position found, or nil (new: placed without comparing it with
    /// any name, in a table with room for it: `needsRoom`). Takes no staged entries: the caller,
    /// which is staging `k`, does not copy them for each entry.
    @inline(__always) func add(_ k: Int, hash: UInt64, firstStaged: Int?) {
        if firstStaged != nil {
            repeated.append(k)
        } else {
            index.insertNew(k, hash: hash)
        }
    }

    /// Whether the index is large enough that a batch of names is best looked up after reading
    /// their cells (`touch`).
    var readsAhead: Bool { index.readsAhead }

    /// Reads the cell where the lookup of a name with `hash` starts (`StagedNameIndex.touch`).
    @inline(__always) func touch(hash: UInt64) -> UInt32 { index.touch(hash: hash) }

    /// The first staged position whose name is `bytes` (hash `hash`), or nil.
    @inline(__always) func first(of bytes: UnsafeBufferPointer<UInt8>, hash: UInt64, staged: StagedEntries) -> Int? {
        index.find(bytes, hash: hash, staged: staged)
    }
}
