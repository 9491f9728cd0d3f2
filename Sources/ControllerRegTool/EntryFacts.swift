import ControllerReg

/// What the tool shows about an entry beyond name, class and dependencies: lifestyle and
/// eagerness, read from `EntryDefinition`'s own properties (this is the one file to touch when the
/// definition gains a property the tool should show).
public struct EntryFacts: Sendable, Equatable {
    /// `transient`, `singleton` or `graph`.
    public var lifestyle: String
    /// Whether the entry is built when the registry starts.
    public var eager: Bool?

    public init(_ entry: EntryDefinition) {
        lifestyle = entry.lifestyle.rawValue
        eager = entry.eager
    }
}

/// How one entry points at another.
public enum EdgeKind: String, Sendable {
    /// A reference: the target is created first and injected.
    case reference
    /// A provider: a lazy factory for the target is injected; nothing is created now.
    case provider
    /// A tagged list (`{Tagged: t}`): every entry tagged `t` is created and injected in a list;
    /// the edge's `to` is the tag (`EntryEdge.to`), expanded to members by who draws it.
    case tagged
    /// An optional reference (`{Optional: Name}`): the target when it exists, else null.
    case optional
}

/// One entry's use of another, with the key path it is injected under (`key`, `key[0]`, `key.sub`).
public struct EntryEdge: Sendable, Equatable {
    public var from: String
    /// The target entry's name; for a `.tagged` edge, the tag's text.
    public var to: String
    public var key: String
    public var kind: EdgeKind
}

/// A dependency value as the tool sees it (without source locations).
public indirect enum DependencyView: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case reference(String)
    case provider(String)
    case tagged(EntryTag)
    case optional(String)
    case list([DependencyView])
    case map([(String, DependencyView)])
    /// A literal string with `${NAME}` substitutions as written (without the `@`), and its value
    /// when known (from a compiled plan).
    case template(String, resolved: String?)
    /// `{Env: NAME, Type: T, Default: D}` as written, and its value when known.
    case env(name: String, type: String, defaultText: String?, resolved: DependencyView?)

    public static func == (a: DependencyView, b: DependencyView) -> Bool { a.text == b.text }

    private var text: String { String(describing: self) }

    public init(_ value: DependencyValue) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .reference(let name, _): self = .reference(name)
        case .provider(let name, _): self = .provider(name)
        case .tagged(let tag, _): self = .tagged(tag)
        case .optional(let name, _): self = .optional(name)
        case .list(let items): self = .list(items.map(DependencyView.init))
        case .map(let deps): self = .map(deps.map { ($0.key, DependencyView($0.value)) })
        case .template(let text, _): self = .template(text, resolved: nil)
        case .env(let e):
            self = .env(name: e.name, type: e.type.rawValue, defaultText: e.defaultValue?.description, resolved: nil)
        }
    }

    /// The written value with the value it was compiled to beside each environment value
    /// (`compiled` comes from the entry's plan: same shape, environment resolved).
    public init(written: DependencyValue, compiled: DependencyValue) {
        switch (written, compiled) {
        case (.template(let text, _), .string(let s)):
            self = .template(text, resolved: s)
        case (.env(let e), _):
            self = .env(
                name: e.name, type: e.type.rawValue, defaultText: e.defaultValue?.description,
                resolved: DependencyView(compiled))
        case (.list(let w), .list(let c)) where w.count == c.count:
            self = .list(zip(w, c).map { DependencyView(written: $0, compiled: $1) })
        case (.map(let w), .map(let c)) where w.count == c.count:
            self = .map(zip(w, c).map { ($0.key, DependencyView(written: $0.value, compiled: $1.value)) })
        default:
            self = DependencyView(compiled)
        }
    }
}

extension EntryDefinition {
    /// The dependencies as the tool sees them.
    public var dependencyViews: [(String, DependencyView)] {
        dependencies.map { ($0.key, DependencyView($0.value)) }
    }

    /// Every reference, provider, tagged list and optional reference this entry holds, in written
    /// order, with key paths.
    public var edges: [EntryEdge] {
        var out: [EntryEdge] = []
        func walk(_ v: DependencyView, _ path: String) {
            switch v {
            case .reference(let n): out.append(EntryEdge(from: name, to: n, key: path, kind: .reference))
            case .provider(let n): out.append(EntryEdge(from: name, to: n, key: path, kind: .provider))
            case .tagged(let t): out.append(EntryEdge(from: name, to: t.text, key: path, kind: .tagged))
            case .optional(let n): out.append(EntryEdge(from: name, to: n, key: path, kind: .optional))
            case .list(let items): for (i, item) in items.enumerated() { walk(item, "\(path)[\(i)]") }
            case .map(let pairs): for (k, item) in pairs { walk(item, "\(path).\(k)") }
            default: break
            }
        }
        for (k, v) in dependencyViews { walk(v, k) }
        return out
    }
}
