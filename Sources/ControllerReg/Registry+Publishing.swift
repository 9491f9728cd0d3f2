/// Publishing a change: a candidate is built and validated under the writer lock (with every
/// descendant's), then installed.
extension Registry {
    /// Runs `body` on a candidate state under the writer lock, validates every child against it,
    /// and publishes it (and the children's new states) only if all of that succeeds. A child
    /// compiled again whole keeps its own unchanged singletons, whatever the change (a reload, an
    /// override, a class registered on the parent): building it again would leave two objects of
    /// one singleton, the old one still held by whoever created it. When `reloading`, every
    /// registry published retires the singleton cells its new state dropped
    /// (`Registry+Singletons.swift`).
    func change(reloading: Bool = false, _ body: (inout Candidate) throws(ConfigError) -> Void) throws(ConfigError) {
        if isClosed { throw ConfigError(.invalidArgument, closedText) }
        lock.lock()
        defer { lock.unlock() }
        // Singletons an earlier reload retired while creates were running (their destroy callbacks
        // run when the lock is released).
        reclaimRetiredSingletons()
        var c = Candidate(registry: self, state: state, current: cell.snapshot)
        try body(&c)
        let snapshot = c.snapshot()
        var locked: [Candidate] = []
        var problems: [Diagnostic] = []
        Registry.prepareChildren(
            of: self, parentSnapshot: snapshot,
            change: reloading ? nil : c.addedForChildren.map { .added($0) } ?? c.removedForChildren.map { .removed($0) },
            keepingSingletons: true, into: &locked, problems: &problems)
        defer { for child in locked { child.registry.lock.unlock() } }
        if !problems.isEmpty { throw ConfigError(problems) }
        // Every registry of the change is published before any singleton is retired, and all are
        // retired under the epoch of the last swap: until a child's new state is published, a
        // create through the child still reads its old view, which holds the parent's dropped
        // singletons too (an inherited entry's cell is the parent's). Retired under the parent's
        // own swap, such an object was destroyed while a create that entered the child after that
        // swap, and found it in the child's old view, still used it.
        let before = cell.snapshot
        var epoch = install(c, snapshot: snapshot)
        var childrenBefore: [Snapshot] = []
        childrenBefore.reserveCapacity(locked.count)
        for child in locked {
            childrenBefore.append(child.registry.cell.snapshot)
            epoch = child.registry.install(child, snapshot: child.builtSnapshot!)
        }
        if reloading {
            retireSingletons(replacing: before, with: snapshot, epoch: epoch)
            for (child, childBefore) in zip(locked, childrenBefore) {
                child.registry.retireSingletons(replacing: childBefore, with: child.builtSnapshot!, epoch: epoch)
            }
            // Destroyed deepest registry first, this one last: `locked` lists each registry before
            // its children, and a child's singleton may hold its parent's (a grandchild's its
            // child's), whose destroy must come after the holder's, as in one registry's reverse
            // order of creation and as when the parent is freed.
            for child in locked.reversed() { child.registry.reclaimRetiredSingletons() }
            reclaimRetiredSingletons()
        } else {
            retireReplacedSingletons(replacing: before, with: snapshot, epoch: epoch)
        }
    }

    /// Locks every descendant and computes its state over `parentSnapshot`, collecting problems.
    /// `change`: `.added` when the parent's change only added these entries, so each child's table
    /// is extended by them (the cost of the change, not of the registry); `.removed` when it only
    /// removed entries of these names, so each child removes those it does not define itself from
    /// its view (the same); nil: each child is compiled again.
    private static func prepareChildren(
        of registry: Registry, parentSnapshot: Snapshot, change: ChildChange?,
        keepingSingletons: Bool, into locked: inout [Candidate], problems: inout [Diagnostic]
    ) {
        for weak in registry.state.children {
            guard let child = weak.registry, !child.isClosed else { continue }
            child.lock.lock()
            if child.isClosed {
                // Closed while we waited: it must not get entries back.
                child.lock.unlock()
                continue
            }
            let result: Result<(Candidate, ChildChange?), ConfigError>
            switch change {
            case .added(let added)?:
                result = child.candidate(parentSnapshot: parentSnapshot, adding: added).map { ($0.0, $0.1.map { .added($0) }) }
            case .removed(let removed)?:
                result = child.candidate(parentSnapshot: parentSnapshot, removing: removed).map { ($0.0, .removed($0.1)) }
            case nil:
                result = child.candidate(
                    parentSnapshot: parentSnapshot, own: child.state.own, keepingSingletons: keepingSingletons
                )
                .map { ($0, nil) }
            }
            switch result {
            case .failure(let error):
                locked.append(Candidate(registry: child, state: child.state, current: child.cell.snapshot))
                problems += error.diagnostics.map {
                    Diagnostic($0.code, "the change would break a child registry: \($0.message)", at: $0.location)
                        .withPath($0.path)
                }
            case .success(let (c, childChange)):
                locked.append(c)
                prepareChildren(
                    of: child, parentSnapshot: c.builtSnapshot!, change: childChange, keepingSingletons: keepingSingletons,
                    into: &locked, problems: &problems)
            }
        }
    }

    /// This child's state recompiled over `parentSnapshot`. Call under this registry's lock.
    /// `keepingSingletons` (a reload): its own singletons whose definition and wiring are unchanged
    /// (`ReloadChanges`) keep their objects.
    func candidate(
        parentSnapshot: Snapshot, own: SharedTailList<EntryDefinition>, keepingSingletons: Bool = false
    ) -> Result<Candidate, ConfigError> {
        var c = Candidate(registry: self, state: state, current: cell.snapshot)
        c.parentSnapshot = parentSnapshot
        do throws(ConfigError) {
            try c.merge(parent: parentSnapshot, own: own, invalidNames: [], problems: [])
            if keepingSingletons {
                let old = cell.snapshot.entries
                let kept = Registry.keptSingletons(old: old, new: c.entries, own: Set(own.map(\.name)))
                if !kept.isEmpty { try c.merge(parent: parentSnapshot, own: own, invalidNames: [], problems: [], kept: kept) }
            }
        } catch {
            return .failure(error)
        }
        c.builtSnapshot = c.snapshot()
        return .success(c)
    }

    /// This child's state over `parentSnapshot` when the parent's change only added `added`: its
    /// table extended by those it does not define itself (an own entry of that name overrides
    /// it), validated as any change is (cycles and the lifetime rule through its overrides), the
    /// parent's singletons staying the parent's. Returns the candidate and the entries its view
    /// gained (its own children's grow by those). Call under this registry's lock.
    func candidate(
        parentSnapshot: Snapshot, adding added: [EntryDefinition]
    ) -> Result<(Candidate, [EntryDefinition]?), ConfigError> {
        var c = Candidate(registry: self, state: state, current: cell.snapshot)
        c.parentSnapshot = parentSnapshot
        let parentEntries = parentSnapshot.entries
        // The parent's table is one change ahead of this child's: a name the parent added that the
        // child's table has is one the child defines.
        var visible: [EntryDefinition] = []
        var inherited: [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] = [:]
        for d in added where c.entries.index(of: d.name) < 0 {
            visible.append(d)
            if d.lifestyle == .singleton, let s = parentEntries.singleton(at: parentEntries.index(of: d.name)) {
                inherited[d.name] = s
            }
        }
        if !visible.isEmpty {
            // No environment: each definition keeps the one it was committed with.
            var tx = Transaction(base: c.entries, classSlots: c.classSlots, maxStringBytes: limits.config.maxStringBytes)
            switch tx.apply(visible, inherited: inherited, owner: parent.map { Unmanaged.passUnretained($0) }) {
            case .failure(let error):
                return .failure(error)
            case .success(let table):
                c.adopt(table, from: tx)
            }
        }
        c.builtSnapshot = c.snapshot()
        return .success((c, visible))
    }

    /// This child's state over `parentSnapshot` when the parent's change only removed the entries
    /// named `removed`: those it does not define itself removed from its view (validated as any
    /// removal is: refused if one of its own entries refers to one), costing the entries removed,
    /// not the child's table. Returns the candidate and the names its view lost (its own
    /// children lose those). Call under this registry's lock.
    func candidate(
        parentSnapshot: Snapshot, removing removed: [String]
    ) -> Result<(Candidate, [String]), ConfigError> {
        var c = Candidate(registry: self, state: state, current: cell.snapshot)
        c.parentSnapshot = parentSnapshot
        // An own entry of a removed name overrides the parent's and stays. (The names this child
        // defines, read once per change: the size of its own definitions, not of its view.)
        let own = state.own.isEmpty ? [] : Set(state.own.map(\.name))
        let gone = removed.filter { !own.contains($0) && c.entries.index(of: $0) >= 0 }
        if !gone.isEmpty {
            var tx = Transaction(base: c.entries, classSlots: c.classSlots, maxStringBytes: limits.config.maxStringBytes)
            switch tx.apply([], removals: gone) {
            case .failure(let error):
                return .failure(error)
            case .success(let table):
                c.adopt(table, from: tx)
            }
        }
        c.builtSnapshot = c.snapshot()
        return .success((c, gone))
    }

    /// Publishes `c`; returns the epoch the replaced snapshot was retired under.
    @discardableResult
    func install(_ c: Candidate, snapshot: Snapshot? = nil) -> UInt64 {
        state.own = c.own
        state.history = c.history
        state.classSlots = c.classSlots
        state.classRecords = c.ownRecords
        state.templates = c.templates
        let published = snapshot ?? c.snapshot()
        // Rows the new table hides are marked removed before it is published: a create that
        // enters after the swap cannot find them (their singletons are retired under its epoch).
        published.entries.publishRemovals()
        return cell.publish(published)
    }
}

/// How a child's view changed with its parent's change, for its own children.
private enum ChildChange {
    /// Entries added to its view.
    case added([EntryDefinition])
    /// Entries of these names removed from its view.
    case removed([String])
}
