import Synchronization

/// Name bytes as the name table keeps them (in an entry's arena).
typealias NameBytes = (UnsafePointer<UInt8>, Int)

/// All entries of one published state, by index, as plain arrays (no object per entry): each
/// entry's compiled plan (what the create path reads) and its name, whose bytes open its
/// definition record (`DefinitionCoding`, decoded on demand): the name table is also where each
/// record is. Immutable once built: its rows are the first `count` of an `EntryRows`, which a
/// table built from it by adding entries may share (writing only above `count`).
// @unchecked: its rows are written before it is published and read-only afterwards.
final class EntryTable: @unchecked Sendable {
    /// Plain-data plan of each index for the create path (`live` false where removed).
    let plans: CheckedPointer<EntryPlan>
    let count: Int
    /// Each live entry's name (its bytes in the arena of its record); nil where removed (and for
    /// indices at or above `count`).
    let names: NameTable
    /// The rows (plans, names, the arenas their records are in, their singleton cells), shared with
    /// the tables built from this one by adding entries.
    let rows: EntryRows
    /// How many of the rows' arenas this table's rows use.
    private let arenaCount: Int
    /// For singletons built by another registry (a parent's entries a child inherits): that
    /// registry (unretained: a parent outlives its children), by entry index.
    let owners: [Int32: UnsafeMutableRawPointer]
    /// The environment each entry that uses one was resolved against (`EntryDefinition.environment`:
    /// given back with its definition, so a child compiling it again gets the same values).
    let environments: [Int32: EnvironmentLookup]
    /// Entries whose plans hold a tagged list or an optional reference (`EntryPlan.dynamic`): the
    /// ones a change of membership may have to compile again.
    let dynamic: [Int32]
    /// How many entries it holds.
    let liveCount: Int
    /// Rows this table removed, or a table it was built from sharing its rows did, that are not
    /// marked removed in the rows' name table yet: the first `removedCount` of `removedRows`
    /// (`publishRemovals` marks them). The table hides them itself until then.
    private let removedRows: RemovedRows?
    private let removedCount: Int
    /// The rows this table removed from the one it was built from, when it shares that table's
    /// rows (the others are copied without them).
    let dropped: [Int32]
    /// Whether `publishRemovals` ran (the writer's, under the registry's lock: not checked for
    /// exclusive access at each use).
    @exclusivity(unchecked) private var removalsPublished = false

    /// An empty table.
    convenience init() {
        self.init(
            rows: EntryRows(capacity: 0, arenas: 0, roomToAdd: false), count: 0, owners: [:], environments: [:], dynamic: [],
            liveCount: 0)
    }

    /// The first `count` of `rows` (their arenas all used), with `dynamic` its dynamic rows and
    /// `liveCount` its live ones.
    init(
        rows: EntryRows, count: Int, owners: [Int32: UnsafeMutableRawPointer], environments: [Int32: EnvironmentLookup],
        dynamic: [Int32], liveCount: Int, removed: (rows: RemovedRows, count: Int)? = nil, dropped: [Int32] = []
    ) {
        removedRows = removed?.rows
        removedCount = removed?.count ?? 0
        self.dropped = dropped
        self.rows = rows
        self.count = count
        arenaCount = rows.arenaCount
        self.owners = owners
        self.environments = environments
        self.dynamic = dynamic
        self.liveCount = liveCount
        plans = CheckedPointer(rows.plans, count: count)
        names = rows.names.limited(to: count)
    }

    /// Whether this table was built from `older` by one change that kept its rows (entries
    /// added above its count, entries removed by hiding their rows: `dropped`).
    func shares(rowsOf older: EntryTable) -> Bool { rows === older.rows && count >= older.count }

    /// The removed rows this table still hides itself and a table a change built from it, sharing
    /// its rows, must hide too (none once they are marked in the name table): the list and how
    /// many of it.
    var unpublishedRemovals: (rows: RemovedRows, count: Int)? {
        guard !removalsPublished, let removedRows, removedCount > 0 else { return nil }
        return (removedRows, removedCount)
    }

    /// Marks the rows this table hides as removed in the name table it shares with older tables
    /// (`NameTable.markRemoved`): called as the table is published, so creates reading an older
    /// table find them no more from then on (a create already past the lookup reads rows that do
    /// not change). Under the registry's lock.
    func publishRemovals() {
        guard let (list, n) = unpublishedRemovals else { return }
        for row in list.rows(within: n) { names.markRemoved(Int(row)) }
        removalsPublished = true
    }

    /// Whether row `i`'s entry is removed: marked in the name table, or hidden by this table.
    @inline(__always) private func isHidden(_ i: Int) -> Bool {
        names.isRemoved(i) || (removedCount > 0 && removedRows!.contains(i, within: removedCount))
    }

    /// The singleton cells of the rows this table dropped from the one it was built from
    /// (`dropped`) that this registry builds (not a parent's), read from their plans.
    func droppedSingletonCells() -> [SingletonCell] {
        dropped.compactMap { r in
            let plan = plans[Int(r)]
            guard plan.lifestyle == .singleton, let p = plan.singleton, owners.isEmpty || owners[r] == nil else { return nil }
            return Unmanaged<SingletonCell>.fromOpaque(p).takeUnretainedValue()
        }
    }

    /// The live entries whose plans name live entry `i` by reference or provider, in index order
    /// (what keeps it from being removed), found through the rows' `EntryReferrers`.
    func referrers(of i: Int) -> [Int] { rows.referrers.referrers(of: i, in: self) }

    /// Whether `i` (any integer) is the index of the live entry named by the `length` bytes at
    /// `key`: what `names.find` of those bytes would return (`NameTable.holds`).
    @inline(__always)
    func holds(_ i: Int, _ key: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        UInt(bitPattern: i) < UInt(bitPattern: count) && names.holds(i, key, length)
    }

    /// The arena and offset of live entry `i`'s definition record (its name opens it). (The
    /// writer's: on a table a create reads, a removal published meanwhile can take the name.)
    func recordLocation(at i: Int) -> (arena: DefinitionArena, offset: Int) { record(at: i)! }

    /// The arena and offset of entry `i`'s definition record (its name opens it); nil when it has
    /// no name: never live, or removed (on a table older than the newest, a removal published
    /// after `isLive` was asked marks the name removed: readers of such a table check again here).
    private func record(at i: Int) -> (DefinitionArena, Int)? {
        guard let (p, n) = names.bytes(at: i) else { return nil }
        let arena = rows.arena(ofRow: i, name: p, arenas: arenaCount)
        return (arena, DefinitionCoding.recordOffset(name: p, length: n, in: arena))
    }

    /// The index of a live entry by name, or -1.
    func index(of name: String) -> Int {
        var name = name
        return name.withUTF8 { u in
            index(of: u, hash: NameTable.hash(u.baseAddress ?? emptyKey, u.count))
        }
    }

    /// The index of a live entry by its name's bytes and their `NameTable.hash`, or -1.
    func index(of name: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int {
        guard count > 0 else { return -1 }
        let key = name.baseAddress ?? emptyKey
        if removedCount > 0 {
            // A row this table hides may have the name of a later live row: passed over.
            let removedRows = self.removedRows!, removedCount = self.removedCount
            let i = names.find(key, name.count, hash: hash) { removedRows.contains($0, within: removedCount) }
            return i >= 0 && plans[i].live ? i : -1
        }
        let i = names.find(key, name.count, hash: hash)
        return i >= 0 && plans[i].live ? i : -1
    }

    /// Whether index `i` holds an entry.
    func isLive(_ i: Int) -> Bool { i >= 0 && i < count && plans[i].live && !isHidden(i) }

    /// The definitions of all live entries, in index order.
    var definitions: [EntryDefinition] { (0..<count).compactMap { definition(at: $0) } }

    /// Names of all live entries, in index order.
    var liveNames: [String] {
        (0..<count).compactMap { i in
            guard isLive(i), let (p, n) = names.bytes(at: i) else { return nil }
            return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        }
    }

    /// The name of live entry `i` ("#i" when a removal published meanwhile took it: see `record`).
    func name(at i: Int) -> String {
        guard let (p, n) = names.bytes(at: i) else { return "#\(i)" }
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// The definition of entry `i` as committed, nil where none.
    func definition(at i: Int) -> EntryDefinition? {
        guard isLive(i), let (arena, offset) = record(at: i) else { return nil }
        var d = DefinitionCoding.decode(arena, at: offset)
        if !environments.isEmpty { d.environment = environments[Int32(i)] }
        return d
    }

    /// Where live entry `i` was defined (nil for entries added from code).
    func location(at i: Int) -> SourceLocation? {
        guard let (arena, offset) = record(at: i) else { return nil }
        return DefinitionCoding.location(arena, at: offset)
    }

    /// The tags of live entry `i` (read from its record without decoding the rest).
    func tags(at i: Int) -> [EntryTag] {
        guard let (arena, offset) = record(at: i) else { return [] }
        return DefinitionCoding.tags(arena, at: offset)
    }

    /// Whether live entry `i` is a singleton built by `Registry.start()`.
    func isEagerSingleton(at i: Int) -> Bool {
        guard let (arena, offset) = record(at: i) else { return false }
        return DefinitionCoding.isEagerSingleton(arena, at: offset)
    }

    /// Every entry entry `i` names by reference or provider (what must not be removed under it:
    /// tagged members and optional targets may be, the entry is compiled again), in written order;
    /// read back from its compiled plan.
    func targets(at i: Int) -> [Int32] { plans[i].references(providers: true) }

    /// The entries entry `i` creates directly (references, tagged list members, optional targets
    /// that exist; not providers): its object edges, for the cycle and lifetime rules.
    func edges(at i: Int) -> [Int32] { plans[i].references(providers: false) }

    /// A live entry's singleton cell and the registry its object lives in, for a child that
    /// inherits the entry unchanged (so the singleton stays the parent's).
    func singleton(at i: Int) -> (cell: SingletonCell, owner: UnsafeMutableRawPointer?)? {
        guard isLive(i), let p = plans[i].singleton else { return nil }
        return (Unmanaged<SingletonCell>.fromOpaque(p).takeUnretainedValue(), owners[Int32(i)])
    }

    /// The registry that builds entry `i`'s singleton when it is not this table's (a parent).
    func owner(of i: Int) -> UnsafeMutableRawPointer? { owners.isEmpty ? nil : owners[Int32(i)] }
}

/// A table in the making: the base table's rows, changed by one transaction, then built with
/// only the arenas and singleton cells its rows still use. Its rows are written where the table
/// keeps them (the plans, and the name table with its cells filled as rows are set): building
/// copies nothing, so a load touches each row's memory once.
///
/// A change that sets no row of the base (`keepsRows`: it adds rows, removes some, or both)
/// writes the added ones into the base's own `EntryRows` above the base's count when they have
/// room and the base is their newest table, and hides the removed ones (`RemovedRows`, marked in
/// the name table when the table is published): nothing of the base is copied or read again, so
/// the cost is that of the rows added and removed. Otherwise the rows are new (the base's live
/// ones copied), with room for more changes when the change is small next to the base.
struct EntryTableBuilder {
    /// The rows being written: the base's (`sharing`), or new ones the built table adopts.
    private let rows: EntryRows
    /// Whether `rows` are the base's, written above its count.
    private let sharing: Bool
    private let base: EntryTable
    /// Arenas and cells of new rows (the base's, then the change's), attached at `build()`.
    private var arenas: [DefinitionArena]
    private var cells: [SingletonCell]
    private var owners: [Int32: UnsafeMutableRawPointer]
    private var environments: [Int32: EnvironmentLookup]
    /// The number of rows.
    let count: Int
    /// Whether every row is set by this change (a table made anew: no base rows, none removed),
    /// each with a live plan; and whether a row's plan (the base's or a set one) may be dynamic.
    /// `build()` then knows without a pass over the rows which arena they use and that no row
    /// is dynamic.
    private var onlySetRows: Bool
    private var setRows = 0
    private var mayHaveDynamic: Bool
    /// Rows set with a dynamic plan, and with a live one (what sharing rows adds to the base's).
    private var setDynamic: [Int32] = []
    private var setLive = 0
    /// The arena position the change's records got (sharing rows).
    private var sharedArena: UInt32 = 0
    /// The rows removed (sharing rows: hidden, not written).
    private var removedRows: [Int32] = []

    /// `base`'s rows, then empty ones up to `count` rows (at least `base.count`). `keepsRows`: the
    /// change sets only rows at or above `base.count` (it may remove rows below it); `changed`
    /// is how many rows it sets and removes.
    init(base: EntryTable, count: Int, keepsRows: Bool = false, changed: Int = 0) {
        self.base = base
        self.count = max(count, base.count)
        let added = self.count - base.count
        arenas = []
        cells = []
        owners = base.owners
        environments = base.environments
        mayHaveDynamic = !base.dynamic.isEmpty
        if keepsRows && base.count > 0 && base.rows.mayAdd(to: base.count, upTo: self.count) {
            rows = base.rows
            rows.claimed = self.count
            sharing = true
            onlySetRows = false
            return
        }
        sharing = false
        onlySetRows = base.count == 0
        // Room to add more when this change is small next to the table (entries added or removed
        // one at a time): half again as many rows. A large change gets rows of exactly its size.
        let room = keepsRows && max(added, changed) * 4 <= max(base.count, 16)
        rows = EntryRows(
            capacity: room ? self.count + max(self.count / 2, 16) : self.count, arenas: base.rows.arenaCount + 1,
            roomToAdd: room)
        rows.claimed = self.count
        let plans = rows.plans
        if base.count > 0 { plans.update(from: base.plans.base, count: base.count) }
        for i in 0..<base.count where base.plans[i].live {
            if base.isLive(i), let (p, n) = base.names.bytes(at: i) {
                rows.names.insert(i, p, n, hash: NameTable.hash(p, n))
            } else {
                // Removed by a table that kept its rows (hidden there): not copied.
                plans[i] = EntryPlan()
                if !owners.isEmpty { owners[Int32(i)] = nil }
                if !environments.isEmpty { environments[Int32(i)] = nil }
            }
        }
        arenas = (0..<base.rows.arenaCount).map { base.rows.arena($0) }
        cells = base.rows.cells
    }

    /// Empties row `i`. (Its name's cell stays: a cell whose row has no name matches nothing.)
    /// Sharing the base's rows, the row is hidden instead (the base's readers still read it).
    mutating func remove(_ i: Int) {
        if sharing {
            removedRows.append(Int32(i))
            return
        }
        onlySetRows = false
        rows.plans[i] = EntryPlan()
        rows.names.clear(i)
        if !owners.isEmpty { owners[Int32(i)] = nil }
        if !environments.isEmpty { environments[Int32(i)] = nil }
    }

    /// The index `arena` gets in the built table (added on first use).
    mutating func index(of arena: DefinitionArena) -> Int32 {
        if sharing {
            sharedArena = UInt32(rows.append(arena))
            return Int32(sharedArena)
        }
        if let last = arenas.last, last === arena { return Int32(arenas.count - 1) }
        if let i = arenas.firstIndex(where: { $0 === arena }) { return Int32(i) }
        arenas.append(arena)
        return Int32(arenas.count - 1)
    }

    /// Reads the name table's cell for a name with `hash` ahead of its `set` (`NameTable.touch`);
    /// nothing when the table is small.
    @inline(__always) func touch(hash: UInt64) -> UInt32 {
        rows.names.readsAhead ? rows.names.touch(hash: hash) : 0
    }

    /// Sets row `i` to the record at `record` in arena `arena` (an `index(of:)`) and its plan;
    /// `cell` is the singleton cell its plan points to, if any, and `owner` the registry that
    /// builds it when not this one; `hash` is the `NameTable.hash` of the record's name. A row of
    /// the base table is set only to an entry of the same name (an override).
    mutating func set(
        _ i: Int, plan: EntryPlan, arena: Int32, record: Int, hash: UInt64, cell: SingletonCell?,
        owner: UnsafeMutableRawPointer?, environment: EnvironmentLookup?
    ) {
        let hadName = rows.names.bytes(at: i) != nil
        if hadName || !plan.live { onlySetRows = false }
        if plan.dynamic {
            mayHaveDynamic = true
            setDynamic.append(Int32(i))
        }
        if plan.live { setLive += 1 }
        setRows += 1
        rows.plans[i] = plan
        // (Two calls, not one of a chosen arena: the array's element is read without a retain.)
        let b =
            sharing
            ? DefinitionCoding.nameBytes(rows.arena(Int(arena)), at: record)
            : DefinitionCoding.nameBytes(arenas[Int(arena)], at: record)
        if hadName {
            // The same name's bytes, now in this change's arena: its cell is already there.
            rows.names.replace(i, b.baseAddress ?? emptyKey, b.count)
        } else {
            rows.names.insert(i, b.baseAddress ?? emptyKey, b.count, hash: hash)
        }
        if sharing {
            rows.arenaOfRow![i] = sharedArena
            if let cell { rows.keep(cell) }
        } else if let cell {
            cells.append(cell)
        }
        // Most rows have neither: a dictionary write (a hash, and a removal of nothing) per row
        // is only made when there is something to write, or a replaced row's to remove (a new
        // row has none: writing nil would copy the base's dictionary, the size of the registry).
        if owner != nil || (hadName && !owners.isEmpty) { owners[Int32(i)] = owner }
        if environment != nil || (hadName && !environments.isEmpty) { environments[Int32(i)] = environment }
    }

    /// The table, keeping only the arenas and cells its live rows use.
    func build() -> EntryTable {
        if sharing {
            // The base's rows and arenas are all kept (removed rows hidden, their records and
            // cells kept with the rows until they are copied); the change's were appended.
            // (`dynamic` may list removed rows: its readers skip rows that are not live.)
            let base = self.base
            return EntryTable(
                rows: rows, count: count, owners: owners, environments: environments,
                dynamic: setDynamic.isEmpty ? base.dynamic : base.dynamic + setDynamic.sorted(),
                liveCount: base.liveCount + setLive - removedRows.count,
                removed: removedRows.isEmpty
                    ? base.unpublishedRemovals
                    : RemovedRows.extending(
                        base.unpublishedRemovals?.rows, count: base.unpublishedRemovals?.count ?? 0, with: removedRows),
                dropped: removedRows)
        }
        let plans = rows.plans
        let names = rows.names
        let sorted = arenas.sorted { UInt(bitPattern: $0.base) < UInt(bitPattern: $1.base) }
        var used = [Bool](repeating: false, count: sorted.count)
        var last = -1
        var live = 0
        if onlySetRows && setRows == count && sorted.count == 1 {
            // Every row set, live, named from the one arena (a first load): no pass over them.
            used[0] = count > 0
            live = count
        } else {
            for i in 0..<count {
                guard let (p, _) = names.bytes(at: i) else { continue }
                guard plans[i].live else {
                    names.clear(i)
                    continue
                }
                live += 1
                // Neighbouring rows mostly come from the same change.
                if last < 0 || !sorted[last].holds(p) { last = EntryRows.arena(holding: p, in: sorted) }
                used[last] = true
            }
        }
        let kept = sorted.indices.filter { used[$0] }.map { sorted[$0] }
        // The cells live rows point to (no pass over the rows when there are no cells).
        var liveCells: [SingletonCell] = []
        if !cells.isEmpty {
            var pointed = Set<UnsafeMutableRawPointer>()
            for i in 0..<count where plans[i].live { if let c = plans[i].singleton { pointed.insert(c) } }
            var seen = Set<ObjectIdentifier>()
            liveCells = cells.filter {
                pointed.contains(Unmanaged.passUnretained($0).toOpaque()) && seen.insert(ObjectIdentifier($0)).inserted
            }
        }
        for arena in kept { _ = rows.append(arena) }
        if !liveCells.isEmpty { rows.keep(liveCells) }
        if let arenaOfRow = rows.arenaOfRow {
            // Rows with room to add: each row's arena by position (later ones are appended unordered).
            last = -1
            for i in 0..<count {
                guard let (p, _) = names.bytes(at: i) else { continue }
                if last < 0 || !kept[last].holds(p) { last = EntryRows.arena(holding: p, in: kept) }
                arenaOfRow[i] = UInt32(last)
            }
        }
        var dynamic: [Int32] = []
        if mayHaveDynamic { for i in 0..<count where plans[i].dynamic && plans[i].live { dynamic.append(Int32(i)) } }
        return EntryTable(
            rows: rows, count: count, owners: owners, environments: environments, dynamic: dynamic, liveCount: live)
    }
}

/// What a class slot can do, as plain data for the create path.
struct ClassFunctions {
    var create: HostClass.CreateFunction?
    var destroy: HostClass.DestroyFunction?
    var set: HostClass.SetFunction?
    var context: UnsafeMutableRawPointer?
    var borrowsArguments: Bool
    /// The first 8 bytes of an object value this class built (`RawValue.objectHeader`): its tag,
    /// `RawValue.swiftObject` when the class makes Swift objects (`HostClass.makesSwiftObjects`),
    /// in `reserved`; written whole, one store per object (`RawValue.initializeObject`).
    var objectHeader: UInt64

    /// The tag of the objects this class builds (`RawValue.swiftObject` or 0).
    var objectTag: UInt16 { RawValue.tag(ofHeader: objectHeader) }
}

/// Registered classes by slot (a slot per distinct class name seen), immutable once built.
// @unchecked: its function table is raw memory written in init and read-only afterwards.
final class ClassTable: @unchecked Sendable {
    /// Class name of each slot.
    let names: [String]
    /// The registered class of each slot, or nil.
    let records: [ClassRecord?]
    let functions: CheckedPointer<ClassFunctions>
    let count: Int
    /// Registered class names to slots (for names that have no entry).
    let lookup: NameTable
    private let arena = Arena(chunkSize: 4096)

    init(names: [String], records: [ClassRecord?]) {
        self.names = names
        self.records = records
        count = records.count
        let storage = UnsafeMutablePointer<ClassFunctions>.allocate(capacity: max(1, records.count))
        for (i, r) in records.enumerated() {
            (storage + i).initialize(
                to: ClassFunctions(
                    create: r?.host.create, destroy: r?.host.destroy, set: r?.host.set,
                    context: r?.host.context, borrowsArguments: r?.host.borrowsArguments ?? false,
                    objectHeader: RawValue.objectHeader(tag: r?.host.makesSwiftObjects == true ? RawValue.swiftObject : 0)))
        }
        functions = CheckedPointer(storage, count: records.count)
        let arena = self.arena
        lookup = NameTable(names: zip(names, records).map { name, record in record == nil ? nil : arena.copy(name) })
    }

    deinit {
        UnsafeMutablePointer(mutating: functions.base).deallocate()
        lookup.deallocate()
    }
}

/// The immutable state readers see: entries, classes and name templates. Replaced whole by each
/// change.
final class Snapshot: Sendable {
    let entries: EntryTable
    let classes: ClassTable
    /// Class-name templates tried, in order, for a name that is neither an entry nor a class.
    let templates: [String]
    /// The table of `SwiftArgumentImages` of this snapshot's entries (its address; 0 until the
    /// Swift API's first create of an entry with dependencies).
    let argumentImages = Atomic<UInt>(0)
    /// The table of `SwiftArgumentImages` the C ABI's door builds from (`HostArgumentsCreate`: any
    /// registered class, not only Swift ones), apart from the Swift API's; 0 until its first create
    /// of an entry with dependencies.
    let hostArgumentImages = Atomic<UInt>(0)

    init(entries: EntryTable, classes: ClassTable, templates: [String]) {
        self.entries = entries
        self.classes = classes
        self.templates = templates
    }

    deinit {
        // Most snapshots never had one (every snapshot a change replaces, through any door).
        let table = argumentImages.load(ordering: .acquiring)
        if table != 0 { SwiftArgumentImages.freeTable(table, count: entries.count) }
        let hostTable = hostArgumentImages.load(ordering: .acquiring)
        if hostTable != 0 { SwiftArgumentImages.freeTable(hostTable, count: entries.count) }
    }
}
