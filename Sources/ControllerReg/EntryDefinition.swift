/// An entry as the config (or code) declares it: a name, the class it is built from, and its
/// dependencies. This is the entry decoder's output and the input of a registry transaction.
public struct EntryDefinition: Sendable, Equatable {
    /// The name hosts create it by.
    public var name: String
    /// The registered class that builds it.
    public var className: String
    /// Free text for people and tools.
    public var description: String?
    /// A host-defined tag.
    public var tag: EntryTag?
    /// The dependencies, in written order.
    public var dependencies: [Dependency]
    /// How many objects the entry makes and who owns them.
    public var lifestyle: Lifestyle
    /// For singletons: build it when the registry is started (`Registry.start()`).
    public var eager: Bool
    /// Where the entry's name was written (nil for entries added from code).
    public var location: SourceLocation?
    /// The environment its `${NAME}` and `{Env: NAME}` values were resolved against when it was
    /// committed (set only for entries that use the environment); a child registry that compiles
    /// the entry again resolves them against the same one.
    var environment: EnvironmentLookup?

    /// Creates an entry definition.
    public init(
        name: String, className: String, description: String? = nil, tag: EntryTag? = nil,
        dependencies: [Dependency] = [], lifestyle: Lifestyle = .transient, eager: Bool = false,
        location: SourceLocation? = nil
    ) {
        self.name = name
        self.className = className
        self.description = description
        self.tag = tag
        self.dependencies = dependencies
        self.lifestyle = lifestyle
        self.eager = eager
        self.location = location
    }

    /// Equal when everything but the source location is equal.
    public static func == (a: EntryDefinition, b: EntryDefinition) -> Bool {
        a.name == b.name && a.className == b.className && a.description == b.description && a.tag == b.tag
            && a.dependencies == b.dependencies && a.lifestyle == b.lifestyle && a.eager == b.eager
    }
}

/// How many objects an entry makes and who owns them.
public enum Lifestyle: String, Sendable, Hashable, CaseIterable {
    /// A new object for every create, owned by whoever receives it (the default).
    case transient
    /// One object per registry, built on first use (or at start when eager), owned by the registry
    /// and destroyed when it is freed, in reverse order of creation.
    case singleton
    /// One object shared within a single create call (a diamond gets one instance); the first
    /// object that receives it owns it.
    case graph
}

/// An entry's `Tag`: a string or an integer.
public enum EntryTag: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case int(Int64)

    /// The tag as written.
    public var description: String {
        switch self {
        case .string(let s): return s
        case .int(let i): return String(i)
        }
    }
}

/// One key of an entry's `Dependencies` map.
public struct Dependency: Sendable, Equatable {
    /// The argument name the host reads.
    public var key: String
    /// What is passed under that key.
    public var value: DependencyValue
    /// Where the key was written.
    public var location: SourceLocation?

    /// Creates a dependency.
    public init(key: String, value: DependencyValue, location: SourceLocation? = nil) {
        self.key = key
        self.value = value
        self.location = location
    }

    /// Equal when key and value are equal (locations are ignored).
    public static func == (a: Dependency, b: Dependency) -> Bool { a.key == b.key && a.value == b.value }
}

/// A dependency's value: a literal, a reference to another entry, or a list or map of those.
/// Not `indirect`: lists and maps already keep their elements out of line, so the scalar cases
/// need no box (one allocation less per dependency when a config is decoded).
public enum DependencyValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// A literal string (written with a leading `@`, which is not part of the value).
    case string(String)
    /// Another entry, created first and passed as an object.
    case reference(String, at: SourceLocation?)
    /// A factory for another entry (written `{Provider: Name}`): the host creates it when it wants.
    case provider(String, at: SourceLocation?)
    /// A literal string with environment substitutions (`"@http://${HOST}:${PORT:-80}"`), as
    /// written without the `@`; `EnvTemplate` describes the grammar. Resolved at commit, against
    /// the load's environment, to a `.string`. (A `.string` is taken as it is.)
    indirect case template(String, at: SourceLocation?)
    /// An environment variable converted to a type (`{Env: PORT, Type: int, Default: 8080}`),
    /// resolved at commit against the load's environment.
    /// Boxed (`indirect`): `EnvValue` is larger than the other payloads, and a value's size is its
    /// largest case's, so unboxed it would make every dependency value larger.
    indirect case env(EnvValue)
    case list([DependencyValue])
    case map([Dependency])

    /// The deepest a dependency value may nest (lists and maps inside lists and maps), whatever the
    /// registry's limits: the walks over values (decoding, compiling, validating, comparing,
    /// creating) recurse once per level, and this keeps them far from the end of any thread's stack.
    /// Deeper values are rejected with `ErrorCode.limit`.
    public static let maxNesting = 256

    /// Whether this is a list or a map (only those can nest).
    var isContainer: Bool {
        switch self {
        case .list, .map: return true
        default: return false
        }
    }

    /// How deeply this value nests (a scalar is 0, `[1]` is 1), found without recursion. Stops
    /// counting past `limit`.
    public func nestingDepth(stoppingAfter limit: Int = Int.max) -> Int {
        // A scalar nests 0 levels: answered without the work stack (most values are scalars).
        switch self {
        case .list, .map: break
        default: return 0
        }
        var deepest = 0
        var stack: [(DependencyValue, Int)] = [(self, 0)]
        while let (value, depth) = stack.popLast() {
            switch value {
            case .list(let items):
                deepest = max(deepest, depth + 1)
                if deepest > limit { return deepest }
                for item in items { stack.append((item, depth + 1)) }
            case .map(let deps):
                deepest = max(deepest, depth + 1)
                if deepest > limit { return deepest }
                for d in deps { stack.append((d.value, depth + 1)) }
            default:
                break
            }
        }
        return deepest
    }

    /// Equal when structurally equal (reference locations are ignored; doubles compare bitwise so NaN equals NaN).
    public static func == (a: DependencyValue, b: DependencyValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern
        case let (.string(x), .string(y)): return x == y
        case let (.reference(x, _), .reference(y, _)): return x == y
        case let (.provider(x, _), .provider(y, _)): return x == y
        case let (.template(x, _), .template(y, _)): return x == y
        case let (.env(x), .env(y)): return x == y
        case let (.list(x), .list(y)): return x == y
        case let (.map(x), .map(y)): return x == y
        default: return false
        }
    }

    /// Calls `body` for every entry reference inside this value (depth-first, in order), with
    /// whether it is a provider (providers do not count for cycles).
    public func forEachReference(_ body: (_ name: String, _ at: SourceLocation?, _ isProvider: Bool) -> Void) {
        switch self {
        case .reference(let name, let at): body(name, at, false)
        case .provider(let name, let at): body(name, at, true)
        case .list(let items): for item in items { item.forEachReference(body) }
        case .map(let deps): for d in deps { d.value.forEachReference(body) }
        default: break
        }
    }
}
