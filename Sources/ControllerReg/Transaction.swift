/// A registry change in the making: validates the change against the whole graph and compiles
/// what it adds, touching nothing until the caller publishes the result. A failed transaction
/// leaves the registry exactly as it was.
struct Transaction {
    /// How a definition whose name already exists is treated.
    enum Mode {
        /// It is an error naming both places.
        case add
        /// It replaces the existing entry (references to the name now reach the new one).
        case override
    }

    /// What a change to a child registry must know beyond its table: the names it defines
    /// itself (the rest are its parent's: they may be overridden, not removed), and whether its
    /// parent defines a name (removing an override of it brings the parent's entry back).
    struct ChildScope {
        let own: Set<String>
        let parentDefines: (String) -> Bool
    }

    let base: EntryTable
    /// After a successful `apply`: the indices it defined, and those it emptied.
    private(set) var changedIndices: [Int] = []
    private(set) var removedIndices: [Int] = []
    /// The registry's class slots, extended with the classes the change names.
    var classSlots: ClassSlots
    /// The environment the change's definitions are resolved against (`${NAME}`, `{Env: NAME}`).
    /// nil: each definition's own (`EntryDefinition.environment`, kept from the commit that first
    /// resolved it: a child recompiling its parent's entries), else the process environment.
    let environment: EnvironmentLookup?
    /// The longest string a substitution may produce.
    let maxStringBytes: Int

    init(
        base: EntryTable, classSlots: ClassSlots, environment: EnvironmentLookup? = nil,
        maxStringBytes: Int = ConfigLimits().maxStringBytes
    ) {
        self.base = base
        self.classSlots = classSlots
        self.environment = environment
        self.maxStringBytes = maxStringBytes
    }

    /// Applies `definitions` (and removes `removals`). Returns the new entry list, or every problem
    /// found, including `decodeProblems`. References to `invalidNames` (entries that failed to
    /// decode) are not reported again as missing, nor is any reference when `namesIncomplete` (a
    /// file of the load could not be read, so it may define the name).
    /// For a child registry, `inherited` maps names of singletons it takes unchanged from its parent
    /// to the parent's cells and their owners (so they stay the parent's), and `owner` is the parent;
    /// a change to a child's own entries gives `child` (the same checks and messages as a root's).
    /// `kept` maps names of singleton entries a reload leaves unchanged to their current cells and
    /// owners, which the new entries keep (so the same objects).
    /// Afterwards `changedIndices` holds the indices the change defined and `removedIndices` those
    /// it emptied.
    mutating func apply(
        _ definitions: [EntryDefinition], mode: Mode = .add, removals: [String] = [],
        invalidNames: Set<String> = [], decodeProblems: [Diagnostic] = [], namesIncomplete: Bool = false,
        inherited: [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] = [:], owner: Unmanaged<Registry>? = nil,
        child: ChildScope? = nil, kept: [String: (cell: SingletonCell, owner: UnsafeMutableRawPointer?)] = [:]
    ) -> Result<EntryTable, ConfigError> {
        var diagnostics = decodeProblems
        // Suggestions cost a scan of every name: only the first few problems get one.
        var suggestionsLeft = Suggestions.maxSuggestedProblems

        // 1. Removals.
        var removed = Set<Int>()
        for name in removals {
            let i = base.index(of: name)
            if i < 0 {
                let suggestion = suggestionsLeft > 0 ? Suggestions.closest(to: name, in: base.liveNames) : nil
                suggestionsLeft -= 1
                diagnostics.append(
                    Diagnostic(
                        .notFound, "cannot remove '\(name)': no entry by that name\(Suggestions.hint(suggestion))",
                        suggestion: suggestion))
            } else if let child, !child.own.contains(name) {
                diagnostics.append(
                    Diagnostic(
                        .invalidArgument,
                        "cannot remove '\(name)': it is defined by the parent registry (a child can override it, not remove it)"))
            } else if let child, child.parentDefines(name) {
                // Removing a child's override brings the parent's entry back: the name stays.
            } else {
                removed.insert(i)
            }
        }

        // 2. Names: unique within the input; new to the registry unless overriding.
        var indexOfName: [String: Int] = [:]
        indexOfName.reserveCapacity(definitions.count)
        var accepted: [(definition: EntryDefinition, index: Int)] = []
        accepted.reserveCapacity(definitions.count)
        var nextIndex = base.count
        // Where each name is first defined, built at the first duplicate (none in the common case).
        var firstLocation: [String: SourceLocation?]?
        // Entries that fail the checks every door shares: not compiled, and not reported again as
        // missing when something refers to them.
        var rejected = invalidNames
        // Dependencies with the environment resolved, by position in `accepted` (only entries that
        // use it: none in most loads).
        var resolved: [Int: [Dependency]] = [:]
        for def in definitions {
            let before = diagnostics.count
            var usesEnvironment = false
            Transaction.validate(def, into: &diagnostics, usesEnvironment: &usesEnvironment)
            if diagnostics.count > before {
                rejected.insert(def.name)
                continue
            }
            // One hash of the name in the common case: the index it would get is inserted at once,
            // and put back / taken out again when the entry is refused.
            var index = base.index(of: def.name)
            let candidate = index >= 0 ? index : nextIndex
            if let prior = indexOfName.updateValue(candidate, forKey: def.name) {
                indexOfName[def.name] = prior
                if firstLocation == nil {
                    firstLocation = [:]
                    for d in definitions where firstLocation![d.name] == nil { firstLocation![d.name] = d.location }
                }
                let first = firstLocation![def.name] ?? nil
                diagnostics.append(
                    Diagnostic(
                        .duplicate, "entry '\(def.name)' is defined twice\(first.map { " (first at \($0))" } ?? "")",
                        at: def.location))
                continue
            }
            if index >= 0 && !removed.contains(index) && mode == .add && (child?.own.contains(def.name) ?? true) {
                indexOfName[def.name] = nil
                let prior = base.location(at: index)
                diagnostics.append(
                    Diagnostic(
                        .duplicate, "entry '\(def.name)' is already defined\(prior.map { " at \($0)" } ?? " (added from code)")",
                        at: def.location))
                continue
            }
            if index < 0 {
                index = nextIndex
                nextIndex += 1
            }
            if !removed.isEmpty { removed.remove(index) }
            if usesEnvironment {
                // The entry keeps the lookup it was resolved against (a copy only for these entries).
                var bound = def
                let lookup = environment ?? def.environment ?? EnvironmentLookup(.process)
                bound.environment = lookup
                resolved[accepted.count] = EnvironmentResolution(
                    lookup: lookup, maxStringBytes: maxStringBytes, entry: def.name
                ).resolve(def.dependencies, into: &diagnostics)
                accepted.append((bound, index))
            } else {
                accepted.append((def, index))
            }
        }
        // 2b. Entries the change does not name but whose tagged lists or optional references it
        // affects are resolved and compiled again (same definition, same index).
        let reresolved = dependentsOfMembership(accepted: accepted, removed: removed)
        for i in reresolved {
            guard let def = base.definition(at: i) else { continue }
            // Environment values are resolved again against the environment the entry was
            // committed with (it is not part of this change).
            if let lookup = def.environment {
                resolved[accepted.count] = EnvironmentResolution(
                    lookup: lookup, maxStringBytes: maxStringBytes, entry: def.name
                ).resolve(def.dependencies, into: &diagnostics)
            }
            accepted.append((def, i))
        }
        let reresolvedSet = Set(reresolved)
        let replaced = Set(accepted.map(\.index))

        // 3. References: every name must resolve to an entry that stays.
        let base = self.base
        // Immutable copies for the lookup (a local function capturing `var`s boxes them and
        // checks exclusivity on every access).
        let names = indexOfName
        let removedBase = removed
        func resolve(_ name: String) -> Int? {
            if let i = names[name] { return i }
            let i = base.index(of: name)
            return i >= 0 && !removedBase.contains(i) ? i : nil
        }
        var allNames: [String]?
        // Edges and targets of each accepted entry, by position in `accepted`; `changedAt[i]` is
        // that position for entry index i (or -1). Arrays, not dictionaries: no hashing per entry.
        var changedEdges: [[Int32]] = []
        var changedTargets: [[Int32]] = []
        // What the compiler needs for tagged lists (member count, then members) and optional
        // references (the target or -1), in written order; empty for most entries.
        var changedMembership: [[Int32]] = []
        changedEdges.reserveCapacity(accepted.count)
        changedTargets.reserveCapacity(accepted.count)
        changedMembership.reserveCapacity(accepted.count)
        var changedAt = [Int32](repeating: -1, count: nextIndex)
        // Members of each tag in the new state, built at the first tagged list.
        var members = TagMembers()
        // References of one dependency, gathered by a closure that captures nothing else.
        var refs: [(name: String, at: SourceLocation?, kind: DependencyEdge.Kind)] = []
        // The last two names resolved and their indices: neighbouring entries mostly refer to the
        // same few entries, and comparing a String is cheaper than hashing it (`resolve` is pure
        // here: it reads only immutable copies).
        var recentName0: String?, recentName1: String?
        var recentTarget0 = -1, recentTarget1 = -1
        for k in accepted.indices {
            let index = accepted[k].index
            changedAt[index] = Int32(k)
            let dependencies = accepted[k].definition.dependencies
            // `targets` holds every resolved reference and provider in written order, `edges` the
            // object edges (references, tagged members, optional targets that exist). Until the
            // first provider, tagged list or optional they are the same list, so `edges` is only
            // built from then on; otherwise the entry keeps one array (shared storage) instead of two.
            var targets: [Int32] = []
            var edges: [Int32] = []
            var membership: [Int32] = []
            var diverged = false
            for dep in dependencies {
                // A scalar reference is taken as it is; only lists and maps gather into `refs`.
                var single: (name: String, at: SourceLocation?, kind: DependencyEdge.Kind)?
                switch dep.value {
                case .reference(let name, let at): single = (name, at, .reference)
                case .provider(let name, let at): single = (name, at, .provider)
                case .tagged(let tag, let at): single = (tag.text, at, .tagged)
                case .optional(let name, let at): single = (name, at, .optional)
                case .list, .map: dep.value.forEachEdge { refs.append(($0.name, $0.location, $0.kind)) }
                default: continue
                }
                let count = single == nil ? refs.count : 1
                for r in 0..<count {
                    let (name, location, kind) = single ?? refs[r]
                    if kind == .tagged {
                        let list = members.of(name, base: base, removed: removedBase, replaced: accepted)
                        membership.append(Int32(list.count))
                        membership += list
                        if !diverged {
                            diverged = true
                            edges = targets
                        }
                        edges += list
                        continue
                    }
                    let found: Int?
                    if let r = recentName0, r == name {
                        found = recentTarget0
                    } else if let r = recentName1, r == name {
                        found = recentTarget1
                    } else {
                        found = resolve(name)
                        if let f = found {
                            recentName1 = recentName0
                            recentTarget1 = recentTarget0
                            recentName0 = name
                            recentTarget0 = f
                        }
                    }
                    if kind == .optional {
                        // Absent is not a problem: the slot is null until the entry exists.
                        membership.append(found.map { Int32($0) } ?? -1)
                        if !diverged {
                            diverged = true
                            edges = targets
                        }
                        if let f = found { edges.append(Int32(f)) }
                        continue
                    }
                    if let target = found {
                        if kind == .provider && !diverged {
                            diverged = true
                            edges = targets
                        }
                        targets.append(Int32(target))
                        if diverged && kind == .reference { edges.append(Int32(target)) }
                    } else {
                        // -1 keeps the later references at their places for the compiler (the
                        // change fails, or is a reload's intermediate step); edge walks skip it.
                        targets.append(-1)
                        if diverged { edges.append(-1) }
                    }
                    if found == nil && removals.contains(name) {
                        let def = accepted[k].definition
                        diagnostics.append(
                            Diagnostic(
                                .missingReference, "cannot remove '\(name)': entry '\(def.name)' refers to it",
                                at: def.location))
                    } else if found == nil && !namesIncomplete && !rejected.contains(name) {
                        if allNames == nil {
                            allNames =
                                (0..<base.count).compactMap { i in
                                    base.isLive(i) && !removed.contains(i) ? base.name(at: i) : nil
                                }
                                + accepted.map(\.definition.name)
                        }
                        let def = accepted[k].definition
                        let suggestion =
                            suggestionsLeft > 0 ? Suggestions.closest(to: name, in: allNames!, excluding: def.name) : nil
                        suggestionsLeft -= 1
                        diagnostics.append(
                            Diagnostic(
                                .missingReference,
                                "entry '\(def.name)', key '\(dep.key)': no entry named '\(name)'\(Suggestions.hint(suggestion))"
                                    + (suggestion == nil ? "; if this is text, write \"@\(name)\"" : ""),
                                at: location ?? dep.location ?? def.location, suggestion: suggestion))
                    }
                }
                if !refs.isEmpty { refs.removeAll(keepingCapacity: true) }
            }
            changedEdges.append(diverged ? edges : targets)
            changedTargets.append(targets)
            changedMembership.append(membership)
        }
        // Entries that stay must not refer to removed ones.
        if !removed.isEmpty {
            for i in 0..<base.count where base.isLive(i) && !removed.contains(i) && !replaced.contains(i) {
                for t in base.targets(at: i) where removed.contains(Int(t)) {
                    let name = base.isLive(Int(t)) ? base.name(at: Int(t)) : "?"
                    diagnostics.append(
                        Diagnostic(
                            .missingReference, "cannot remove '\(name)': entry '\(base.name(at: i))' refers to it",
                            at: base.location(at: i)))
                }
            }
        }

        // 4. Cycles: a new cycle must pass through a changed entry, so search from those. Checked
        // whatever else is wrong: the graph holds every reference that resolved.
        diagnostics += findCycles(
            starts: accepted.map(\.index), total: nextIndex,
            edgesOf: { changedAt[$0] >= 0 ? changedEdges[Int(changedAt[$0])] : base.edges(at: $0) },
            definitionOf: { i in
                i < changedAt.count && changedAt[i] >= 0
                    ? accepted[Int(changedAt[i])].definition
                    : base.definition(at: i)
            })

        // 5. Lifetimes: no singleton may reach a `graph` entry through object edges (the same
        // edges as cycles). Checked whatever else is wrong, like cycles.
        var inheritedSingleton: [Bool] = []
        if !inherited.isEmpty {
            inheritedSingleton = [Bool](repeating: false, count: nextIndex)
            for (def, index) in accepted where def.lifestyle == .singleton && inherited[def.name] != nil {
                inheritedSingleton[index] = true
            }
        }
        let lifetimes = LifetimeRule(
            total: nextIndex,
            edgesOf: { i in
                // Without the places of references that did not resolve (a failing change).
                guard changedAt[i] >= 0 else { return base.edges(at: i) }
                let e = changedEdges[Int(changedAt[i])]
                return e.contains { $0 < 0 } ? e.filter { $0 >= 0 } : e
            },
            lifestyleOf: { i in
                if changedAt[i] >= 0 { return accepted[Int(changedAt[i])].definition.lifestyle }
                if !removedBase.isEmpty && removedBase.contains(i) { return nil }
                return base.isLive(i) ? base.plans[i].lifestyle : nil
            },
            isInheritedSingleton: { i in
                // A child's table holds its parent's singletons with the parent as their owner.
                if changedAt[i] >= 0 { return inheritedSingleton.isEmpty ? false : inheritedSingleton[i] }
                return base.isLive(i) && base.owner(of: i) != nil
            },
            definitionOf: { i in
                changedAt[i] >= 0 ? accepted[Int(changedAt[i])].definition : base.definition(at: i)
            })
        diagnostics += lifetimes.problems(changed: accepted.map(\.index))
        if !diagnostics.isEmpty { return .failure(ConfigError(diagnostics)) }

        // 6. Compile: each definition into its record, each plan from it.
        let records = DefinitionArena(entries: accepted.count)
        var offsets: [Int] = []
        offsets.reserveCapacity(accepted.count)
        // Read in place: `accepted[k].definition` copied the (definition, index) pair per entry.
        // Where each plan is compiled from: the record's dependencies, or (entries that use the
        // environment) their resolved form written after the records.
        var compileFrom: [Int] = []
        compileFrom.reserveCapacity(accepted.count)
        accepted.withUnsafeBufferPointer { acc in
            for k in acc.indices { offsets.append(DefinitionCoding.encode(acc[k].definition, into: records)) }
        }
        for k in accepted.indices {
            if let r = resolved[k] {
                compileFrom.append(DefinitionCoding.encodeDependencies(r, into: records))
            } else {
                compileFrom.append(DefinitionCoding.dependenciesPosition(records, at: offsets[k]))
            }
        }
        if records.count > Int(UInt32.max) {
            return .failure(
                ConfigError(
                    .limit, "one change may hold at most 4 GiB of entry names, keys and literals; split it into several loads"))
        }
        // Plans point at keys and literal strings in the records' arena, which stops moving here.
        records.freeze()
        let compiler = PlanCompiler(arena: records.plans, strings: records)
        var table = EntryTableBuilder(base: base)
        table.grow(to: nextIndex)
        for i in removed { table.remove(i) }
        let arenaIndex = table.index(of: records)
        var tooLarge: (name: String, at: SourceLocation?)?
        // Each definition read in place (binding `def` copied it: ~500 instructions per entry).
        accepted.withUnsafeBufferPointer { acc in
            for k in acc.indices {
                let index = acc[k].index
                let record = offsets[k]
                let plan = compiler.compile(
                    dependenciesAt: compileFrom[k], classSlot: classSlots.slot(for: acc[k].definition.className),
                    lifestyle: acc[k].definition.lifestyle,
                    targets: changedTargets[k], membership: changedMembership[k])
                if plan.exceedsLimits && tooLarge == nil { tooLarge = (acc[k].definition.name, acc[k].definition.location) }
                var cell: SingletonCell?
                var cellOwner: UnsafeMutableRawPointer?
                if acc[k].definition.lifestyle == .singleton {
                    if reresolvedSet.contains(index), let (keptCell, keptOwner) = base.singleton(at: index) {
                        // Compiled again for its members: a singleton already built keeps its object.
                        cell = keptCell
                        cellOwner = keptOwner
                    } else if let (keptCell, keptOwner) = kept[acc[k].definition.name] {
                        // A reload left the entry unchanged: the same cell, so the same object, and owner.
                        cell = keptCell
                        cellOwner = keptOwner
                    } else if let (inheritedCell, inheritedOwner) = inherited[acc[k].definition.name] {
                        cell = inheritedCell
                        cellOwner = inheritedOwner ?? owner?.toOpaque()
                    } else {
                        cell = SingletonCell(name: acc[k].definition.name)
                    }
                    plan.singleton = cell.map { Unmanaged.passUnretained($0).toOpaque() }
                }
                table.set(
                    index, plan: plan, arena: arenaIndex, record: record, cell: cell, owner: cellOwner,
                    environment: acc[k].definition.environment)
            }
        }
        records.finish()
        if let (name, at) = tooLarge {
            return .failure(
                ConfigError(
                    .limit,
                    "entry '\(name)' would build too many objects in one create (its references, lists and tagged lists need more than 4 GiB of working memory); split its dependencies over several entries",
                    at: at))
        }
        changedIndices = accepted.map(\.index)
        removedIndices = removed.sorted()
        return .success(table.build())
    }

    /// Entries of `base` that the change does not name (not `accepted`, not `removed`) but whose
    /// plans depend on it: a `{Tagged: t}` where an accepted or removed entry has (or had) tag `t`,
    /// or an `{Optional: Name}` where `Name` is accepted or removed. Only entries whose plans
    /// have such values (`EntryTable.dynamic`) are looked at.
    private func dependentsOfMembership(accepted: [(definition: EntryDefinition, index: Int)], removed: Set<Int>) -> [Int] {
        let dynamic = base.dynamic
        if dynamic.isEmpty { return [] }
        var tags = Set<String>(), names = Set<String>()
        func note(_ name: String, _ entryTags: [EntryTag]) {
            names.insert(name)
            for t in entryTags { tags.insert(t.text) }
        }
        var named = Set<Int>()
        for (def, index) in accepted {
            note(def.name, def.tags)
            named.insert(index)
            if base.isLive(index) { note(base.name(at: index), base.tags(at: index)) }
        }
        for i in removed where base.isLive(i) { note(base.name(at: i), base.tags(at: i)) }
        var out: [Int] = []
        for d in dynamic {
            let i = Int(d)
            guard !named.contains(i), !removed.contains(i), let def = base.definition(at: i) else { continue }
            var affected = false
            for dep in def.dependencies where !affected {
                dep.value.forEachEdge { e in
                    if (e.kind == .tagged && tags.contains(e.name)) || (e.kind == .optional && names.contains(e.name)) {
                        affected = true
                    }
                }
            }
            if affected { out.append(i) }
        }
        return out
    }

    /// The checks an entry passes whichever door it came through (config, `Registry.add`,
    /// `cr_add_entry`): names, the nesting ceiling, and the contents of its dependency values.
    /// Sets `usesEnvironment` when a dependency has an environment value to resolve.
    static func validate(_ def: EntryDefinition, into diagnostics: inout [Diagnostic], usesEnvironment: inout Bool) {
        DependencyRule.problems(ofEntry: def, into: &diagnostics)
        // Each dependency read in place through the buffer (its address): binding `dep`, or the
        // array's subscript, copies it (key, value and location retained and released once per
        // dependency of every entry loaded).
        def.dependencies.withUnsafeBufferPointer { deps in
            for i in deps.indices {
                if deps[i].value.isContainer
                    && deps[i].value.nestingDepth(stoppingAfter: DependencyValue.maxNesting) > DependencyValue.maxNesting
                {
                    diagnostics.append(
                        Diagnostic(
                            .limit,
                            "entry '\(def.name)', key '\(deps[i].key)': the value nests deeper than \(DependencyValue.maxNesting) levels",
                            at: deps[i].location ?? def.location))
                    continue
                }
                DependencyRule.problems(
                    of: deps[i].value, entry: def.name, key: deps[i].key, fallback: deps[i].location ?? def.location,
                    into: &diagnostics, usesEnvironment: &usesEnvironment)
            }
        }
    }

    /// The most cycles one change reports in full; further ones are counted in one more problem.
    static let maxReportedCycles = 100

    /// Every cycle reachable from `starts` (one per back edge of a depth-first search), each with
    /// its path. Linear in the entries and references walked, plus the cycles reported.
    private func findCycles(
        starts: [Int], total: Int, edgesOf: (Int) -> [Int32],
        definitionOf: (Int) -> EntryDefinition?
    ) -> [Diagnostic] {
        var color = [UInt8](repeating: 0, count: total)  // 0 unvisited, 1 on the stack, 2 done
        var depthOf = [Int32](repeating: -1, count: total)  // position on the stack while on it
        var diagnostics: [Diagnostic] = []
        var unreported = 0
        // Each node's edges are asked for once, when it is pushed.
        var stack: [(node: Int, next: Int, out: [Int32])] = []
        for start in starts where color[start] == 0 {
            stack.append((start, 0, edgesOf(start)))
            color[start] = 1
            depthOf[start] = 0
            while let top = stack.last {
                let out = top.out
                if top.next < out.count {
                    stack[stack.count - 1].next += 1
                    let target = Int(out[top.next])
                    if target < 0 { continue }
                    if color[target] == 0 {
                        color[target] = 1
                        depthOf[target] = Int32(stack.count)
                        stack.append((target, 0, edgesOf(target)))
                    } else if color[target] == 1 {
                        if diagnostics.count < Transaction.maxReportedCycles {
                            diagnostics.append(
                                cycleDiagnostic(stack[Int(depthOf[target])...].map(\.node), definitionOf: definitionOf))
                        } else {
                            unreported += 1
                        }
                    }
                } else {
                    color[top.node] = 2
                    stack.removeLast()
                }
            }
        }
        if unreported > 0 {
            diagnostics.append(
                Diagnostic(
                    .cycle, "\(unreported) more dependency cycles not listed (the first \(Transaction.maxReportedCycles) are)"))
        }
        return diagnostics
    }

    /// "dependency cycle: A -> B -> A", rotated to start at the earliest entry, located at that
    /// entry's reference to the next one. A long path names its first and last entries and counts
    /// the ones between.
    private func cycleDiagnostic(_ members: [Int], definitionOf: (Int) -> EntryDefinition?) -> Diagnostic {
        func nameOf(_ i: Int) -> String { definitionOf(i)?.name ?? "#\(i)" }
        let start = members.firstIndex(of: members.min()!)!
        let rotated = Array(members[start...] + members[..<start])
        let closed = rotated + [rotated[0]]
        let path = PathText.written(closed, name: nameOf)
        let nextIndex = rotated.count > 1 ? rotated[1] : rotated[0]
        let next = nameOf(nextIndex)
        // A tagged list reaches the next entry when it asks for one of that entry's tags.
        let nextTags = Set(definitionOf(nextIndex)?.tags.map(\.text) ?? [])
        var location: SourceLocation? = definitionOf(rotated[0])?.location
        var via = ""
        if let def = definitionOf(rotated[0]) {
            outer: for dep in def.dependencies {
                var found: (SourceLocation?, DependencyEdge)?
                dep.value.forEachEdge { e in
                    guard found == nil, e.kind.isObjectEdge else { return }
                    if e.kind == .tagged ? nextTags.contains(e.name) : e.name == next { found = (e.location ?? dep.location, e) }
                }
                if let (at, edge) = found {
                    location = at ?? location
                    let form =
                        edge.kind == .tagged ? ", {Tagged: \(edge.name)}" : edge.kind == .optional ? ", {Optional: \(next)}" : ""
                    via = " (via key '\(dep.key)' of '\(def.name)'\(form))"
                    break outer
                }
            }
        }
        return Diagnostic(.cycle, "dependency cycle: \(path)\(via)", at: location)
            .withPath(closed.prefix(Diagnostic.maxPathNames).map(nameOf))
    }
}

/// The members of each tag in a transaction's new state: the live entries whose tags include it,
/// as entry indices ordered by entry name (byte-wise). Built once, at the first tagged list.
struct TagMembers {
    private var byTag: [String: [(name: String, index: Int32)]]?
    private var sorted: Set<String> = []

    /// The members of tag `tag`: entries of `base` that stay and are not replaced, and `replaced`
    /// (the accepted definitions, which win over the base's).
    mutating func of(
        _ tag: String, base: EntryTable, removed: Set<Int>, replaced: [(definition: EntryDefinition, index: Int)]
    ) -> [Int32] {
        if byTag == nil {
            var map: [String: [(name: String, index: Int32)]] = [:]
            func add(_ name: String, _ tags: [EntryTag], _ index: Int) {
                var seen: Set<String> = []
                for t in tags where tags.count == 1 || seen.insert(t.text).inserted {
                    map[t.text, default: []].append((name, Int32(index)))
                }
            }
            let replacedIndices = Set(replaced.map(\.index))
            for i in 0..<base.count where base.isLive(i) && !removed.contains(i) && !replacedIndices.contains(i) {
                let tags = base.tags(at: i)
                if !tags.isEmpty { add(base.name(at: i), tags, i) }
            }
            for (def, index) in replaced where !def.tags.isEmpty { add(def.name, def.tags, index) }
            byTag = map
        }
        guard var list = byTag![tag] else { return [] }
        if !sorted.contains(tag) {
            list.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
            byTag![tag] = list
            sorted.insert(tag)
        }
        return list.map(\.index)
    }
}
