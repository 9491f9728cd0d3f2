import ControllerReg

/// A config as the drawing tools see it: every entry that decodes, even when the whole config is
/// invalid, with the problems the library reported loading it.
public struct LoadedConfig: Sendable {
    /// Entries in definition order (for a name defined twice, its first definition).
    public var entries: [EntryDefinition]
    /// Names of entries that did not decode (they exist, but cannot be drawn in full).
    public var invalidNames: [String]
    /// Every problem of the load, as the library reported them (empty for a valid config).
    public var problems: [Diagnostic]

    /// Loads `paths` as one transaction into a fresh registry, as an application would, resolving
    /// environment values against `environment` (nil: the process environment). When that fails,
    /// every file that parses is decoded on its own so its entries can still be shown.
    public static func load(paths: [String], environment: [String: String]? = nil) -> LoadedConfig {
        let registry = Registry()
        do throws(ConfigError) {
            try registry.load(paths: paths, environment: environment)
            return LoadedConfig(entries: registry.entries, invalidNames: [], problems: [])
        } catch {
            var entries: [EntryDefinition] = []
            var invalid: [String] = []
            var seen = Set<String>()
            for path in paths {
                guard let doc = try? ConfigLoader.load(path: path) else { continue }
                let decoded = EntryDecoder.decode(doc)
                for e in decoded.entries where seen.insert(e.name).inserted { entries.append(e) }
                for n in decoded.invalidNames where seen.insert(n).inserted { invalid.append(n) }
            }
            return LoadedConfig(entries: entries, invalidNames: invalid, problems: error.diagnostics)
        }
    }
}
