/// An entry as the config (or code) declares it: a name, the class it is built from, and its
/// dependencies. This is the entry decoder's output and the input of a registry transaction.
public struct EntryDefinition: Sendable, Equatable {
    /// The name hosts create it by.
    public var name: String
    /// The registered class that builds it.
    public var className: String
    /// Free text for people and tools.
    public var description: String?
    /// The entry's tags (`Tag: screen` or `Tag: [screen, 5]`), in written order: `{Tagged: t}`
    /// lists the entries whose tags include `t`. Empty when the entry has none.
    public var tags: [EntryTag]
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

    /// The entry's one tag, or its first when it has several (nil when it has none). Setting it
    /// replaces every tag; `tags` is the whole list.
    public var tag: EntryTag? {
        get { tags.first }
        set { tags = newValue.map { [$0] } ?? [] }
    }

    /// Creates an entry definition. `tag` and `tags` both give tags (`tag` first).
    public init(
        name: String, className: String, description: String? = nil, tag: EntryTag? = nil,
        tags: [EntryTag] = [], dependencies: [Dependency] = [], lifestyle: Lifestyle = .transient,
        eager: Bool = false, location: SourceLocation? = nil
    ) {
        self.name = name
        self.className = className
        self.description = description
        self.tags = (tag.map { [$0] } ?? []) + tags
        self.dependencies = dependencies
        self.lifestyle = lifestyle
        self.eager = eager
        self.location = location
    }

    /// Equal when everything but the source location is equal.
    public static func == (a: EntryDefinition, b: EntryDefinition) -> Bool {
        a.name == b.name && a.className == b.className && a.description == b.description && a.tags == b.tags
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

/// One of an entry's tags (`Tag`), or the tag a `{Tagged: t}` value asks for: a string or an
/// integer. A tag is its text: `.int(5)` and `.string("5")` match (`text`); the case is kept so a
/// config is written back as it was.
public enum EntryTag: Sendable, Hashable, CustomStringConvertible {
    /// A text tag (`Tag: screen`).
    case string(String)
    /// An integer tag (`Tag: 5`).
    case int(Int64)

    /// The tag's text, what matching compares (`5` for `.int(5)`).
    public var text: String {
        switch self {
        case .string(let s): return s
        case .int(let i): return String(i)
        }
    }

    /// The tag as written (its text).
    public var description: String { text }
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

/// A dependency's value: a literal, a reference to another entry (plain, provider, tagged list or
/// optional), or a list or map of those. Forms are kept as written; what they resolve to is decided
/// by the registry's transaction.
/// Not `indirect`: lists and maps already keep their elements out of line, so the scalar cases
/// need no box (one allocation less per dependency when a config is decoded).
public enum DependencyValue: Sendable, Equatable {
    /// A literal null.
    case null
    /// A literal boolean.
    case bool(Bool)
    /// A literal integer.
    case int(Int64)
    /// A literal number.
    case double(Double)
    /// A literal string (written with a leading `@`, which is not part of the value).
    case string(String)
    /// Another entry, created first and passed as an object.
    case reference(String, at: SourceLocation?)
    /// A factory for another entry (written `{Provider: Name}`): the host creates it when it wants.
    case provider(String, at: SourceLocation?)
    /// A list of the objects of every entry whose tags include the tag (written `{Tagged: t}`),
    /// ordered by entry name (byte-wise); an empty list when none does. Which entries match is
    /// decided when the registry changes, never when the value is read.
    case tagged(EntryTag, at: SourceLocation?)
    /// The object of entry `Name` if it exists, else null (written `{Optional: Name}`); an absent
    /// name is not an error, and an entry added later is used from then on.
    case optional(String, at: SourceLocation?)
    /// A literal string with environment substitutions (`"@http://${HOST}:${PORT:-80}"`), as
    /// written without the `@`; `EnvTemplate` describes the grammar. Resolved at commit, against
    /// the load's environment, to a `.string`. (A `.string` is taken as it is.)
    indirect case template(String, at: SourceLocation?)
    /// An environment variable converted to a type (`{Env: PORT, Type: int, Default: 8080}`),
    /// resolved at commit against the load's environment.
    /// Boxed (`indirect`): `EnvValue` is larger than the other payloads, and a value's size is its
    /// largest case's, so unboxed it would make every dependency value larger.
    indirect case env(EnvValue)
    /// A list, passed as a list of what its elements resolve to.
    case list([DependencyValue])
    /// A map, passed as a map of what its values resolve to.
    case map([Dependency])

    /// The deepest a dependency value may nest (lists and maps inside lists and maps), whatever the
    /// registry's limits: the walks over values (decoding, compiling, validating, comparing,
    /// creating) recurse once per level, and this keeps them far from the end of any thread's stack.
    /// Deeper values are rejected with `ErrorCode.limit`.
    public static let maxNesting = 256

    /// What a "nests deeper than `maxNesting` levels" message adds: the bound is fixed, so the fix
    /// is in the value.
    public static let tooDeepFix =
        "(a fixed bound, not a cr_limit: flatten the value, or pass the deep data as props when creating)"

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
        case let (.tagged(x, _), .tagged(y, _)): return x == y
        case let (.optional(x, _), .optional(y, _)): return x == y
        case let (.template(x, _), .template(y, _)): return x == y
        case let (.env(x), .env(y)): return x == y
        case let (.list(x), .list(y)): return x == y
        case let (.map(x), .map(y)): return x == y
        default: return false
        }
    }

    /// Calls `body` for every reference and provider inside this value (depth-first, in order),
    /// with whether it is a provider. Tagged lists and optional references are not reported:
    /// `forEachEdge` reports every kind.
    public func forEachReference(_ body: (_ name: String, _ at: SourceLocation?, _ isProvider: Bool) -> Void) {
        forEachEdge { edge in
            switch edge.kind {
            case .reference: body(edge.name, edge.location, false)
            case .provider: body(edge.name, edge.location, true)
            case .tagged, .optional: break
            }
        }
    }

    /// Calls `body` for every use of other entries inside this value (depth-first, in written
    /// order): references, providers, tagged lists (by tag) and optional references.
    public func forEachEdge(_ body: (DependencyEdge) -> Void) {
        switch self {
        case .reference(let name, let at): body(DependencyEdge(kind: .reference, name: name, location: at))
        case .provider(let name, let at): body(DependencyEdge(kind: .provider, name: name, location: at))
        case .tagged(let tag, let at): body(DependencyEdge(kind: .tagged, name: tag.text, location: at))
        case .optional(let name, let at): body(DependencyEdge(kind: .optional, name: name, location: at))
        case .list(let items): for item in items { item.forEachEdge(body) }
        case .map(let deps): for d in deps { d.value.forEachEdge(body) }
        default: break
        }
    }
}

/// One use of other entries inside a dependency value (`DependencyValue.forEachEdge`).
public struct DependencyEdge: Sendable, Equatable {
    /// How the value uses the entries.
    public enum Kind: Sendable, Hashable {
        /// `Name`: the entry's object, created first.
        case reference
        /// `{Provider: Name}`: a factory; nothing is created with the receiver.
        case provider
        /// `{Tagged: t}`: the objects of every entry tagged `t` (`name` is the tag's text).
        case tagged
        /// `{Optional: Name}`: the entry's object when it exists, else null.
        case optional

        /// Whether the receiver's create builds the target(s): every kind but a provider. Object
        /// edges are what the cycle rule (and any rule about what a create reaches) walks.
        public var isObjectEdge: Bool { self != .provider }
    }

    /// How the entries are used.
    public var kind: Kind
    /// The entry's name, or for `.tagged` the tag's text.
    public var name: String
    /// Where it was written (nil for values built in code).
    public var location: SourceLocation?

    /// Creates an edge.
    public init(kind: Kind, name: String, location: SourceLocation?) {
        self.kind = kind
        self.name = name
        self.location = location
    }
}
