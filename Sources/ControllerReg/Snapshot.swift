/// One entry as compiled by a transaction: its definition (for listing and messages), its plan,
/// and the entry indices it references (for cycle checks when later loads add entries).
final class CompiledEntry: @unchecked Sendable {
    let definition: EntryDefinition
    let plan: EntryPlan
    let edges: [Int32]
    let nameBytes: (UnsafePointer<UInt8>, Int)
    /// Keeps the plan's memory alive.
    let arena: Arena

    init(definition: EntryDefinition, plan: EntryPlan, edges: [Int32], nameBytes: (UnsafePointer<UInt8>, Int), arena: Arena) {
        self.definition = definition
        self.plan = plan
        self.edges = edges
        self.nameBytes = nameBytes
        self.arena = arena
    }
}

/// All entries of one published state, indexed; immutable once built.
final class EntryTable: @unchecked Sendable {
    /// By index; nil where an entry was removed.
    let compiled: [CompiledEntry?]
    /// Plain-data copy of each plan for the create path.
    let plans: UnsafeMutablePointer<EntryPlan>
    let count: Int
    let names: NameTable

    init(compiled: [CompiledEntry?]) {
        self.compiled = compiled
        count = compiled.count
        plans = .allocate(capacity: max(1, compiled.count))
        for (i, c) in compiled.enumerated() { (plans + i).initialize(to: c?.plan ?? EntryPlan()) }
        names = NameTable(names: compiled.map { $0?.nameBytes })
    }

    deinit {
        plans.deallocate()
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
final class ClassTable: @unchecked Sendable {
    /// Class name of each slot.
    let names: [String]
    /// The registered class of each slot, or nil.
    let records: [ClassRecord?]
    let functions: UnsafeMutablePointer<ClassFunctions>
    let count: Int

    init(names: [String], records: [ClassRecord?]) {
        self.names = names
        self.records = records
        count = records.count
        functions = .allocate(capacity: max(1, records.count))
        for (i, r) in records.enumerated() {
            (functions + i).initialize(to: ClassFunctions(
                create: r?.host.create, destroy: r?.host.destroy, set: r?.host.set,
                context: r?.host.context, borrowsArguments: r?.host.borrowsArguments ?? false))
        }
    }

    deinit { functions.deallocate() }
}

/// The immutable state readers see: entries plus classes. Replaced whole by each transaction.
final class Snapshot: @unchecked Sendable {
    let entries: EntryTable
    let classes: ClassTable

    init(entries: EntryTable, classes: ClassTable) {
        self.entries = entries
        self.classes = classes
    }
}
