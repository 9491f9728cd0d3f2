import ControllerReg

/// `controllerreg explain`: what creating one entry does, as a tree, and the order objects are built in.
///
/// Follows the resolver's rules: dependencies in written order, a reference built (depth first)
/// before the object that receives it; a singleton built once per registry, a `graph` entry once per
/// create (later uses share it); a provider injects a factory and builds nothing now.
public struct PlanExplainer {
    public let entries: [EntryDefinition]
    let byName: [String: EntryDefinition]

    public init(entries: [EntryDefinition]) {
        self.entries = entries
        var map: [String: EntryDefinition] = [:]
        for e in entries { map[e.name] = e }
        byName = map
    }

    /// The explanation of creating `name`, or an error naming the closest entry.
    public func explain(_ name: String, colour: Bool = false) throws(ToolError) -> String {
        guard let root = byName[name] else {
            throw ToolError(.notFound, "no entry named '\(name)'\(Suggestions.hint(for: name, in: entries.map(\.name)))", at: nil)
        }
        var state = State()
        var lines: [String] = []
        let dim = colour ? "\u{1B}[2m" : "", bold = colour ? "\u{1B}[1m" : "", reset = colour ? "\u{1B}[0m" : ""
        lines.append("\(bold)\(root.name)\(reset) \(summary(root))")
        if let d = root.description { lines.append("\(dim)  \(d)\(reset)") }
        lines += render(root.dependencyViews, prefix: "", state: &state, colour: colour)
        _ = visit(root, state: &state)
        lines.append("")
        lines.append("Creation order (\(state.order.count) \(state.order.count == 1 ? "object" : "objects")):")
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
    func summary(_ e: EntryDefinition) -> String {
        let facts = EntryFacts(e)
        var flags = [facts.lifestyle]
        if facts.eager == true { flags.append("eager") }
        var s = "(\(e.className)) [\(flags.joined(separator: ", "))]"
        if let tag = e.tag { s += " tag \(tag)" }
        return s
    }

    struct State {
        var order: [String] = []
        var built: Set<String> = []      // singletons and graph-scoped entries already made in this create
        var providers: [String] = []
        var expanded: Set<String> = []   // for the tree: entries shown in full once
    }

    /// Records creation order for `entry` (dependencies first).
    func visit(_ entry: EntryDefinition, state: inout State) -> Bool {
        let life = EntryFacts(entry).lifestyle
        if life != "transient", state.built.contains(entry.name) { return false }
        for edge in entry.edges {
            if edge.kind == .provider {
                if !state.providers.contains(edge.to) { state.providers.append(edge.to) }
                continue
            }
            if let target = byName[edge.to] { _ = visit(target, state: &state) }
        }
        if life != "transient" { state.built.insert(entry.name) }
        state.order.append("\(entry.name) (\(entry.className))\(life == "transient" ? "" : " [\(life)]")")
        return true
    }

    /// The argument tree: one line per key, references expanded beneath.
    func render(_ deps: [(String, DependencyView)], prefix: String, state: inout State, colour: Bool) -> [String] {
        var lines: [String] = []
        for (i, (key, value)) in deps.enumerated() {
            let last = i == deps.count - 1
            let branch = prefix + (last ? "└─ " : "├─ ")
            let childPrefix = prefix + (last ? "   " : "│  ")
            lines += renderValue(key, value, branch: branch, childPrefix: childPrefix, state: &state, colour: colour)
        }
        return lines
    }

    func renderValue(_ key: String, _ value: DependencyView, branch: String, childPrefix: String,
                     state: inout State, colour: Bool) -> [String] {
        let label = key.isEmpty ? "" : "\(key): "
        switch value {
        case .reference(let name):
            guard let target = byName[name] else { return ["\(branch)\(label)→ \(name) (missing)"] }
            let life = EntryFacts(target).lifestyle
            if life != "transient", state.expanded.contains(name) {
                return ["\(branch)\(label)→ \(name) \(summary(target)) (shared: same object as above)"]
            }
            if life != "transient" { state.expanded.insert(name) }
            return ["\(branch)\(label)→ \(name) \(summary(target))"]
                + render(target.dependencyViews, prefix: childPrefix, state: &state, colour: colour)
        case .provider(let name):
            let cls = byName[name].map { " (\($0.className))" } ?? ""
            return ["\(branch)\(label)provider of \(name)\(cls): a factory, nothing built now"]
        case .list(let items):
            if items.isEmpty { return ["\(branch)\(label)[] (empty list)"] }
            return ["\(branch)\(label)list of \(items.count)"]
                + render(items.enumerated().map { ("[\($0.offset)]", $0.element) }, prefix: childPrefix, state: &state, colour: colour)
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
        default: return ""
        }
    }
}
