/// A registry change in the making: validates new entries against the whole graph and compiles
/// them, touching nothing until `commit`. A failed transaction leaves the registry as it was.
struct Transaction {
    let base: EntryTable
    var classSlotByName: [String: Int]
    var classNames: [String]

    init(base: EntryTable, classSlotByName: [String: Int], classNames: [String]) {
        self.base = base
        self.classSlotByName = classSlotByName
        self.classNames = classNames
    }

    /// Adds `definitions` (each name must be new). Returns the new entry list, or every problem found,
    /// including `decodeProblems`. References to `invalidNames` (entries that failed to decode) are
    /// not reported again as missing.
    mutating func add(_ definitions: [EntryDefinition], invalidNames: Set<String> = [],
                      decodeProblems: [Diagnostic] = []) -> Result<[CompiledEntry?], ConfigError> {
        var diagnostics = decodeProblems
        var compiled = base.compiled
        var newIndex: [String: Int] = [:]
        newIndex.reserveCapacity(definitions.count)
        var accepted: [(EntryDefinition, Int)] = []
        accepted.reserveCapacity(definitions.count)

        // 1. Names: unique within the input and new to the registry.
        for def in definitions {
            if newIndex[def.name] != nil {
                let where1 = definitions.first { $0.name == def.name }?.location
                diagnostics.append(Diagnostic(.duplicate, "entry '\(def.name)' is defined twice\(where1.map { " (first at \($0))" } ?? "")",
                                              at: def.location))
                continue
            }
            let existing = base.index(of: def.name)
            if existing >= 0 {
                let prior = base.compiled[existing]?.definition.location
                diagnostics.append(Diagnostic(.duplicate, "entry '\(def.name)' is already defined\(prior.map { " at \($0)" } ?? " (added from code)")",
                                              at: def.location))
                continue
            }
            newIndex[def.name] = compiled.count + accepted.count
            accepted.append((def, compiled.count + accepted.count))
        }

        // 2. References: every name must resolve.
        let base = self.base
        func resolve(_ name: String) -> Int? {
            if let i = newIndex[name] { return i }
            let i = base.index(of: name)
            return i >= 0 ? i : nil
        }
        var edges: [[Int32]] = []
        edges.reserveCapacity(accepted.count)
        var allNames: [String]?
        for (def, _) in accepted {
            var out: [Int32] = []
            for dep in def.dependencies {
                dep.value.forEachReference { name, location in
                    if let target = resolve(name) {
                        out.append(Int32(target))
                    } else if !invalidNames.contains(name) {
                        if allNames == nil { allNames = base.liveNames + accepted.map(\.0.name) }
                        diagnostics.append(Diagnostic(
                            .missingReference,
                            "entry '\(def.name)', key '\(dep.key)': no entry named '\(name)'\(Suggestions.hint(for: name, in: allNames!))",
                            at: location ?? dep.location ?? def.location))
                    }
                }
            }
            edges.append(out)
        }

        // 3. Cycles: any cycle now must pass through a new entry, so search from those.
        if diagnostics.isEmpty {
            diagnostics += findCycles(accepted: accepted, edges: edges)
        }
        if !diagnostics.isEmpty { return .failure(ConfigError(diagnostics)) }

        // 4. Compile.
        let arena = Arena()
        let compiler = PlanCompiler(arena: arena, resolve: resolve)
        for ((def, index), out) in zip(accepted, edges) {
            let plan = compiler.compile(def.dependencies, classSlot: classSlot(for: def.className))
            let name = arena.copy(def.name)
            assert(index == compiled.count)
            compiled.append(CompiledEntry(definition: def, plan: plan, edges: out, nameBytes: name, arena: arena))
        }
        return .success(compiled)
    }

    /// The slot for a class name, allocating one for a name not seen before.
    mutating func classSlot(for name: String) -> Int {
        if let s = classSlotByName[name] { return s }
        let s = classNames.count
        classNames.append(name)
        classSlotByName[name] = s
        return s
    }

    /// Every cycle reachable from the new entries, each reported once with its whole path.
    private func findCycles(accepted: [(EntryDefinition, Int)], edges newEdges: [[Int32]]) -> [Diagnostic] {
        let firstNew = accepted.first?.1 ?? base.count
        let total = base.count + accepted.count
        func edgesOf(_ i: Int) -> [Int32] { i >= firstNew ? newEdges[i - firstNew] : (base.compiled[i]?.edges ?? []) }
        func nameOf(_ i: Int) -> String { i >= firstNew ? accepted[i - firstNew].0.name : (base.compiled[i]?.definition.name ?? "?") }
        func definitionOf(_ i: Int) -> EntryDefinition? { i >= firstNew ? accepted[i - firstNew].0 : base.compiled[i]?.definition }

        var color = [UInt8](repeating: 0, count: total) // 0 unvisited, 1 on stack, 2 done
        var diagnostics: [Diagnostic] = []
        var stack: [(node: Int, next: Int)] = []
        for (_, start) in accepted where color[start] == 0 {
            stack.append((start, 0))
            color[start] = 1
            while let top = stack.last {
                let out = edgesOf(top.node)
                if top.next < out.count {
                    stack[stack.count - 1].next += 1
                    let target = Int(out[top.next])
                    if color[target] == 0 {
                        color[target] = 1
                        stack.append((target, 0))
                    } else if color[target] == 1 {
                        let from = stack.lastIndex { $0.node == target }!
                        let members = stack[from...].map(\.node)
                        diagnostics.append(cycleDiagnostic(members, nameOf: nameOf, definitionOf: definitionOf))
                    }
                } else {
                    color[top.node] = 2
                    stack.removeLast()
                }
            }
        }
        return diagnostics
    }

    /// "dependency cycle: A -> B -> A", rotated to start at the earliest entry, located at that
    /// entry's reference to the next one.
    private func cycleDiagnostic(_ members: [Int], nameOf: (Int) -> String, definitionOf: (Int) -> EntryDefinition?) -> Diagnostic {
        let start = members.firstIndex(of: members.min()!)!
        let rotated = Array(members[start...] + members[..<start])
        let path = (rotated + [rotated[0]]).map(nameOf).joined(separator: " -> ")
        let next = nameOf(rotated.count > 1 ? rotated[1] : rotated[0])
        var location: SourceLocation? = definitionOf(rotated[0])?.location
        var key = ""
        if let def = definitionOf(rotated[0]) {
            outer: for dep in def.dependencies {
                var found: SourceLocation??
                dep.value.forEachReference { name, at in if found == nil && name == next { found = .some(at ?? dep.location) } }
                if let f = found { location = f ?? location; key = dep.key; break outer }
            }
        }
        let via = key.isEmpty ? "" : " (via key '\(key)' of '\(nameOf(rotated[0]))')"
        return Diagnostic(.cycle, "dependency cycle: \(path)\(via)", at: location)
    }
}
