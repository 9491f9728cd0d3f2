/// Building eager singletons.
extension Registry {
    /// Builds every eager singleton (in definition order, each after its dependencies). Stops at
    /// the first failure, which names the entry. Singletons are destroyed in reverse at `close`.
    public func start() throws(ConfigError) {
        if isClosed { throw ConfigError(.invalidArgument, "cannot start: \(closedText)") }
        let maxDepth = maxCreateDepth.load(ordering: .relaxed)
        let failure: ConfigError? = cell.read { s in
            for i in 0..<s.entries.count {
                guard s.entries.isLive(i), s.entries.isEagerSingleton(at: i) else { continue }
                var resolver = Resolver(snapshot: s, registry: self, maxDepth: maxDepth)
                do throws(CreateFailure) {
                    _ = try resolver.createEntry(i, props: nil)
                } catch {
                    let inner = error.error(for: s.entries.name(at: i))
                    return ConfigError(
                        inner.code, "eager singleton '\(s.entries.name(at: i))' failed: \(inner.description)")
                }
            }
            return nil
        }
        if let failure { throw failure }
    }
}
