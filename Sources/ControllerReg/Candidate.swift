/// A proposed next state of one registry, built under its lock.
struct Candidate {
    let registry: Registry
    var classSlots: ClassSlots
    /// This registry's own class records by slot (padded to every slot by `padRecords`).
    var ownRecords: [ClassRecord?]
    var templates: [String]
    var own: SharedTailList<EntryDefinition>
    var history: ReloadHistory
    var entries: EntryTable
    /// For a child: the parent's (candidate) snapshot its classes and entries fall back to.
    var parentSnapshot: Snapshot?
    var builtSnapshot: Snapshot?
    /// How many changes of entries (`Registry.stage`) this candidate holds (a reload replays many).
    var stagedChanges = 0
    /// When the candidate holds one change that only added entries to a registry with children:
    /// those entries as defined, so each child extends its table by them
    /// (`Registry.candidate(parentSnapshot:adding:)`) instead of compiling every entry again.
    /// nil after any other change (the children are compiled again over the new state).
    var addedForChildren: [EntryDefinition]?
    /// When the candidate holds one change that only removed entries from a registry with
    /// children: their names, so each child removes them from its view the same way
    /// (`Registry.candidate(parentSnapshot:removing:)`). nil after any other change.
    var removedForChildren: [String]?

    init(registry: Registry, state: WriterState, current: Snapshot) {
        self.registry = registry
        classSlots = state.classSlots
        ownRecords = state.classRecords
        templates = state.templates
        own = state.own
        history = state.history
        entries = current.entries
        parentSnapshot = registry.parent?.cell.snapshot
    }

    /// The slot for a class name, allocating one for a name not seen before.
    mutating func classSlot(for name: String) -> Int {
        defer { padRecords() }
        return classSlots.slot(for: name)
    }

    /// Takes the table a transaction `tx` built over this candidate, and the class slots it
    /// allocated (each given a record).
    mutating func adopt(_ table: EntryTable, from tx: Transaction) {
        classSlots = tx.classSlots
        padRecords()
        entries = table
    }

    /// Gives every class slot a (possibly empty) record.
    mutating func padRecords() {
        while ownRecords.count < classSlots.count { ownRecords.append(nil) }
    }

    /// Compiles a child's entries: the parent's, overridden and extended by `own`.
    /// `namesIncomplete` and `kept` are `Transaction.apply`'s.
    mutating func merge(
        parent: Snapshot, own: SharedTailList<EntryDefinition>, invalidNames: Set<String>, problems: [Diagnostic],
        namesIncomplete: Bool = false, kept: [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] = [:]
    ) throws(ConfigError) {
        var definitions: [EntryDefinition] = []
        var position: [String: Int] = [:]
        var inherited: [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] = [:]
        for i in 0..<parent.entries.count {
            guard let definition = parent.entries.definition(at: i) else { continue }
            position[definition.name] = definitions.count
            definitions.append(definition)
            inherited[definition.name] = parent.entries.singleton(at: i)
        }
        for d in own {
            if let i = position[d.name] {
                definitions[i] = d
                inherited[d.name] = nil
            } else {
                position[d.name] = definitions.count
                definitions.append(d)
            }
        }
        // Parent classes are reachable by name in the child.
        for (i, name) in parent.classes.names.enumerated() where parent.classes.records[i] != nil { _ = classSlot(for: name) }
        // No environment: every definition is resolved against the one it was committed with.
        var tx = Transaction(
            base: EntryTable(), classSlots: classSlots,
            maxStringBytes: registry.limits.config.maxStringBytes)
        switch tx.apply(
            definitions, invalidNames: invalidNames, decodeProblems: problems, namesIncomplete: namesIncomplete,
            inherited: inherited, owner: registry.parent.map { Unmanaged.passUnretained($0) }, kept: kept)
        {
        case .failure(let error):
            throw error
        case .success(let table):
            adopt(table, from: tx)
            self.own = own
            parentSnapshot = parent
        }
    }

    /// The snapshot this candidate describes (classes fall back to the parent's by name).
    func snapshot() -> Snapshot {
        var records = ownRecords
        while records.count < classSlots.count { records.append(nil) }
        if let parent = parentSnapshot {
            for (slot, name) in classSlots.names.enumerated() where records[slot] == nil {
                let p = parent.classes.lookup.find(name)
                if p >= 0 { records[slot] = parent.classes.records[p] }
            }
        }
        // The parent's templates first, then this registry's own that the parent does not have.
        var templates = parentSnapshot?.templates ?? []
        for template in self.templates where !templates.contains(template) { templates.append(template) }
        return Snapshot(entries: entries, classes: ClassTable(names: classSlots.names, records: records), templates: templates)
    }
}
