/// The memory entry tables keep their rows in: each row's compiled plan and name (`NameTable`),
/// and the arenas and singleton cells the rows use, kept alive here.
///
/// Shared by a table and the tables built from it by adding entries: a change that only adds
/// entries (no row replaced or removed) writes its rows at and above the older table's count,
/// where that table, and every create still reading it, never looks (`NameTable.limited(to:)`),
/// and its table is the same rows with a larger count. So adding an entry costs that entry, not
/// the registry. When the room runs out, or a change replaces or removes rows, the next table
/// gets new rows with the live ones copied (`EntryTableBuilder`), with room to spare when the
/// change was small next to the table (so adding N entries one at a time copies each row a
/// constant number of times on average); a large load gets rows of exactly its size.
// @unchecked: rows below a published table's count are written before it is published and only
// read afterwards; rows above it, the arena list and the cells are written only by the writer
// holding the registry's lock.
final class EntryRows: @unchecked Sendable {
    /// How many rows there is room for.
    let capacity: Int
    /// Every row's plan, all `capacity` initialised (`EntryPlan()`, not live, until set).
    let plans: UnsafeMutablePointer<EntryPlan>
    /// The mapping `plans` is in when they take a huge page or more (`HugePageMapping`: a large
    /// load's rows fault in 2 MiB at a time, not from the top of `malloc`'s heap, which freeing
    /// the previous registry gave back to the system); nil when `malloc` gave them.
    private let plansMapping: HugePageMapping?
    /// The rows' names (room for `capacity` indices).
    let names: NameTable
    /// Each row's arena, by its position in the arena list; only in rows with room to add entries
    /// (whose later arenas are appended in no order). Without it the arenas are ordered by base
    /// address and a row's is found by its name's address.
    let arenaOfRow: UnsafeMutablePointer<UInt32>?
    /// The arenas (retained), `arenaCount` of them, room for `arenaCapacity`.
    private let arenaSlots: UnsafeMutablePointer<Unmanaged<DefinitionArena>>
    private let arenaCapacity: Int
    private(set) var arenaCount = 0
    /// The singleton cells the rows' plans point to (kept alive while any table uses the rows).
    private(set) var cells: [SingletonCell] = []
    /// Which rows name which by reference or provider (built at the first removal that asks).
    private(set) lazy var referrers = EntryReferrers()
    /// Which rows' tagged lists and optional references use which tag and name (built at the
    /// first change that asks).
    private(set) lazy var membershipUses = MembershipUses()
    /// The count of the newest table made over these rows: only a change to a table of this count
    /// may add rows above it (an older table, or one whose successor was made but not published,
    /// gets new rows).
    var claimed = 0

    /// Empty rows for `capacity` entries (`roomToAdd`: with `arenaOfRow`, and room in the arena
    /// list for one arena per row left).
    init(capacity: Int, arenas: Int, roomToAdd: Bool) {
        self.capacity = capacity
        let planBytes = max(1, capacity) * MemoryLayout<EntryPlan>.stride
        if planBytes >= HugePageMapping.hugePage, var m = HugePageMapping(bytes: planBytes) {
            m.trim(keeping: planBytes)
            plansMapping = m
            plans = m.start.bindMemory(to: EntryPlan.self, capacity: max(1, capacity))
        } else {
            plansMapping = nil
            plans = .allocate(capacity: max(1, capacity))
        }
        plans.initialize(repeating: EntryPlan(), count: max(1, capacity))
        names = NameTable(count: capacity)
        arenaOfRow = roomToAdd ? .allocate(capacity: max(1, capacity)) : nil
        arenaCapacity = max(1, arenas + (roomToAdd ? capacity : 0))
        arenaSlots = .allocate(capacity: arenaCapacity)
    }

    deinit {
        for k in 0..<arenaCount { arenaSlots[k].release() }
        arenaSlots.deallocate()
        arenaOfRow?.deallocate()
        if let m = plansMapping { m.unmap() } else { plans.deallocate() }
        names.deallocate()
    }

    /// Whether a table of `count` rows over these may add rows up to `newCount` in place.
    func mayAdd(to count: Int, upTo newCount: Int) -> Bool {
        arenaOfRow != nil && claimed == count && newCount <= capacity && arenaCount < arenaCapacity
    }

    /// Arena `k` of the list.
    @inline(__always) func arena(_ k: Int) -> DefinitionArena { arenaSlots[k].takeUnretainedValue() }

    /// Appends `arena` to the list (retained); returns its position.
    func append(_ arena: DefinitionArena) -> Int {
        precondition(arenaCount < arenaCapacity, "EntryRows: more arenas than made room for")
        (arenaSlots + arenaCount).initialize(to: .passRetained(arena))
        arenaCount += 1
        return arenaCount - 1
    }

    /// Keeps `cell` alive with the rows.
    func keep(_ cell: SingletonCell) { cells.append(cell) }

    /// Keeps `cells` alive with the rows.
    func keep(_ cells: [SingletonCell]) { self.cells += cells }

    /// The arena holding row `i`'s record, whose name is at `name`; `arenas` is how many of the
    /// list the asking table uses.
    @inline(__always) func arena(ofRow i: Int, name: UnsafePointer<UInt8>, arenas: Int) -> DefinitionArena {
        if let arenaOfRow { return arena(Int(arenaOfRow[i])) }
        let k = EntryRows.position(holding: name, count: arenas) { arena($0) }
        assert(arena(k).holds(name), "an entry name outside its table's arenas")
        return arena(k)
    }

    /// The position of the arena (of `arenas`, ordered by base address) whose bytes hold `p`.
    static func arena(holding p: UnsafePointer<UInt8>, in arenas: [DefinitionArena]) -> Int {
        let k = position(holding: p, count: arenas.count) { arenas[$0] }
        assert(arenas[k].holds(p), "an entry name outside its table's arenas")
        return k
    }

    /// The last of `count` arenas ordered by base address (`arena(k)` the k-th) that starts at or
    /// before `p`.
    @inline(__always) private static func position(
        holding p: UnsafePointer<UInt8>, count: Int, _ arena: (Int) -> DefinitionArena
    ) -> Int {
        let at = UInt(bitPattern: p)
        var lo = 0, hi = count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if UInt(bitPattern: arena(mid).base) <= at { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }
}
