/// Publishing a change: a candidate is built and validated under the writer lock (with every
/// descendant's), then installed.
extension Registry {
    /// Runs `body` on a candidate state under the writer lock, validates every child against it,
    /// and publishes it (and the children's new states) only if all of that succeeds. When
    /// `reloading`, children keep their unchanged singletons and every registry published retires
    /// the singleton cells its new state dropped (`Registry+Singletons.swift`).
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
            of: self, parentSnapshot: snapshot, keepingSingletons: reloading, into: &locked, problems: &problems)
        defer { for child in locked { child.registry.lock.unlock() } }
        if !problems.isEmpty { throw ConfigError(problems) }
        let before = cell.snapshot
        let epoch = install(c, snapshot: snapshot)
        if reloading {
            retireSingletons(replacing: before, with: snapshot, epoch: epoch)
        } else {
            retireReplacedSingletons(replacing: before, with: snapshot, epoch: epoch)
        }
        for child in locked {
            let registry = child.registry
            let childBefore = registry.cell.snapshot
            let childEpoch = registry.install(child, snapshot: child.builtSnapshot!)
            if reloading {
                registry.retireSingletons(replacing: childBefore, with: child.builtSnapshot!, epoch: childEpoch)
                registry.reclaimRetiredSingletons()
            }
        }
        if reloading { reclaimRetiredSingletons() }
    }

    /// Locks every descendant and computes its state over `parentSnapshot`, collecting problems.
    private static func prepareChildren(
        of registry: Registry, parentSnapshot: Snapshot, keepingSingletons: Bool, into locked: inout [Candidate],
        problems: inout [Diagnostic]
    ) {
        for weak in registry.state.children {
            guard let child = weak.registry, !child.isClosed else { continue }
            child.lock.lock()
            if child.isClosed {
                // Closed while we waited: it must not get entries back.
                child.lock.unlock()
                continue
            }
            switch child.candidate(parentSnapshot: parentSnapshot, own: child.state.own, keepingSingletons: keepingSingletons) {
            case .failure(let error):
                locked.append(Candidate(registry: child, state: child.state, current: child.cell.snapshot))
                problems += error.diagnostics.map {
                    Diagnostic($0.code, "the change would break a child registry: \($0.message)", at: $0.location)
                        .withPath($0.path)
                }
            case .success(let c):
                locked.append(c)
                prepareChildren(
                    of: child, parentSnapshot: c.builtSnapshot!, keepingSingletons: keepingSingletons, into: &locked,
                    problems: &problems)
            }
        }
    }

    /// This child's state recompiled over `parentSnapshot`. Call under this registry's lock.
    /// `keepingSingletons` (a reload): its own singletons whose definition and wiring are unchanged
    /// (`ReloadChanges`) keep their objects.
    func candidate(
        parentSnapshot: Snapshot, own: [EntryDefinition], keepingSingletons: Bool = false
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

    /// Publishes `c`; returns the epoch the replaced snapshot was retired under.
    @discardableResult
    func install(_ c: Candidate, snapshot: Snapshot? = nil) -> UInt64 {
        state.own = c.own
        state.history = c.history
        state.classSlots = c.classSlots
        state.classRecords = c.ownRecords
        state.templates = c.templates
        return cell.publish(snapshot ?? c.snapshot())
    }
}
