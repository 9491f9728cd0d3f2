import ControllerRegConfig
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The environment a load resolves `${NAME}` and `{Env: NAME}` against: the process environment
/// (read anew at each load), or a map the host gives. It is an explicit input of the commit, so a
/// change made again later (a reload) can pass the same one.
public struct ConfigEnvironment: Sendable, Equatable {
    /// The variables given by the host; nil for the process environment.
    public let variables: [String: String]?

    /// The process environment (`getenv`), read when the load runs.
    public static let process = ConfigEnvironment(variables: nil)

    /// Exactly these variables (the process environment is not consulted).
    public init(_ variables: [String: String]) { self.variables = variables }

    /// `variables`, or the process environment when nil.
    public init(variables: [String: String]?) { self.variables = variables }

    /// `variables` (nil: the process environment) as a load's environment, checked: a given name
    /// a config could never reference (not a variable name by `EnvValue.isValidName`, the rule of
    /// `${NAME}` and `{Env: NAME}`: `""`, `"1BAD"`, `"A=B"`) is a mistake, thrown as
    /// `.invalidArgument` naming the name and the rule. What every door that takes a map calls
    /// (the Swift API's loads and adds, the C ABI's `options->environment`, the bindings).
    public static func checked(_ variables: [String: String]?) throws(ConfigError) -> ConfigEnvironment {
        if let variables {
            // The first bad name in byte order, so the message does not depend on hashing.
            if let bad = variables.keys.filter({ !EnvValue.isValidName($0) }).min(by: {
                Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
            }) {
                throw ConfigError(
                    .invalidArgument,
                    "environment: the variable name \(String(bad.prefix(64)).debugDescription)\(bad.count > 64 ? "…" : "") can never be referenced: a config reads ${NAME} and {Env: NAME} where NAME is letters, digits and '_', not starting with a digit ([A-Za-z_][A-Za-z0-9_]*); rename it or leave it out of the map"
                )
            }
        }
        return ConfigEnvironment(variables: variables)
    }
}

/// The variables one commit reads, fixed for its life: a given map as it is; the process
/// environment read once per name (so every entry of one load, and a child registry that
/// recompiles them later, sees the same value even if the process changes its environment).
/// Definitions that use the environment keep the lookup they were committed with.
/// One is made per commit: cheap (no allocation beyond the object) when nothing uses it.
final class EnvironmentLookup: Sendable {
    private let given: [String: String]?
    /// Process variables read so far (nil value: unset).
    private let read = Mutex<[String: String?]>([:])
    /// Process variables read so far whose bytes are not UTF-8: the offset and value of the first
    /// bad byte (their value is read repaired, and never used).
    private let notUTF8Values = Mutex<[String: (offset: Int, byte: UInt8)]>([:])
    /// Whether `notUTF8Values` is not empty (one load to skip looking for the others).
    private let sawNotUTF8 = Atomic<Bool>(false)

    init(_ environment: ConfigEnvironment) { given = environment.variables }

    /// Whether some process variable read so far is not UTF-8 (see `notUTF8`).
    var anyNotUTF8: Bool { sawNotUTF8.load(ordering: .acquiring) }

    /// The variable's value, or nil when it is unset.
    func value(of name: String) -> String? {
        if let given { return given[name] }
        return read.withLock { read in
            if let known = read[name] { return known }
            let v = getenv(name).map { p -> String in
                let length = strlen(p)
                let bad = UnsafeRawPointer(p).withMemoryRebound(to: UInt8.self, capacity: length) { u in
                    firstInvalidUTF8(u, from: 0, to: length).map { ($0, u[$0]) }
                }
                if let bad {
                    notUTF8Values.withLock { $0[name] = bad }
                    sawNotUTF8.store(true, ordering: .releasing)
                }
                return String(cString: p)
            }
            read[name] = .some(v)
            return v
        }
    }

    /// Where the value of a process variable read with `value(of:)` stops being UTF-8 (the offset
    /// and value of the first bad byte), or nil when it is UTF-8 (a given map's always is): such a
    /// value is a problem at its use, never repaired into other text.
    func notUTF8(_ name: String) -> (offset: Int, byte: UInt8)? {
        guard anyNotUTF8 else { return nil }
        return notUTF8Values.withLock { $0[name] }
    }
}
