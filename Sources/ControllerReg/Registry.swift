import Synchronization

/// Whether a load may redefine names that already exist.
public enum LoadMode: Sendable, Hashable {
    /// Redefining an existing name is an error naming both places (the default).
    case add
    /// A name that exists is replaced by the new definition; references to it reach the new one.
    case override
}

/// A registry of classes and config entries that builds fully wired objects by name.
///
/// Thread-safe: any number of threads may create while others load configs or register classes.
/// Creates read an immutable snapshot and never block; writers are serialised, and each change
/// is validated whole and published at once (a create sees the old or the new state, never half).
///
/// A child registry (`init(parent:)`) sees its parent's entries and classes; what it defines
/// overrides the parent's for creates made through the child, and a parent's change that would
/// break a child is rejected. A singleton lives in the registry whose entry defines it.
public final class Registry: @unchecked Sendable {
    /// Limits applied to configs loaded into this registry and to create depth (see `setLimits`).
    public var limits: RegistryLimits { limitStore.withLock { $0 } }
    private let limitStore: Locked<RegistryLimits>
    /// `limits.maxCreateDepth`, readable without a lock on the create path.
    let maxCreateDepth: Atomic<Int>
    /// The registry this one falls back to, if it is a child.
    public let parent: Registry?

    let cell: SnapshotCell
    let lock = PlainMutex()
    /// Guarded by `lock`.
    var state = WriterState()
    /// Singletons built, in creation order, with their classes (destroyed in reverse by `close`).
    private let singletons = Locked<[(object: UInt, record: ClassRecord)]>([])
    private let closed = Atomic<Bool>(false)

    /// The process-wide default registry (never freed).
    public static let shared = Registry()

    /// Creates an empty registry.
    public init(limits: RegistryLimits = RegistryLimits()) {
        limitStore = Locked(limits)
        maxCreateDepth = Atomic(limits.maxCreateDepth)
        parent = nil
        cell = SnapshotCell(Snapshot(entries: EntryTable(compiled: []), classes: ClassTable(names: [], records: []), templates: []))
    }

    /// Creates a child of `parent`: names and classes fall back to the parent, and what the child
    /// defines overrides the parent's. Freeing the child never disturbs the parent.
    public init(parent: Registry, limits: RegistryLimits? = nil) {
        let chosen = limits ?? parent.limits
        limitStore = Locked(chosen)
        maxCreateDepth = Atomic(chosen.maxCreateDepth)
        self.parent = parent
        cell = SnapshotCell(Snapshot(entries: EntryTable(compiled: []), classes: ClassTable(names: [], records: []), templates: []))
        parent.lock.withLock {
            lock.withLock {
                if case .success(let c) = candidate(parentSnapshot: parent.cell.snapshot, own: []) { install(c) }
            }
            parent.state.children.append(WeakRegistry(self))
        }
    }

    deinit { close() }

    /// Tears the registry down: destroys its singletons in reverse order of creation and lets go of
    /// its classes and entries. Later creates fail. Called by `deinit` and by `cr_registry_free`.
    ///
    /// Does nothing on `Registry.shared`: the whole process (C's `cr_create`, every library in it)
    /// uses that one registry and none could tell it had gone, so it lives as long as the process
    /// (as `cr_registry_free(cr_shared())` is refused from C).
    public func close() {
        if self === Registry.shared { return }
        if closed.exchange(true, ordering: .acquiringAndReleasing) { return }
        lock.withLock {
            state = WriterState()
            cell.publish(Snapshot(entries: EntryTable(compiled: []), classes: ClassTable(names: [], records: []), templates: []))
        }
        if let parent {
            parent.lock.withLock { parent.state.children.removeAll { $0.registry == nil || $0.registry === self } }
        }
        let built = singletons.withLock { list in
            defer { list.removeAll() }
            return list
        }
        for (object, record) in built.reversed() {
            if let p = UnsafeMutableRawPointer(bitPattern: object) { record.host.destroy?(p, record.host.context) }
        }
    }

    /// Replaces the limits; every limit must be at least 1. Applies to later loads and creates.
    public func setLimits(_ newLimits: RegistryLimits) throws(ConfigError) {
        let c = newLimits.config
        let values = [("input bytes", c.maxInputBytes), ("nesting depth", c.maxDepth), ("nodes", c.maxNodes),
                      ("string bytes", c.maxStringBytes), ("alias expansion", c.maxAliasExpansion),
                      ("entries", newLimits.maxEntries), ("create depth", newLimits.maxCreateDepth)]
        if let (name, _) = values.first(where: { $0.1 < 1 }) {
            throw ConfigError(.invalidArgument, "the \(name) limit must be at least 1")
        }
        limitStore.withLock { $0 = newLimits }
        maxCreateDepth.store(newLimits.maxCreateDepth, ordering: .relaxed)
    }

    /// Whether `close` has run.
    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Records a singleton this registry now owns.
    func adoptSingleton(_ object: UnsafeMutableRawPointer, _ record: ClassRecord) {
        singletons.withLock { $0.append((UInt(bitPattern: object), record)) }
    }

    // MARK: Classes

    /// Registers `host` under `className`. Registering a name twice is an error (`.classExists`);
    /// use `replaceClass` to replace deliberately. On failure `host.release` is called.
    public func register(className: String, _ host: HostClass) throws(ConfigError) {
        try registerClass(className, host, replace: false)
    }

    /// Registers a class whose objects are Swift objects built by `create`.
    public func register(className: String, create: @escaping @Sendable (_ args: ValueRef) throws -> AnyObject) throws(ConfigError) {
        try register(className: className, .swift(create: create))
    }

    /// Registers `host` under `className`, replacing a class already registered under that name.
    public func replaceClass(_ className: String, _ host: HostClass) throws(ConfigError) {
        try registerClass(className, host, replace: true)
    }

    /// Whether a class is registered under `className` (here or in a parent).
    public func hasClass(_ className: String) -> Bool {
        cell.read { s in s.classes.lookup.find(className) >= 0 }
    }

    private func registerClass(_ className: String, _ host: HostClass, replace: Bool) throws(ConfigError) {
        if className.isEmpty || className.utf8.contains(0) {
            host.release?()
            throw ConfigError(.invalidArgument, "a class name must be non-empty and contain no NUL byte")
        }
        let record = ClassRecord(name: className, host: host)
        try change { (c) throws(ConfigError) in
            let slot = c.classSlot(for: className)
            if !replace, c.ownRecords[slot] != nil {
                throw ConfigError(.classExists, "class '\(className)' is already registered (use a replace call to replace it)")
            }
            c.ownRecords[slot] = record
        }
    }

    /// Adds a class-name template such as `"{name}ViewController"`, tried (in the order added) for
    /// a name that is neither an entry nor a registered class.
    public func addNameTemplate(_ template: String) throws(ConfigError) {
        guard template.contains("{name}"), !template.utf8.contains(0) else {
            throw ConfigError(.invalidArgument, "a name template must contain '{name}', e.g. '{name}ViewController'; got '\(template)'")
        }
        try change { (c) throws(ConfigError) in c.templates.append(template) }
    }

    // MARK: Loading and changing entries

    /// Loads the config file at `path` (format from the extension, else sniffed, for `.auto`).
    /// Every problem is reported; on failure nothing changes.
    public func load(path: String, format: ConfigFormat = .auto, mode: LoadMode = .add) throws(ConfigError) {
        let doc = try ConfigLoader.load(path: path, format: format, limits: limits.config)
        try apply([doc], mode: mode)
    }

    /// Loads config text. `file` names it in error locations.
    public func load(text: String, format: ConfigFormat = .auto, file: String = "<string>", mode: LoadMode = .add) throws(ConfigError) {
        let doc = try ConfigLoader.parse(text, format: format, file: file, limits: limits.config)
        try apply([doc], mode: mode)
    }

    /// Loads config bytes. `file` names them in error locations.
    public func load(bytes: UnsafeRawBufferPointer, format: ConfigFormat = .auto, file: String = "<string>",
                     mode: LoadMode = .add) throws(ConfigError) {
        let doc = try ConfigLoader.parse(bytes, format: format, file: file, limits: limits.config)
        try apply([doc], mode: mode)
    }

    /// Loads several files as one transaction: they may refer to each other, and either all of
    /// them apply or (on any problem, all reported) none does.
    public func load(paths: [String], format: ConfigFormat = .auto, mode: LoadMode = .add) throws(ConfigError) {
        var docs: [ConfigDocument] = []
        var diagnostics: [Diagnostic] = []
        for path in paths {
            do throws(ConfigError) {
                docs.append(try ConfigLoader.load(path: path, format: format, limits: limits.config))
            } catch {
                diagnostics += error.diagnostics
            }
        }
        if !diagnostics.isEmpty { throw ConfigError(diagnostics) }
        try apply(docs, mode: mode)
    }

    /// Adds entries defined in code, validated like a file.
    public func add(_ definitions: [EntryDefinition], mode: LoadMode = .add) throws(ConfigError) {
        try commit(definitions, mode: mode)
    }

    /// Removes entries. Fails (changing nothing) if another entry refers to one of them, or if
    /// one does not exist (or, in a child, is defined by the parent).
    public func remove(entriesNamed names: [String]) throws(ConfigError) {
        try commit([], removals: names)
    }

    private func apply(_ docs: [ConfigDocument], mode: LoadMode) throws(ConfigError) {
        var definitions: [EntryDefinition] = []
        var diagnostics: [Diagnostic] = []
        var invalidNames: [String] = []
        for doc in docs {
            let decoded = EntryDecoder.decode(doc)
            definitions += decoded.entries
            diagnostics += decoded.diagnostics
            invalidNames += decoded.invalidNames
        }
        try commit(definitions, mode: mode, invalidNames: Set(invalidNames), decodeProblems: diagnostics)
    }

    /// Validates and publishes a change of entries. Problems found earlier (`decodeProblems`) are
    /// reported together with the graph's; `invalidNames` are entries that failed to decode.
    private func commit(_ definitions: [EntryDefinition], mode: LoadMode = .add, removals: [String] = [],
                        invalidNames: Set<String> = [], decodeProblems: [Diagnostic] = []) throws(ConfigError) {
        // Definitions from code were not through the decoder's ceiling (those from configs were).
        for d in definitions {
            for dep in d.dependencies where dep.value.isContainer
                && dep.value.nestingDepth(stoppingAfter: DependencyValue.maxNesting) > DependencyValue.maxNesting {
                throw ConfigError(.limit, "entry '\(d.name)', key '\(dep.key)': the value nests deeper than \(DependencyValue.maxNesting) levels",
                                  at: dep.location ?? d.location)
            }
        }
        try change { (c) throws(ConfigError) in
            let current = c.entries.count - c.entries.compiled.reduce(0) { $0 + ($1 == nil ? 1 : 0) }
            if current + definitions.count > limits.maxEntries {
                // Only names not defined yet are new: an override replaces, a name twice counts once.
                var seen = Set<String>()
                let added = definitions.reduce(0) { n, d in c.entries.index(of: d.name) < 0 && seen.insert(d.name).inserted ? n + 1 : n }
                if current + added > limits.maxEntries {
                    throw ConfigError(.limit, "the registry would hold more than its limit of \(limits.maxEntries) entries")
                }
            }
            if let parent = c.parentSnapshot {
                // A child: its own definitions change, then everything is compiled afresh over the parent's.
                var own = c.own
                var problems = decodeProblems
                var position: [String: Int] = [:]
                for (i, d) in own.enumerated() { position[d.name] = i }
                for name in removals {
                    if let i = position[name] {
                        own[i].name = ""
                    } else if parent.entries.index(of: name) >= 0 {
                        problems.append(Diagnostic(.invalidArgument, "cannot remove '\(name)': it is defined by the parent registry (a child can override it, not remove it)"))
                    } else {
                        problems.append(Diagnostic(.notFound, "cannot remove '\(name)': no entry by that name"))
                    }
                }
                own.removeAll { $0.name.isEmpty }
                position = [:]
                for (i, d) in own.enumerated() { position[d.name] = i }
                var seen = Set<String>()
                for d in definitions {
                    if !seen.insert(d.name).inserted {
                        problems.append(Diagnostic(.duplicate, "entry '\(d.name)' is defined twice", at: d.location))
                    } else if let i = position[d.name] {
                        if mode == .add {
                            let prior = own[i].location
                            problems.append(Diagnostic(.duplicate, "entry '\(d.name)' is already defined\(prior.map { " at \($0)" } ?? " (added from code)")",
                                                       at: d.location))
                        } else {
                            own[i] = d
                        }
                    } else {
                        position[d.name] = own.count
                        own.append(d)
                    }
                }
                try c.merge(parent: parent, own: own, invalidNames: invalidNames, problems: problems)
            } else {
                var tx = Transaction(base: c.entries, classSlots: c.classSlots)
                switch tx.apply(definitions, mode: mode == .add ? .add : .override, removals: removals,
                                invalidNames: invalidNames, decodeProblems: decodeProblems) {
                case .failure(let error):
                    throw error
                case .success(let compiled):
                    c.classSlots = tx.classSlots
                    c.padRecords()
                    c.entries = EntryTable(compiled: compiled)
                }
            }
        }
    }

    // MARK: Starting

    /// Builds every eager singleton (in definition order, each after its dependencies). Stops at
    /// the first failure, which names the entry. Singletons are destroyed in reverse at `close`.
    public func start() throws(ConfigError) {
        let maxDepth = maxCreateDepth.load(ordering: .relaxed)
        let failure: ConfigError? = cell.read { s in
            for (i, c) in s.entries.compiled.enumerated() {
                guard let c, c.definition.eager, c.definition.lifestyle == .singleton else { continue }
                var resolver = Resolver(snapshot: s, registry: self, maxDepth: maxDepth)
                do throws(CreateFailure) {
                    _ = try resolver.createEntry(i, props: nil)
                } catch {
                    let inner = error.error(for: c.definition.name)
                    return ConfigError(inner.code, "start: eager singleton '\(c.definition.name)' failed: \(inner.description)")
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    // MARK: Introspection

    /// Every entry (for a child: its parent's and its own), in definition order.
    public var entries: [EntryDefinition] {
        cell.read { s in s.entries.compiled.compactMap { $0?.definition } }
    }

    /// The entry named `name`, if any.
    public func entry(named name: String) -> EntryDefinition? {
        cell.read { s in
            let i = s.entries.index(of: name)
            return i >= 0 ? s.entries.compiled[i]?.definition : nil
        }
    }

    // MARK: Publishing

    /// Runs `body` on a candidate state under the writer lock, validates every child against it,
    /// and publishes it (and the children's new states) only if all of that succeeds.
    private func change(_ body: (inout Candidate) throws(ConfigError) -> Void) throws(ConfigError) {
        if isClosed { throw ConfigError(.invalidArgument, "the registry has been freed") }
        lock.lock()
        defer { lock.unlock() }
        var c = Candidate(registry: self, state: state, current: cell.snapshot)
        try body(&c)
        let snapshot = c.snapshot()
        var locked: [Candidate] = []
        var problems: [Diagnostic] = []
        Registry.prepareChildren(of: self, parentSnapshot: snapshot, into: &locked, problems: &problems)
        defer { for child in locked { child.registry.lock.unlock() } }
        if !problems.isEmpty { throw ConfigError(problems) }
        install(c, snapshot: snapshot)
        for child in locked { child.registry.install(child, snapshot: child.builtSnapshot!) }
    }

    /// Locks every descendant and computes its state over `parentSnapshot`, collecting problems.
    private static func prepareChildren(of registry: Registry, parentSnapshot: Snapshot, into locked: inout [Candidate],
                                        problems: inout [Diagnostic]) {
        for weak in registry.state.children {
            guard let child = weak.registry, !child.isClosed else { continue }
            child.lock.lock()
            if child.isClosed {
                // Closed while we waited: it must not get entries back.
                child.lock.unlock()
                continue
            }
            switch child.candidate(parentSnapshot: parentSnapshot, own: child.state.own) {
            case .failure(let error):
                locked.append(Candidate(registry: child, state: child.state, current: child.cell.snapshot))
                problems += error.diagnostics.map {
                    Diagnostic($0.code, "the change would break a child registry: \($0.message)", at: $0.location)
                }
            case .success(let c):
                locked.append(c)
                prepareChildren(of: child, parentSnapshot: c.builtSnapshot!, into: &locked, problems: &problems)
            }
        }
    }

    /// This child's state recompiled over `parentSnapshot`. Call under this registry's lock.
    private func candidate(parentSnapshot: Snapshot, own: [EntryDefinition]) -> Result<Candidate, ConfigError> {
        var c = Candidate(registry: self, state: state, current: cell.snapshot)
        c.parentSnapshot = parentSnapshot
        do throws(ConfigError) {
            try c.merge(parent: parentSnapshot, own: own, invalidNames: [], problems: [])
        } catch {
            return .failure(error)
        }
        c.builtSnapshot = c.snapshot()
        return .success(c)
    }

    private func install(_ c: Candidate, snapshot: Snapshot? = nil) {
        state.own = c.own
        state.classSlots = c.classSlots
        state.classRecords = c.ownRecords
        state.templates = c.templates
        cell.publish(snapshot ?? c.snapshot())
    }
}

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

/// A weak reference to a child registry.
struct WeakRegistry {
    weak var registry: Registry?
    init(_ r: Registry) { registry = r }
}

/// What writers change under the lock (the published snapshot is derived from it).
struct WriterState {
    var classSlots = ClassSlots()
    /// This registry's own classes by slot (a child's parent classes are not here).
    var classRecords: [ClassRecord?] = []
    var templates: [String] = []
    /// A child's own definitions (a root registry keeps its entries in the snapshot).
    var own: [EntryDefinition] = []
    var children: [WeakRegistry] = []
}

/// A proposed next state of one registry, built under its lock.
struct Candidate {
    let registry: Registry
    var classSlots: ClassSlots
    /// This registry's own class records by slot (padded to every slot by `padRecords`).
    var ownRecords: [ClassRecord?]
    var templates: [String]
    var own: [EntryDefinition]
    var entries: EntryTable
    /// For a child: the parent's (candidate) snapshot its classes and entries fall back to.
    var parentSnapshot: Snapshot?
    var builtSnapshot: Snapshot?

    init(registry: Registry, state: WriterState, current: Snapshot) {
        self.registry = registry
        classSlots = state.classSlots
        ownRecords = state.classRecords
        templates = state.templates
        own = state.own
        entries = current.entries
        parentSnapshot = registry.parent?.cell.snapshot
    }

    /// The slot for a class name, allocating one for a name not seen before.
    mutating func classSlot(for name: String) -> Int {
        defer { padRecords() }
        return classSlots.slot(for: name)
    }

    /// Gives every class slot a (possibly empty) record.
    mutating func padRecords() {
        while ownRecords.count < classSlots.count { ownRecords.append(nil) }
    }

    /// Compiles a child's entries: the parent's, overridden and extended by `own`.
    mutating func merge(parent: Snapshot, own: [EntryDefinition], invalidNames: Set<String>, problems: [Diagnostic]) throws(ConfigError) {
        var definitions: [EntryDefinition] = []
        var position: [String: Int] = [:]
        var inherited: [String: CompiledEntry] = [:]
        for c in parent.entries.compiled {
            guard let c else { continue }
            position[c.definition.name] = definitions.count
            definitions.append(c.definition)
            inherited[c.definition.name] = c
        }
        for d in own {
            if let i = position[d.name] {
                definitions[i] = d
                inherited[d.name] = nil
            } else {
                position[d.name] = definitions.count
                definitions.append(d)
            }
        }
        // Parent classes are reachable by name in the child.
        for (i, name) in parent.classes.names.enumerated() where parent.classes.records[i] != nil { _ = classSlot(for: name) }
        var tx = Transaction(base: EntryTable(compiled: []), classSlots: classSlots)
        switch tx.apply(definitions, invalidNames: invalidNames, decodeProblems: problems, inherited: inherited,
                        owner: registry.parent.map { Unmanaged.passUnretained($0) }) {
        case .failure(let error):
            throw error
        case .success(let compiled):
            classSlots = tx.classSlots
            padRecords()
            entries = EntryTable(compiled: compiled)
            self.own = own
            parentSnapshot = parent
        }
    }

    /// The snapshot this candidate describes (classes fall back to the parent's by name).
    func snapshot() -> Snapshot {
        var records = ownRecords
        while records.count < classSlots.count { records.append(nil) }
        if let parent = parentSnapshot {
            for (slot, name) in classSlots.names.enumerated() where records[slot] == nil {
                let p = parent.classes.lookup.find(name)
                if p >= 0 { records[slot] = parent.classes.records[p] }
            }
        }
        let templates = (parentSnapshot?.templates ?? []) + self.templates
        return Snapshot(entries: entries, classes: ClassTable(names: classSlots.names, records: records), templates: templates)
    }
}
