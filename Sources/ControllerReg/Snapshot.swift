/// One entry as compiled by a transaction: its definition (for listing and messages), its plan,
/// the entry indices it references (for cycle checks when later loads change entries), and for a
/// singleton the cell that holds its one object.
// @unchecked: `plan` is set while its transaction builds it, before publication; immutable afterwards.
final class CompiledEntry: @unchecked Sendable {
    let definition: EntryDefinition
    private(set) var plan: EntryPlan
    /// Entries it creates directly (references, tagged list members and optional references that
    /// exist; not providers): the edges of the cycle rule.
    let edges: [Int32]
    /// Every entry it names by reference or provider: what must not be removed under it (tagged
    /// members and optional targets may be removed: the entry is compiled again).
    let targets: [Int32]
    let nameBytes: (UnsafePointer<UInt8>, Int)
    let singleton: SingletonCell?
    /// The registry that defines this singleton when it is not the one holding this entry (an
    /// entry a child inherits): the singleton is built there and lives there.
    let owner: Unmanaged<Registry>?
    /// Keeps the plan's memory alive.
    let arena: Arena

    /// `keeping`: the entry this one recompiles with the same definition (its tagged lists or
    /// optional references changed): a singleton keeps its cell, so an object already built stays.
    init(
        definition: EntryDefinition, plan: EntryPlan, edges: [Int32], targets: [Int32],
        nameBytes: (UnsafePointer<UInt8>, Int), arena: Arena, inheritedFrom: CompiledEntry? = nil,
        parent: Unmanaged<Registry>? = nil, keeping previous: CompiledEntry? = nil
    ) {
        self.definition = definition
        self.edges = edges
        self.targets = targets
        self.nameBytes = nameBytes
        self.arena = arena
        if definition.lifestyle == .singleton, let inherited = inheritedFrom, let cell = inherited.singleton {
            singleton = cell
            owner = inherited.owner ?? parent
        } else if definition.lifestyle == .singleton, let previous, let cell = previous.singleton {
            singleton = cell
            owner = previous.owner
        } else {
            singleton = definition.lifestyle == .singleton ? SingletonCell(name: definition.name) : nil
            owner = nil
        }
        self.plan = plan
        if let singleton { self.plan.singleton = Unmanaged.passUnretained(singleton).toOpaque() }
        self.plan.owner = owner?.toOpaque()
    }
}

/// All entries of one published state, indexed; immutable once built.
// @unchecked: its plan table is raw memory written in init and read-only afterwards.
final class EntryTable: @unchecked Sendable {
    /// By index; nil where an entry was removed.
    let compiled: [CompiledEntry?]
    /// Plain-data copy of each plan for the create path.
    let plans: CheckedPointer<EntryPlan>
    let count: Int
    let names: NameTable
    /// Entries whose plans hold a tagged list or an optional reference (`EntryPlan.dynamic`): the
    /// ones a change of membership may have to compile again.
    let dynamic: [Int32]

    init(compiled: [CompiledEntry?]) {
        self.compiled = compiled
        count = compiled.count
        let storage = UnsafeMutablePointer<EntryPlan>.allocate(capacity: max(1, compiled.count))
        var dynamic: [Int32] = []
        for (i, c) in compiled.enumerated() {
            let plan = c?.plan ?? EntryPlan()
            (storage + i).initialize(to: plan)
            if plan.dynamic { dynamic.append(Int32(i)) }
        }
        self.dynamic = dynamic
        plans = CheckedPointer(storage, count: compiled.count)
        names = NameTable(names: compiled.map { $0?.nameBytes })
    }

    deinit {
        UnsafeMutablePointer(mutating: plans.base).deallocate()
        names.deallocate()
    }

    /// The index of a live entry by name, or -1.
    func index(of name: String) -> Int {
        let i = names.find(name)
        return i >= 0 && plans[i].live ? i : -1
    }

    /// Names of all live entries, in index order.
    var liveNames: [String] { compiled.compactMap { $0?.definition.name } }
}

/// What a class slot can do, as plain data for the create path.
struct ClassFunctions {
    var create: HostClass.CreateFunction?
    var destroy: HostClass.DestroyFunction?
    var set: HostClass.SetFunction?
    var context: UnsafeMutableRawPointer?
    var borrowsArguments: Bool
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
                    context: r?.host.context, borrowsArguments: r?.host.borrowsArguments ?? false))
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

    init(entries: EntryTable, classes: ClassTable, templates: [String]) {
        self.entries = entries
        self.classes = classes
        self.templates = templates
    }
}
