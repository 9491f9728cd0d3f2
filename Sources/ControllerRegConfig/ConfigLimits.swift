/// Bounds that keep hostile or broken input from exhausting the stack, memory or time.
///
/// Each exceeded limit is reported as `ErrorCode.limit` with the limit named in the message.
public struct ConfigLimits: Sendable, Hashable {
    /// Largest input accepted, in bytes.
    public var maxInputBytes: Int = 256 << 20
    /// Deepest nesting of lists and maps.
    public var maxDepth: Int = 128
    /// Most values (nodes) in one document, aliases expanded.
    public var maxNodes: Int = 16 << 20
    /// Longest string or key, in bytes.
    public var maxStringBytes: Int = 16 << 20
    /// Most nodes that YAML aliases may add by expansion (guards against "billion laughs").
    public var maxAliasExpansion: Int = 100_000

    /// The defaults.
    public init() {}

    /// The fix a limit's message ends with: the setting that bounds it (`CR_LIMIT_...`, the C name
    /// of the limit; Swift's `RegistryLimits` and Python's `Limit` name the same settings) and that
    /// a trusted config may raise it.
    package static func fix(_ setting: StaticString) -> String {
        " (\(setting): raise it with cr_registry_set_limit if the config is trusted)"
    }
}
