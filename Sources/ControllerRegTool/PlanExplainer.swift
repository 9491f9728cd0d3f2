import ControllerReg

/// `controllerreg explain`: what creating one entry does, as a tree, and the order objects are built in.
///
/// Built on the compiled plans the resolver runs (`Registry.compiledPlans`): slots in evaluation
/// order, references and providers as the transaction resolved them, the plan's lifestyle. A
/// reference is built (depth first) before the object that receives it; a singleton once per
/// registry, a `graph` entry once per create (later uses share it); a provider builds nothing now.
/// A tagged list shows the members it resolved to (each built like a reference, in list order);
/// an optional reference its target, or "absent → null".
///
/// Bounded like a create: references nested deeper than the registry's create depth limit are
/// not followed (the create fails there with CR_ERR_LIMIT, and the explanation says so), and the
/// tree and the creation order stop after `maxLines` lines each (a chain of 20,000 entries, or
/// transient entries that each use the next one twice, would otherwise print forever).
public struct PlanExplainer {
    let plans: [CompiledPlanView]
    let byName: [String: CompiledPlanView]
    /// The members of each tag a tagged list asks for (the same in every plan of one registry).
    let members: [String: [String]]
    /// The registry's create depth limit: the deepest chain of references a create follows.
    let maxDepth: Int
    /// The most lines of the tree, and of the creation order, an explanation prints.
    static let maxLines = 10_000

    /// Explains the entries of `registry` as it compiled them.
    package init(registry: Registry) {
        plans = registry.compiledPlans()
        maxDepth = registry.limits.maxCreateDepth
        var map: [String: CompiledPlanView] = [:]
        var members: [String: [String]] = [:]
        for p in plans {
            map[p.name] = p
            members.merge(p.taggedMembers) { first, _ in first }
        }
        byName = map
        self.members = members
    }

    /// Explains `entries`, compiled into a fresh registry (they must form a valid config).
    public init(entries: [EntryDefinition]) {
        let registry = Registry()
        try? registry.add(entries)
        self.init(registry: registry)
    }

    /// The explanation of creating `name`, or an error naming the closest entry.
    public func explain(_ name: String, colour: Bool = false) throws(ToolError) -> String {
        guard let root = byName[name] else {
            throw ToolError(.notFound, "no entry named '\(name)'\(Suggestions.hint(for: name, in: plans.map(\.name)))", at: nil)
        }
        var state = State()
        var lines: [String] = []
        let dim = colour ? "\u{1B}[2m" : "", bold = colour ? "\u{1B}[1m" : "", reset = colour ? "\u{1B}[0m" : ""
        lines.append("\(bold)\(root.name)\(reset) \(summary(root))")
        if let d = root.definition.description { lines.append("\(dim)  \(d)\(reset)") }
        lines += render(views(root), prefix: "", state: &state, colour: colour)
        _ = visit(root, state: &state)
        lines.append("")
        if state.tooDeep {
            lines.append(
                "Creating '\(root.name)' fails: its references nest deeper than the create depth limit (\(maxDepth)), CR_ERR_LIMIT."
            )
            lines.append("")
        }
        let count = "\(state.order.count) \(state.order.count == 1 ? "object" : "objects")"
        lines.append(
            state.orderCut ? "Creation order (the first \(count); the create builds more):" : "Creation order (\(count)):")
        for (i, step) in state.order.enumerated() { lines.append("  \(i + 1). \(step)") }
        if state.order.contains(where: { $0.hasSuffix("[singleton]") }) {
            lines.append("")
            lines.append("Singletons are built once per registry (eager ones when it starts) and reused by later creates.")
        }
        if !state.providers.isEmpty {
            lines.append("")
            lines.append("Providers (built later, when called): " + state.providers.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `(ClassName) [lifestyle, eager] tag …`
    func summary(_ p: CompiledPlanView) -> String {
        var flags = [p.lifestyle.rawValue]
        if p.definition.eager { flags.append("eager") }
        var s = "(\(p.definition.className)) [\(flags.joined(separator: ", "))]"
        switch p.definition.tags.count {
        case 0: break
        case 1: s += " tag \(p.definition.tags[0])"
        default: s += " tags " + p.definition.tags.map(\.text).joined(separator: ", ")
        }
        return s
    }

    /// The plan's slots as the tool shows values; environment values as written with what they
    /// resolved to (slots and written dependencies are in the same order).
    func views(_ p: CompiledPlanView) -> [(String, DependencyView)] {
        let written = p.definition.dependencies
        return p.slots.enumerated().map { i, slot in
            guard i < written.count, written[i].key == slot.key else { return (slot.key, DependencyView(slot.value)) }
            return (slot.key, DependencyView(written: written[i].value, compiled: slot.value))
        }
    }

    struct State {
        var order: [String] = []
        var built: Set<String> = []  // singletons and graph-scoped entries already made in this create
        var providers: [String] = []
        var expanded: Set<String> = []  // for the tree: entries shown in full once
        var depth = 0  // references followed from the root, in `render` or in `visit`
        var tooDeep = false  // a reference lies deeper than `maxDepth`
        var rendered = 0  // tree lines so far
        var treeCut = false
        var orderCut = false
    }

    /// Records creation order for `entry` (its references first, in slot order).
    func visit(_ entry: CompiledPlanView, state: inout State) -> Bool {
        let shared = entry.lifestyle != .transient
        if shared, state.built.contains(entry.name) { return false }
        if state.order.count >= Self.maxLines {
            state.orderCut = true
            return false
        }
        if state.depth >= maxDepth {  // `entry` is object depth + 1 of the chain
            state.tooDeep = true
            return false
        }
        state.depth += 1
        defer { state.depth -= 1 }
        func walk(_ v: DependencyValue) {
            switch v {
            case .reference(let name, _): if let target = byName[name] { _ = visit(target, state: &state) }
            case .provider(let name, _): if !state.providers.contains(name) { state.providers.append(name) }
            case .tagged(let tag, _):
                for m in members[tag.text] ?? [] { if let target = byName[m] { _ = visit(target, state: &state) } }
            case .optional(let name, _): if let target = byName[name] { _ = visit(target, state: &state) }
            case .list(let items): items.forEach(walk)
            case .map(let deps): deps.forEach { walk($0.value) }
            default: break
            }
        }
        entry.slots.forEach { walk($0.value) }
        if shared { state.built.insert(entry.name) }
        state.order.append("\(entry.name) (\(entry.definition.className))\(shared ? " [\(entry.lifestyle.rawValue)]" : "")")
        return true
    }

    /// The argument tree: one line per key, references expanded beneath.
    func render(_ deps: [(String, DependencyView)], prefix: String, state: inout State, colour: Bool) -> [String] {
        var lines: [String] = []
        for (i, (key, value)) in deps.enumerated() {
            if state.rendered >= Self.maxLines {
                if !state.treeCut { lines.append("\(prefix)… (the tree is cut at \(Self.maxLines) lines)") }
                state.treeCut = true
                break
            }
            state.rendered += 1
            let last = i == deps.count - 1
            let branch = prefix + (last ? "└─ " : "├─ ")
            let childPrefix = prefix + (last ? "   " : "│  ")
            lines += renderValue(key, value, branch: branch, childPrefix: childPrefix, state: &state, colour: colour)
        }
        return lines
    }

    func renderValue(
        _ key: String, _ value: DependencyView, branch: String, childPrefix: String,
        state: inout State, colour: Bool
    ) -> [String] {
        let label = key.isEmpty ? "" : "\(key): "
        switch value {
        case .reference(let name):
            guard let target = byName[name] else { return ["\(branch)\(label)→ \(name) (missing)"] }
            let shared = target.lifestyle != .transient
            if shared, state.expanded.contains(name) {
                return ["\(branch)\(label)→ \(name) \(summary(target)) (shared: same object as above)"]
            }
            if shared { state.expanded.insert(name) }
            if state.depth + 1 >= maxDepth {  // the target would be object depth + 2 of the chain
                state.tooDeep = true
                return [
                    "\(branch)\(label)→ \(name) \(summary(target))",
                    "\(childPrefix)… deeper than the create depth limit (\(maxDepth)): the create fails here",
                ]
            }
            state.depth += 1
            defer { state.depth -= 1 }
            return ["\(branch)\(label)→ \(name) \(summary(target))"]
                + render(views(target), prefix: childPrefix, state: &state, colour: colour)
        case .provider(let name):
            let cls = byName[name].map { " (\($0.definition.className))" } ?? ""
            return ["\(branch)\(label)provider of \(name)\(cls): a factory, nothing built now"]
        case .tagged(let tag):
            let list = members[tag.text] ?? []
            if list.isEmpty { return ["\(branch)\(label){Tagged: \(tag)}: [] (no entry has this tag)"] }
            return ["\(branch)\(label){Tagged: \(tag)}: list of \(list.count) (by entry name)"]
                + render(
                    list.enumerated().map { ("[\($0.offset)]", DependencyView.reference($0.element)) }, prefix: childPrefix,
                    state: &state, colour: colour)
        case .optional(let name):
            guard byName[name] != nil else { return ["\(branch)\(label){Optional: \(name)}: absent → null"] }
            return renderValue(
                key.isEmpty ? "" : "\(key) (optional)", .reference(name), branch: branch, childPrefix: childPrefix,
                state: &state, colour: colour)
        case .list(let items):
            if items.isEmpty { return ["\(branch)\(label)[] (empty list)"] }
            return ["\(branch)\(label)list of \(items.count)"]
                + render(
                    items.enumerated().map { ("[\($0.offset)]", $0.element) }, prefix: childPrefix, state: &state, colour: colour)
        case .map(let pairs):
            if pairs.isEmpty { return ["\(branch)\(label){} (empty map)"] }
            return ["\(branch)\(label)map of \(pairs.count)"] + render(pairs, prefix: childPrefix, state: &state, colour: colour)
        default:
            return ["\(branch)\(label)\(Self.literal(value))"]
        }
    }

    static func literal(_ v: DependencyView) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return "\(b) (bool)"
        case .int(let i): return "\(i) (int)"
        case .double(let d): return "\(d) (double)"
        case .string(let s): return JSONText.quote(s) + " (string)"
        case .template(let text, let resolved):
            return JSONText.quote("@" + text) + (resolved.map { " = " + JSONText.quote($0) + " (string)" } ?? "")
        case .env(let name, let type, let defaultText, let resolved):
            let d = defaultText.map { ", default \($0)" } ?? ""
            let value = resolved.map { " = " + literal($0) } ?? ""
            return "\(name) (\(type)\(d))\(value)"
        default: return ""
        }
    }
}
