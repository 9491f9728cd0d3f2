/// The status codes every layer reports; the C ABI's `cr_status` values are the same numbers.
///
/// `ok` is 0. The others never change their value once released.
public enum ErrorCode: Int32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No error.
    case ok = 0
    /// A NULL pointer, an out-of-range enum value or an argument of the wrong shape.
    case invalidArgument = 1
    /// A file could not be read: missing, a directory, unreadable, or a read error.
    case io = 2
    /// The text is not well-formed YAML, JSON or plist (this includes invalid UTF-8).
    case syntax = 3
    /// Well-formed, but not a valid config: unknown key, wrong type, missing `ClassName`, top level not a map.
    case schema = 4
    /// The same key twice in one map, or an entry name defined twice.
    case duplicate = 5
    /// A dependency refers to an entry that does not exist.
    case missingReference = 6
    /// References form a cycle (`A -> B -> A`).
    case cycle = 7
    /// A name that is neither an entry nor a registered class.
    case notFound = 8
    /// An entry's class has not been registered.
    case classNotRegistered = 9
    /// A class name registered twice.
    case classExists = 10
    /// A host `create` callback failed (returned NULL or threw).
    case createFailed = 11
    /// A value accessor was used on a value of another kind.
    case type = 12
    /// A configured limit (depth, size, count) was exceeded.
    case limit = 13
    /// Memory could not be allocated.
    case noMemory = 14
    /// An environment value a config needs is missing (no default) or does not convert to its type.
    case environment = 15
    /// A singleton would keep a `graph` object alive beyond its create (it reaches a `graph` entry
    /// through object references, not providers).
    case lifetime = 16

    /// A short stable name, e.g. `"cycle"`.
    public var description: String {
        switch self {
        case .ok: return "ok"
        case .invalidArgument: return "invalid argument"
        case .io: return "i/o error"
        case .syntax: return "syntax error"
        case .schema: return "schema error"
        case .duplicate: return "duplicate"
        case .missingReference: return "missing reference"
        case .cycle: return "cycle"
        case .notFound: return "not found"
        case .classNotRegistered: return "class not registered"
        case .classExists: return "class already registered"
        case .createFailed: return "create failed"
        case .type: return "wrong value type"
        case .limit: return "limit exceeded"
        case .noMemory: return "out of memory"
        case .environment: return "environment error"
        case .lifetime: return "lifetime"
        }
    }
}
