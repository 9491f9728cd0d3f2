/// Limits for one registry: those of the config loaders plus the registry's own.
public struct RegistryLimits: Sendable, Hashable {
    /// Limits applied while parsing configs.
    public var config = ConfigLimits()
    /// Most entries the registry holds.
    public var maxEntries = 10_000_000
    /// Deepest chain of references one create may build.
    public var maxCreateDepth = 256

    /// The defaults.
    public init() {}
}
