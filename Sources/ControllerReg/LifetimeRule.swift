/// The lifetime rule: a singleton must not reach a `graph` entry through object references (any
/// object edge: references, tagged lists, optional references; not providers), whatever the
/// lifestyles of the entries between. A `graph` object belongs to one create; a singleton that
/// kept it would outlive that create. Checked by `Transaction.apply` for every door.
struct LifetimeRule {
    /// The most violations one change reports in full; further ones are counted in one more problem.
    static let maxReported = 100

    /// The number of entry indices (changed and unchanged).
    let total: Int
    /// Object edges of an entry (no providers).
    let edgesOf: (Int) -> ArraySlice<Int32>
    /// An entry's lifestyle, nil for an index with no entry.
    let lifestyleOf: (Int) -> Lifestyle?
    /// Singletons this registry takes from its parent: built there (with the parent's entries,
    /// already checked), so they neither start a violation nor lead to one here.
    let isInheritedSingleton: (Int) -> Bool
    /// Where an entry's definition record is (keys and tags for the messages, read in place).
    let recordOf: (Int) -> (arena: DefinitionArena, offset: Int)?
    /// An entry's name's bytes (nil for an index with no entry).
    let nameOf: (Int) -> UnsafeBufferPointer<UInt8>?
    /// An entry's place (read from its record alone).
    let locationOf: (Int) -> SourceLocation?

    /// Every singleton that reaches a `graph` entry, each with a path to the nearest one. Any path
    /// that breaks the rule after a change passes through a changed entry (the state before was
    /// valid), so when nothing reachable from `changed` is a `graph` entry the answer is empty
    /// after walking only that much; otherwise every singleton is checked in one pass. Linear in
    /// the entries and edges walked, plus the paths reported.
    func problems(changed: [Int]) -> [Diagnostic] {
        guard total > 0, reachesGraph(from: changed) else { return [] }
        // The walk's lists in plain memory (an array checks it is unique at every write, and each
        // step writes several), indexed by entry (`role`, `position`) or by node, the position
        // an entry reached got: at most `total` nodes.
        let role = UnsafeMutablePointer<UInt8>.allocate(capacity: total)
        let perEntry = UnsafeMutablePointer<Int32>.allocate(capacity: 8 * total + 2)
        var edges = PlainInt32List(capacity: 2 * total)
        defer {
            role.deallocate()
            perEntry.deallocate()
            edges.free()
        }
        // Each entry's part in the walk, read once (each question is a closure call): 0 not
        // walked past (an inherited singleton), 1 walked, 2 a start (a singleton, walked), 3 a
        // `graph` entry (paths end there); as `expands` answers.
        // Singletons that may break the rule, in index order (the order entries were declared).
        let starts = perEntry
        var startCount = 0
        for i in 0..<total {
            switch lifestyleOf(i) {
            case .graph: role[i] = 3
            case .singleton:
                if isInheritedSingleton(i) {
                    role[i] = 0
                    continue
                }
                role[i] = 2
                starts[startCount] = Int32(i)
                startCount += 1
            case .transient, nil: role[i] = isInheritedSingleton(i) ? 0 : 1
            }
        }
        if startCount == 0 { return [] }
        // Whether an entry's own object edges are walked (`expands`).
        @inline(__always) func walked(_ i: Int) -> Bool { role[i] == 1 || role[i] == 2 }

        // Nodes reachable from the starts; successors of `graph` entries and inherited singletons
        // do not matter (paths end at the first `graph` entry; inherited singletons are built by
        // the parent). Each node is put on `work` once, when it is reached, and its edges (when
        // it is walked) are asked for once, when it is taken off: `edges[edgeFrom[p]..<edgeTo[p]]`
        // for node `p`.
        let position = perEntry + total
        position.initialize(repeating: -1, count: total)
        let nodes = perEntry + 2 * total, work = perEntry + 3 * total
        let edgeFrom = perEntry + 4 * total, edgeTo = perEntry + 5 * total
        var n = 0, pending = 0
        /// Numbers node `v` (met for the first time) and queues it to be walked.
        func discover(_ v: Int) {
            position[v] = Int32(n)
            nodes[n] = Int32(v)
            n += 1
            work[pending] = Int32(v)
            pending += 1
        }
        for k in 0..<startCount {
            let s = Int(starts[k])
            guard position[s] < 0 else { continue }
            discover(s)
            while pending > 0 {
                pending -= 1
                let u = Int(work[pending])
                let pu = Int(position[u])
                guard walked(u) else {
                    edgeFrom[pu] = 0
                    edgeTo[pu] = 0
                    continue
                }
                let from = edges.count
                edges.append(edgesOf(u))
                edgeFrom[pu] = Int32(from)
                edgeTo[pu] = Int32(edges.count)
                for e in from..<edges.count {
                    let t = Int(edges[e])
                    guard position[t] < 0 else { continue }
                    discover(t)
                }
            }
        }

        // Reverse edges among those nodes (compressed rows), then a breadth-first search back from
        // every `graph` entry: `next[p]` is p's successor on a shortest path to the nearest one.
        let rowStart = perEntry + 6 * total  // (n + 1 of them)
        let next = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * n + 1)
        let queue = next + n, fill = work  // (the work list is empty now)
        defer { next.deallocate() }
        rowStart.initialize(repeating: 0, count: n + 1)
        for pu in 0..<n {
            for e in Int(edgeFrom[pu])..<Int(edgeTo[pu]) { rowStart[Int(position[Int(edges[e])]) + 1] += 1 }
        }
        for p in 0..<n { rowStart[p + 1] += rowStart[p] }
        fill.update(from: rowStart, count: n)
        // (Every edge of a walked node leads to a node: as many predecessors as edges read.)
        let predecessor = UnsafeMutablePointer<Int32>.allocate(capacity: max(Int(rowStart[n]), 1))
        defer { predecessor.deallocate() }
        for pu in 0..<n {
            for e in Int(edgeFrom[pu])..<Int(edgeTo[pu]) {
                let pt = Int(position[Int(edges[e])])
                predecessor[Int(fill[pt])] = Int32(pu)
                fill[pt] += 1
            }
        }
        next.initialize(repeating: -1, count: n)  // -1 unreached, -2 a graph entry itself
        var queued = 0
        for p in 0..<n where role[Int(nodes[p])] == 3 {
            next[p] = -2
            queue[queued] = Int32(p)
            queued += 1
        }
        var head = 0
        while head < queued {
            let v = Int(queue[head])
            head += 1
            for r in Int(rowStart[v])..<Int(rowStart[v + 1]) {
                let p = Int(predecessor[r])
                if next[p] == -1 {
                    next[p] = Int32(v)
                    queue[queued] = Int32(p)
                    queued += 1
                }
            }
        }

        var diagnostics: [Diagnostic] = []
        var unreported = 0
        // Where the problems found are recorded (one store for all of them, made at the first).
        var store: ProblemStore?
        var text: TextBuffer?
        var pathNames: PathNames?
        for k in 0..<startCount {
            let s = Int(starts[k])
            guard next[Int(position[s])] >= 0 else { continue }
            if diagnostics.count >= LifetimeRule.maxReported {
                unreported += 1
                continue
            }
            var path = [s]
            var p = Int(next[Int(position[s])])
            while p >= 0 {
                path.append(Int(nodes[p]))
                p = Int(next[p])
            }
            if store == nil {
                store = ProblemStore()
                text = TextBuffer(capacity: 512)
                pathNames = PathNames(names: 16)
            }
            diagnostics.append(diagnostic(path, in: store!, text: text!, keeping: &pathNames!))
        }
        if unreported > 0 {
            diagnostics.append(
                Diagnostic(
                    .lifetime,
                    "\(unreported) more singletons would keep graph objects, not listed (the first \(LifetimeRule.maxReported) are)"
                ))
        }
        return diagnostics
    }

    /// Whether an entry's own object edges are walked: not past a `graph` entry (the path ends
    /// there) nor into an inherited singleton.
    private func expands(_ i: Int) -> Bool {
        lifestyleOf(i) != .graph && !isInheritedSingleton(i)
    }

    /// Whether a `graph` entry is reachable from `starts` (themselves included) by object edges.
    private func reachesGraph(from starts: [Int]) -> Bool {
        // Entries seen: a flag per entry when the starts are many next to the table (a load), else
        // a set (a few entries added: the walk costs what it reaches, not the registry's size).
        var seenFlags = starts.count * 64 < total ? [] : [Bool](repeating: false, count: total)
        var seenSet = Set<Int>()
        func firstSight(_ i: Int) -> Bool {
            if seenFlags.isEmpty { return seenSet.insert(i).inserted }
            if seenFlags[i] { return false }
            seenFlags[i] = true
            return true
        }
        var work: [Int] = []
        for s in starts where firstSight(s) {
            work.append(s)
            while let u = work.popLast() {
                if lifestyleOf(u) == .graph { return true }
                guard expands(u) else { continue }
                for t in edgesOf(u) where firstSight(Int(t)) { work.append(Int(t)) }
            }
        }
        return false
    }

    /// "singleton 'Cart' would keep graph object 'RequestContext': Cart -> Pricing ->
    /// RequestContext", at the singleton's place, with the key of the last step and the fixes.
    /// Written into `text` (cleared first) from the entries' names' bytes, the path's names packed
    /// into `names` in the same pass (`PathText.write`); only the record of the
    /// entry before the last step is read (its dependencies, in place).
    private func diagnostic(_ path: [Int], in store: ProblemStore, text: TextBuffer, keeping names: inout PathNames) -> Diagnostic
    {
        let singleton = path[0], graph = path[path.count - 1], before = path[path.count - 2]
        // (The closures read into locals: a closure below that captured `self` copied the whole
        // rule, seven closures retained and released, at each call.)
        let nameOf = self.nameOf, recordOf = self.recordOf
        func name(_ i: Int) { PathText.writeName(i, name: nameOf, into: text) }
        text.clear()
        text.append("singleton '")
        name(singleton)
        text.append("' would keep graph object '")
        name(graph)
        text.append("': ")
        PathText.write(count: path.count, at: { path[$0] }, name: nameOf, into: text, keeping: &names)
        // The dependency of the last step, and what to write there instead: a provider for a
        // reference or an optional one; a tagged list has no provider form, so the member leaves
        // the tag.
        var taggedBy: String?
        if let (arena, offset) = recordOf(before) {
            func find(_ target: UnsafeBufferPointer<UInt8>) -> ReachingDependency? {
                ReachingDependency.find(in: arena, at: offset, reaching: target) {
                    guard let (a, o) = recordOf(graph) else { return [] }
                    return Set(DefinitionCoding.tags(a, at: o).map(\.text))
                }.via
            }
            let via: ReachingDependency?
            if let b = nameOf(graph) {
                via = find(b)
            } else {
                var unnamed = "#\(graph)"
                via = unnamed.withUTF8(find)
            }
            if let via {
                text.append(" (key '")
                text.append(via.key)
                text.append("' of '")
                name(before)
                text.append("')")
                if via.kind == .tagged { taggedBy = via.tag ?? "" }
            }
        }
        text.append("; a graph object belongs to one create: ")
        if let tag = taggedBy {
            text.append("take '")
            name(graph)
            text.append("' out of tag '")
            text.append(tag)
            text.append("' (it is a member of {Tagged: ")
            text.append(tag)
            text.append("} there)")
        } else {
            text.append("make it {Provider: ")
            name(graph)
            text.append("}")
        }
        text.append(", or change a lifestyle ('")
        name(singleton)
        text.append("' not singleton, or '")
        name(graph)
        text.append("' not graph)")
        return Diagnostic(
            .lifetime, written: text, at: locationOf(singleton),
            path: names, in: store)
    }
}
