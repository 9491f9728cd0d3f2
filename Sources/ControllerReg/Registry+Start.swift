/// Building eager singletons.
extension Registry {
    /// Builds every eager singleton (in definition order, each after its dependencies). Stops at
    /// the first failure, which names the entry. Singletons are destroyed in reverse at `close`.
    public func start() throws(ConfigError) {
        let maxDepth = maxCreateDepth.load(ordering: .relaxed)
        let failure: ConfigError? = cell.read { s in
            for (i, c) in s.entries.compiled.enumerated() {
                guard let c, c.isEagerSingleton else { continue }
                var resolver = Resolver(snapshot: s, registry: self, maxDepth: maxDepth)
                do throws(CreateFailure) {
                    _ = try resolver.createEntry(i, props: nil)
                } catch {
                    let inner = error.error(for: c.name)
                    return ConfigError(inner.code, "start: eager singleton '\(c.name)' failed: \(inner.description)")
                }
            }
            return nil
        }
        if let failure { throw failure }
    }
}
