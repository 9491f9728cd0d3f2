/// Publishing a change: a candidate is built and validated under the writer lock (with every
/// descendant's), then installed.
extension Registry {
    /// Runs `body` on a candidate state under the writer lock, validates every child against it,
    /// and publishes it (and the children's new states) only if all of that succeeds.
    func change(_ body: (inout Candidate) throws(ConfigError) -> Void) throws(ConfigError) {
        if isClosed { throw ConfigError(.invalidArgument, "the registry has been freed") }
        lock.lock()
        defer { lock.unlock() }
        var c = Candidate(registry: self, state: state, current: cell.snapshot)
        try body(&c)
        let snapshot = c.snapshot()
        var locked: [Candidate] = []
        var problems: [Diagnostic] = []
        Registry.prepareChildren(of: self, parentSnapshot: snapshot, into: &locked, problems: &problems)
        defer { for child in locked { child.registry.lock.unlock() } }
        if !problems.isEmpty { throw ConfigError(problems) }
        install(c, snapshot: snapshot)
        for child in locked { child.registry.install(child, snapshot: child.builtSnapshot!) }
    }

    /// Locks every descendant and computes its state over `parentSnapshot`, collecting problems.
    private static func prepareChildren(
        of registry: Registry, parentSnapshot: Snapshot, into locked: inout [Candidate],
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
            switch child.candidate(parentSnapshot: parentSnapshot, own: child.state.own) {
            case .failure(let error):
                locked.append(Candidate(registry: child, state: child.state, current: child.cell.snapshot))
                problems += error.diagnostics.map {
                    Diagnostic($0.code, "the change would break a child registry: \($0.message)", at: $0.location)
                }
            case .success(let c):
                locked.append(c)
                prepareChildren(of: child, parentSnapshot: c.builtSnapshot!, into: &locked, problems: &problems)
            }
        }
    }

    /// This child's state recompiled over `parentSnapshot`. Call under this registry's lock.
    func candidate(parentSnapshot: Snapshot, own: [EntryDefinition]) -> Result<Candidate, ConfigError> {
        var c = Candidate(registry: self, state: state, current: cell.snapshot)
        c.parentSnapshot = parentSnapshot
        do throws(ConfigError) {
            try c.merge(parent: parentSnapshot, own: own, invalidNames: [], problems: [])
        } catch {
            return .failure(error)
        }
        c.builtSnapshot = c.snapshot()
        return .success(c)
    }

    func install(_ c: Candidate, snapshot: Snapshot? = nil) {
        state.own = c.own
        state.classSlots = c.classSlots
        state.classRecords = c.ownRecords
        state.templates = c.templates
        cell.publish(snapshot ?? c.snapshot())
    }
}
