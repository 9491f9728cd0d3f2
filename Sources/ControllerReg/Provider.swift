#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A factory for one entry, injected instead of an object (`{Provider: Detail}` in a config).
///
/// The receiver may keep it and create the entry at any later time, also after the create that
/// injected it has returned, for as long as its registry lives. A provider does not keep its
/// registry alive (so a singleton holding a provider forms no reference cycle); once the registry
/// has been freed or closed, `create` fails with `.invalidArgument`.
// @unchecked: `registry` is a weak reference (atomic in the runtime); `cEntryName` is immutable memory it owns.
public final class Provider: @unchecked Sendable, Hashable {
    /// The registry the provider creates on, while it lives.
    public private(set) weak var registry: Registry?
    /// The entry it creates.
    public let entryName: String
    /// `entryName` as a NUL-terminated C string, valid as long as the provider.
    package let cEntryName: UnsafePointer<CChar>

    init(registry: Registry, entryName: String) {
        self.registry = registry
        self.entryName = entryName
        cEntryName = UnsafePointer(entryName.withCString { strdup($0) }!)
    }

    /// A provider of the entry named by `length` bytes at `bytes` (the create path): the bytes are
    /// copied once into the C name, with no intermediate Swift array.
    init(registry: Registry, nameBytes bytes: UnsafePointer<UInt8>, length: Int) {
        self.registry = registry
        entryName = String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
        guard let c = malloc(length + 1)?.assumingMemoryBound(to: UInt8.self) else {
            preconditionFailure("controllerreg: out of memory for a provider's name")
        }
        c.initialize(from: bytes, count: length)
        c[length] = 0
        cEntryName = UnsafeRawPointer(c).assumingMemoryBound(to: CChar.self)
    }

    deinit { free(UnsafeMutablePointer(mutating: cEntryName)) }

    /// The registry, or the error for a provider that outlived it.
    private func liveRegistry() throws(ConfigError) -> Registry {
        guard let registry, !registry.isClosed else {
            throw ConfigError(
                .invalidArgument,
                "cannot create '\(entryName)': the provider's registry has been freed (a provider does not keep its registry open: keep the registry while its providers are in use)"
            )
        }
        return registry
    }

    /// Creates the entry, with `props` merged over its dependencies.
    public func create(props: [String: Value] = [:]) throws(ConfigError) -> UnsafeMutableRawPointer {
        try liveRegistry().create(entryName, props: props)
    }

    /// Creates the entry as a Swift object of type `T`.
    public func create<T: AnyObject>(props: [String: Value] = [:], as type: T.Type) throws(ConfigError) -> T {
        try liveRegistry().create(entryName, props: props, as: type)
    }

    /// Creates the entry with props given as a raw map (or nil), borrowed for the call (the C ABI).
    /// Returns the object and whether the registry owns it (a singleton); `destroyer`, when given,
    /// receives how to destroy it.
    package func create(
        rawProps: UnsafePointer<RawValue>?,
        destroyer: UnsafeMutablePointer<Destroyer>? = nil
    ) throws(ConfigError) -> (UnsafeMutableRawPointer, Bool) {
        try liveRegistry().create(cName: cEntryName, props: rawProps, destroyer: destroyer)
    }

    /// Providers are equal when they are the same object.
    public static func == (a: Provider, b: Provider) -> Bool { a === b }
    /// Hashes the provider's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
