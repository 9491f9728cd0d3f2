/// One entry as compiled by a transaction: its definition in compact form (decoded on demand,
/// for listing and messages), its plan, the entry indices it references (for cycle checks when
/// later loads change entries), and for a singleton the cell that holds its one object.
// @unchecked: `plan` is set while its transaction builds it, before publication; immutable afterwards.
final class CompiledEntry: @unchecked Sendable {
    /// The arena holding the definition's record, and the record's offset.
    let definitions: DefinitionArena
    let record: Int
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
    /// The environment its `${NAME}` and `{Env: NAME}` values were resolved against (nil when it
    /// has none): given back with the definition, so a child compiling it again gets the same values.
    let environment: EnvironmentLookup?

    /// `keeping`: the entry this one replaces with the same definition (a reload that left it
    /// unchanged, or a change to the members of its tagged lists or optional references): a
    /// singleton keeps its cell, so an object already built stays.
    init(
        name: String, lifestyle: Lifestyle, definitions: DefinitionArena, record: Int, plan: EntryPlan,
        edges: [Int32], targets: [Int32], nameBytes: (UnsafePointer<UInt8>, Int), arena: Arena,
        inheritedFrom: CompiledEntry? = nil, parent: Unmanaged<Registry>? = nil, keeping kept: CompiledEntry? = nil,
        environment: EnvironmentLookup? = nil
    ) {
        self.definitions = definitions
        self.environment = environment
        self.record = record
        self.edges = edges
        self.targets = targets
        self.nameBytes = nameBytes
        self.arena = arena
        if lifestyle == .singleton, let kept, let cell = kept.singleton {
            // A reload left the entry unchanged: the same cell, so the same object, and owner.
            singleton = cell
            owner = kept.owner
        } else if lifestyle == .singleton, let inherited = inheritedFrom, let cell = inherited.singleton {
            singleton = cell
            owner = inherited.owner ?? parent
        } else {
            singleton = lifestyle == .singleton ? SingletonCell(name: name) : nil
            owner = nil
        }
        self.plan = plan
        if let singleton { self.plan.singleton = Unmanaged.passUnretained(singleton).toOpaque() }
        self.plan.owner = owner?.toOpaque()
    }

    /// The definition as committed (decoded from its record).
    var definition: EntryDefinition {
        var d = DefinitionCoding.decode(definitions, at: record)
        d.environment = environment
        return d
    }
    /// The entry's name.
    var name: String { String(decoding: UnsafeBufferPointer(start: nameBytes.0, count: nameBytes.1), as: UTF8.self) }
    /// Where the entry was defined (nil for entries added from code).
    var location: SourceLocation? { DefinitionCoding.location(definitions, at: record) }
    /// The entry's tags (read from its record without decoding the rest).
    var tags: [EntryTag] { DefinitionCoding.tags(definitions, at: record) }
    /// Whether it is a singleton built by `Registry.start()`.
    var isEagerSingleton: Bool { DefinitionCoding.isEagerSingleton(definitions, at: record) }
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
    var liveNames: [String] { compiled.compactMap { $0?.name } }
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
