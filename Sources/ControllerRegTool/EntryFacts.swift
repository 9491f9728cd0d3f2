import ControllerReg

/// What the tool shows about an entry beyond name, class and dependencies: lifestyle, eagerness,
/// provider dependencies and any key the core adds later.
///
/// Lifestyle and eagerness come from `EntryDefinition`; properties a later core adds are read by
/// reflection and shown as `name: value` until the tool learns them, and this is the one file to
/// touch when the definition changes shape.
public struct EntryFacts: Sendable, Equatable {
    /// `transient`, `singleton` or `graph`.
    public var lifestyle: String
    /// Whether the entry is built when the registry starts.
    public var eager: Bool?
    /// Other properties the core declares that the tool does not know by name, as `name: value` text.
    public var extras: [(String, String)]

    public static func == (a: EntryFacts, b: EntryFacts) -> Bool {
        a.lifestyle == b.lifestyle && a.eager == b.eager && a.extras.map { "\($0.0)=\($0.1)" } == b.extras.map { "\($0.0)=\($0.1)" }
    }

    /// Properties every tool output already shows by name.
    static let known: Set<String> = ["name", "className", "description", "tag", "dependencies", "location", "lifestyle", "eager", "isEager"]

    public init(_ entry: EntryDefinition) {
        lifestyle = entry.lifestyle.rawValue
        eager = entry.eager
        // Keys the core adds after this tool version: shown generically until the tool knows them.
        var extras: [(String, String)] = []
        for child in Mirror(reflecting: entry).children {
            guard let label = child.label, !Self.known.contains(label), let value = Self.unwrap(child.value) else { continue }
            extras.append((label, String(describing: value)))
        }
        self.extras = extras
    }

    /// The value inside an Optional (nil for `.none`), or the value itself.
    static func unwrap(_ value: Any) -> Any? {
        let m = Mirror(reflecting: value)
        guard m.displayStyle == .optional else { return value }
        return m.children.first.map { unwrap($0.value) } ?? nil
    }

    /// `singleton` for an enum case `.singleton` (its raw value when it has a string one).
    static func caseName(_ value: Any) -> String {
        if let r = value as? any RawRepresentable, let s = r.rawValue as? String { return s }
        let text = String(describing: value)
        return text.hasPrefix(".") ? String(text.dropFirst()) : text
    }
}

/// How one entry points at another.
public enum EdgeKind: String, Sendable {
    /// A reference: the target is created first and injected.
    case reference
    /// A provider: a lazy factory for the target is injected; nothing is created now.
    case provider
}

/// One entry's use of another, with the key path it is injected under (`key`, `key[0]`, `key.sub`).
public struct EntryEdge: Sendable, Equatable {
    public var from: String
    public var to: String
    public var key: String
    public var kind: EdgeKind
}

/// A dependency value as the tool sees it (without source locations); a case a later core adds
/// is read by reflection until the tool knows it.
public indirect enum DependencyView: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case reference(String)
    case provider(String)
    case list([DependencyView])
    case map([(String, DependencyView)])
    /// A value of a kind this tool version does not know; its description.
    case other(String)

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
        case .list(let items): self = .list(items.map(DependencyView.init))
        case .map(let deps): self = .map(deps.map { ($0.key, DependencyView($0.value)) })
        @unknown default:
            self = DependencyView.reflect(value)
        }
    }

    /// Reads a case the core added after this file was written.
    static func reflect(_ value: Any) -> DependencyView {
        let m = Mirror(reflecting: value)
        if let child = m.children.first, let label = child.label {
            var name: String?
            if let s = child.value as? String { name = s } else {
                name = Mirror(reflecting: child.value).children.first { $0.value is String }?.value as? String
            }
            if label.lowercased().contains("provider"), let name { return .provider(name) }
            if label.lowercased().contains("reference"), let name { return .reference(name) }
        }
        return .other(String(describing: value))
    }
}

extension EntryDefinition {
    /// The dependencies as the tool sees them.
    public var dependencyViews: [(String, DependencyView)] {
        dependencies.map { ($0.key, DependencyView($0.value)) }
    }

    /// Every reference and provider this entry holds, in written order, with key paths.
    public var edges: [EntryEdge] {
        var out: [EntryEdge] = []
        func walk(_ v: DependencyView, _ path: String) {
            switch v {
            case .reference(let n): out.append(EntryEdge(from: name, to: n, key: path, kind: .reference))
            case .provider(let n): out.append(EntryEdge(from: name, to: n, key: path, kind: .provider))
            case .list(let items): for (i, item) in items.enumerated() { walk(item, "\(path)[\(i)]") }
            case .map(let pairs): for (k, item) in pairs { walk(item, "\(path).\(k)") }
            default: break
            }
        }
        for (k, v) in dependencyViews { walk(v, k) }
        return out
    }
}
