/// The singletons a registry owns, and destroying those a reload replaced once no create can
/// still reach them.
///
/// A reload publishes a snapshot without the cells of changed and removed singleton entries. A
/// create that began before the swap may still be inside the old snapshot, building or handing out
/// such an object, so the cells are retired under the epoch of the swap (the rule that frees old
/// snapshots, `EpochReclamation.swift`) and their objects are destroyed only when every reader has
/// left that epoch: at the end of the reload when no create is running, else at the next change to
/// the registry (or when it is freed).
struct SingletonLedger {
    /// Built singletons in creation order: the object, its class, and the cell that holds it.
    var built: [(object: UInt, record: ClassRecord, cell: SingletonCell)] = []
    /// Cells a reload dropped, with the epoch of the swap that dropped them.
    var retired: [(epoch: UInt64, cells: [SingletonCell])] = []

    /// Takes out the built singletons of every retired cell whose epoch is before `oldest` (the
    /// oldest epoch a reader is in), in creation order.
    mutating func takeReclaimable(before oldest: UInt64) -> [(object: UInt, record: ClassRecord)] {
        var doomed = Set<ObjectIdentifier>()
        retired.removeAll { batch in
            guard batch.epoch < oldest else { return false }
            for c in batch.cells { doomed.insert(ObjectIdentifier(c)) }
            return true
        }
        if doomed.isEmpty { return [] }
        var taken: [(object: UInt, record: ClassRecord)] = []
        built.removeAll { item in
            guard doomed.contains(ObjectIdentifier(item.cell)) else { return false }
            taken.append((item.object, item.record))
            return true
        }
        return taken
    }
}

extension Registry {
    /// Records a singleton this registry now owns.
    func adoptSingleton(_ object: UnsafeMutableRawPointer, _ record: ClassRecord, cell: SingletonCell) {
        singletons.withLock { $0.built.append((UInt(bitPattern: object), record, cell)) }
    }

    /// Retires the singleton cells `old` held that `new` does not (this registry's own cells: an
    /// inherited entry's singleton belongs to the parent), under `epoch`, the swap's.
    func retireSingletons(replacing old: Snapshot, with new: Snapshot, epoch: UInt64) {
        var kept = Set<ObjectIdentifier>()
        for i in 0..<new.entries.count {
            if let (cell, owner) = new.entries.singleton(at: i), owner == nil { kept.insert(ObjectIdentifier(cell)) }
        }
        var gone: [SingletonCell] = []
        for i in 0..<old.entries.count {
            if let (cell, owner) = old.entries.singleton(at: i), owner == nil, !kept.contains(ObjectIdentifier(cell)) {
                gone.append(cell)
            }
        }
        if !gone.isEmpty { singletons.withLock { $0.retired.append((epoch, gone)) } }
    }

    /// After a change that is not a reload (an override load, a removal, an entry added from code
    /// over another): retires, under `epoch`, the cells `old` held that `new` does not — the
    /// objects of replaced and removed singleton entries — so they are destroyed once no create
    /// can reach them. A dropped singleton that a singleton still in `new` (with its object built)
    /// reaches through object edges in `old` is kept instead: that object may hold it (it stays
    /// until the registry is freed, or a reload rebuilds the holder and lets both go).
    func retireReplacedSingletons(replacing old: Snapshot, with new: Snapshot, epoch: UInt64) {
        // No change of entries (a class registered): nothing dropped.
        if new.entries === old.entries { return }
        guard singletons.withLock({ !$0.built.isEmpty }) else { return }
        if new.entries.shares(rowsOf: old.entries) {
            // Entries added (their rows written past the old table's) or removed by hiding their
            // rows: no pass over the table. Such a removal compiled no entry again, so no entry
            // that stays has an object edge to a removed one (references to it are refused;
            // tagged lists and optional references that held it are compiled again, which
            // copies the rows): its singleton is reached by nothing that stays.
            let dropped = new.entries.droppedSingletonCells()
            if !dropped.isEmpty {
                singletons.withLock { $0.retired.append((epoch, dropped)) }
                reclaimRetiredSingletons()
            }
            return
        }
        var inNew = Set<ObjectIdentifier>()
        var builtInNew: [Int] = []
        for i in 0..<new.entries.count {
            guard let (cell, owner) = new.entries.singleton(at: i), owner == nil else { continue }
            inNew.insert(ObjectIdentifier(cell))
            if cell.value != nil { builtInNew.append(i) }
        }
        var gone: [(index: Int, cell: SingletonCell)] = []
        for i in 0..<old.entries.count {
            if let (cell, owner) = old.entries.singleton(at: i), owner == nil, !inNew.contains(ObjectIdentifier(cell)) {
                gone.append((i, cell))
            }
        }
        if gone.isEmpty { return }
        // Built singletons of `new` that were in `old` too (the same cell), by name.
        var holders = Set<NameKey>()
        for i in builtInNew {
            guard let bytes = new.entries.entryName(at: i), let j = old.entries.position(ofName: bytes),
                let (cell, _) = old.entries.singleton(at: j), inNew.contains(ObjectIdentifier(cell))
            else { continue }
            if let oldBytes = old.entries.entryName(at: j) { holders.insert(NameKey(oldBytes)) }
        }
        var retired: [SingletonCell] = []
        for (i, cell) in gone {
            guard let bytes = old.entries.entryName(at: i) else { continue }
            if !holders.isEmpty && !ReloadChanges.reachingAny(of: [NameKey(bytes)], in: old.entries).isDisjoint(with: holders) {
                continue
            }
            retired.append(cell)
        }
        if !retired.isEmpty {
            singletons.withLock { $0.retired.append((epoch, retired)) }
            reclaimRetiredSingletons()
        }
    }

    /// Destroys the singletons of retired cells no create can reach any more, in reverse order of
    /// creation. The destroy callbacks run outside every writer lock (`HostCallbacks`).
    func reclaimRetiredSingletons() {
        guard singletons.withLock({ !$0.retired.isEmpty }) else { return }
        let oldest = Epoch.oldestActive()
        let doomed = singletons.withLock { $0.takeReclaimable(before: oldest) }
        for (object, record) in doomed.reversed() {
            guard let destroy = record.host.destroy, let p = UnsafeMutableRawPointer(bitPattern: object) else { continue }
            let context = record.host.context
            HostCallbacks.run { destroy(p, context) }
        }
    }
}
