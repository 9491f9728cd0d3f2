/// Reloading: the registry's recorded changes given again, validated whole, swapped in at once.
extension Registry {
    /// Reads again every file loaded into this registry and rebuilds it, validated whole, in one
    /// atomic swap. Returns what changed.
    ///
    /// The registry's history is replayed in order over an empty table, as the same calls would
    /// build it today: files are read again (same paths, a relative one from the directory current
    /// at its load; same formats, modes; files loaded together
    /// stay one transaction), config text, `add` and `remove` are applied again as they were.
    /// Every problem of the whole result is reported at once (a file that cannot be read is an
    /// `.io` problem) and on any of them nothing changes. Class registrations and name templates
    /// are not touched; a registry with nothing loaded reloads to itself.
    ///
    /// Singletons of changed and removed entries (`ReloadChanges.changed` includes singletons
    /// whose objects reach a changed entry) are destroyed, in reverse order of creation, once no
    /// create that began before the swap is still running; the others keep their objects. Children
    /// are revalidated and recompiled as for any change of their parent, and keep their own
    /// unchanged singletons the same way. Thread-safe: creates on other threads see the old
    /// registry or the new one, never a mix.
    public func reload() throws(ConfigError) -> ReloadChanges {
        var changes = ReloadChanges()
        // Like a load, a reload of large files gives the pages of its intermediate forms back.
        var textBytes = 0
        defer { FreedMemory.release(afterLoadOf: textBytes) }
        try change(reloading: true) { (c) throws(ConfigError) in changes = try replay(&c, textBytes: &textBytes) }
        return changes
    }

    /// Rebuilds `c` from its history; returns what differs from its current entries. Adds the
    /// size of the files read again to `textBytes`.
    private func replay(_ c: inout Candidate, textBytes: inout Int) throws(ConfigError) -> ReloadChanges {
        let history = c.history
        let old = c.entries
        var fresh = c
        fresh.history = ReloadHistory()
        fresh.own = []
        if let parent = c.parentSnapshot {
            try fresh.merge(parent: parent, own: [], invalidNames: [], problems: [])
        } else {
            fresh.entries = EntryTable()
        }
        // What each step gives now (files read again), before any is applied: a step's reference
        // to a name a later step defines is not a problem of that step.
        var given: [(staged: StagedEntries, problems: [Diagnostic], invalidNames: [String])] = []
        var unread = false
        var definedAnywhere = Set<String>()
        let replacedByStep = history.replacedByStep()
        for (k, step) in history.steps.enumerated() {
            var item: (staged: StagedEntries, problems: [Diagnostic], invalidNames: [String])
            switch step.source {
            case .files(let paths, let format):
                // Read as `load(paths:)` reads them: straight into the step's records.
                var load = StagedLoad()
                let (bytesRead, unreadProblems) = load.read(paths: paths, format: format, limits: limits.config)
                textBytes += bytesRead
                if !unreadProblems.isEmpty { unread = true }
                item = (load.staged ?? StagedEntries(entries: 0), unreadProblems + load.diagnostics, load.invalidNames.strings())
            case .given:
                item = (
                    StagedEntries(
                        (replacedByStep[Int32(k)] ?? [])
                            + Registry.liveDefinitions(ofStep: Int32(k), history: history, entries: old, own: c)),
                    [], []
                )
            }
            // Held until every step is applied: without the cache the writes used (12 KiB a step,
            // and a registry built by adding entries one at a time has a step per entry).
            item.staged.arena.forgetRecentStrings()
            for i in 0..<item.staged.count { definedAnywhere.insert(item.staged.name(i)) }
            definedAnywhere.formUnion(item.invalidNames)
            given.append(item)
        }
        if c.parentSnapshot == nil, history.steps.count == 1, given[0].problems.isEmpty, given[0].invalidNames.isEmpty,
            let changes = try replayOneStep(&c, history.steps[0], given[0].staged)
        {
            return changes
        }
        var problems: [Diagnostic] = []
        // Names of entries that failed to decode or whose step failed: references to them are
        // not reported again as missing.
        var failedNames = Set<String>()
        for (k, step) in history.steps.enumerated() {
            let (staged, decodeProblems, invalidNames) = given[k]
            failedNames.formUnion(invalidNames)
            do throws(ConfigError) {
                try stage(
                    &fresh, staged, mode: step.mode, removals: step.removals, source: step.source,
                    invalidNames: definedAnywhere, decodeProblems: decodeProblems, namesIncomplete: unread,
                    environment: step.environment)
            } catch {
                problems += error.diagnostics
                failedNames.formUnion((0..<staged.count).map { staged.name($0) })
            }
        }

        let newEntries = fresh.entries
        let ownNames = c.parentSnapshot == nil ? nil : Set(fresh.own.map(\.name))
        let changes = ReloadChanges.compare(
            old: old, new: newEntries,
            notRebuilt: ownNames.map { own in Set(newEntries.liveNames).subtracting(own) } ?? [])!
        let kept = Registry.keptSingletons(old: old, new: newEntries, changes: changes)
        // The whole result, validated and compiled once more: references and cycles across steps,
        // and the kept singletons' cells carried over.
        do throws(ConfigError) {
            if let parent = c.parentSnapshot {
                try fresh.merge(
                    parent: parent, own: fresh.own, invalidNames: failedNames, problems: [], namesIncomplete: unread, kept: kept)
            } else {
                // The entries decoded and encoded again one at a time (no list of all of them).
                var all = StagedEntries(entries: newEntries.liveCount)
                for i in 0..<newEntries.count where newEntries.isLive(i) { all.append(newEntries.definition(at: i)!) }
                var tx = Transaction(base: EntryTable(), classSlots: fresh.classSlots)
                switch tx.apply(staged: all, invalidNames: failedNames, namesIncomplete: unread, kept: kept) {
                case .failure(let error): throw error
                case .success(let table):
                    // Indices are compacted: origins follow their entries.
                    var origins: [Int32] = []
                    origins.reserveCapacity(table.count)
                    for i in 0..<fresh.entries.count where fresh.entries.isLive(i) {
                        origins.append(i < fresh.history.origins.count ? fresh.history.origins[i] : -1)
                    }
                    fresh.history.origins = SharedTailList(origins)
                    fresh.classSlots = tx.classSlots
                    fresh.padRecords()
                    fresh.entries = table
                }
            }
        } catch {
            problems += error.diagnostics
        }
        if !problems.isEmpty {
            // A problem found both by a step and by the whole check is reported once.
            var seen = Set<Diagnostic>()
            throw ConfigError(problems.filter { seen.insert($0).inserted })
        }
        c = fresh
        return changes
    }

    /// `replay` of a root registry whose history is one step (one load: the usual case), read
    /// again as `staged`: its entries are compared with the current ones from their records, then
    /// validated and committed once, keeping the unchanged singletons' cells (the general replay
    /// commits each step and then the whole result, as steps may refer to each other). nil, with
    /// `c` untouched, when the step names an entry twice (its later definition wins: left to the
    /// general replay).
    private func replayOneStep(
        _ c: inout Candidate, _ step: ReloadHistory.Step, _ staged: StagedEntries
    ) throws(ConfigError) -> ReloadChanges? {
        let lookup = EnvironmentLookup(step.environment)
        let new = StagedRecordSet(staged: staged, lookup: lookup)
        guard let changes = ReloadChanges.compare(old: c.entries, new: new) else { return nil }
        var fresh = c
        fresh.history = ReloadHistory()
        fresh.own = []
        fresh.entries = EntryTable()
        do throws(ConfigError) {
            try stage(
                &fresh, staged, mode: step.mode, removals: step.removals, source: step.source, invalidNames: [],
                decodeProblems: [], namesIncomplete: false, environment: step.environment, lookup: lookup,
                kept: Registry.keptSingletons(old: c.entries, new: new, changes: changes))
        } catch {
            // As the general replay reports them: each problem once.
            var seen = Set<Diagnostic>()
            throw ConfigError(error.diagnostics.filter { seen.insert($0).inserted })
        }
        c = fresh
        return changes
    }

    /// The definitions step `step` (given directly) made that are still live in the registry.
    private static func liveDefinitions(
        ofStep step: Int32, history: ReloadHistory, entries: EntryTable, own c: Candidate
    ) -> [EntryDefinition] {
        if c.parentSnapshot != nil {
            return c.own.indices.compactMap { i in
                i < history.origins.count && history.origins[i] == step ? c.own[i] : nil
            }
        }
        return (0..<entries.count).compactMap { i in
            guard i < history.origins.count, history.origins[i] == step else { return nil }
            return entries.definition(at: i)
        }
    }

    /// The current cells (and owners) of singletons `changes` leaves alone (their objects carry
    /// over), by name. Only this registry's own singletons: inherited ones are the parent's.
    static func keptSingletons<New: EntryRecordSet>(
        old: EntryTable, new: New, changes: ReloadChanges
    ) -> [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] {
        let dirty = Set(changes.added).union(changes.changed)
        var kept: [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] = [:]
        for k in 0..<new.positionCount {
            guard let bytes = new.entryName(at: k) else { continue }
            let (arena, offset) = new.definitionRecord(at: k)
            guard DefinitionCoding.lifestyle(arena, at: offset) == .singleton else { continue }
            let name = String(decoding: bytes, as: UTF8.self)
            guard !dirty.contains(name) else { continue }
            let i = old.index(of: bytes, hash: NameTable.hash(bytes.baseAddress ?? emptyKey, bytes.count))
            if i >= 0, let s = old.singleton(at: i), s.owner == nil { kept[name] = s }
        }
        return kept
    }

    /// `keptSingletons` for a child recompiled over its parent's reloaded state: `own` are the
    /// child's own names (only their singletons are the child's).
    static func keptSingletons(
        old: EntryTable, new: EntryTable, own: Set<String>
    ) -> [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] {
        let changes = ReloadChanges.compare(old: old, new: new, notRebuilt: Set(new.liveNames).subtracting(own))!
        return keptSingletons(old: old, new: new, changes: changes)
    }
}
