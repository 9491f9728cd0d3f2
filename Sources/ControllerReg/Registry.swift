import Synchronization

/// A registry of classes and config entries that builds fully wired objects by name.
///
/// Thread-safe: any number of threads may create while others load configs or register classes.
/// Creates read an immutable snapshot and never block; writers are serialised, and each change
/// is validated whole and published at once (a create sees the old or the new state, never half).
public final class Registry: @unchecked Sendable {
    /// Limits applied to configs loaded into this registry and to create depth.
    public let limits: RegistryLimits

    let cell: SnapshotCell
    let writer: Mutex<WriterState>

    /// The process-wide default registry (never freed).
    public static let shared = Registry()

    /// Creates an empty registry.
    public init(limits: RegistryLimits = RegistryLimits()) {
        self.limits = limits
        let entries = EntryTable(compiled: [])
        let classes = ClassTable(names: [], records: [])
        cell = SnapshotCell(Snapshot(entries: entries, classes: classes))
        writer = Mutex(WriterState())
    }

    // MARK: Classes

    /// Registers `host` under `className`. Registering a name twice is an error (`.classExists`);
    /// use `replaceClass` to replace deliberately.
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

    /// Whether a class is registered under `className`.
    public func hasClass(_ className: String) -> Bool {
        cell.read { s in
            s.classes.names.firstIndex(of: className).map { s.classes.records[$0] != nil } ?? false
        }
    }

    private func registerClass(_ className: String, _ host: HostClass, replace: Bool) throws(ConfigError) {
        if className.isEmpty || className.utf8.contains(0) {
            host.release?()
            throw ConfigError(.invalidArgument, "a class name must be non-empty and contain no NUL byte")
        }
        let record = ClassRecord(name: className, host: host)
        let failure: ConfigError? = writer.withLock { state in
            let slot = state.classSlot(for: className)
            if !replace, state.classRecords[slot] != nil {
                return ConfigError(.classExists, "class '\(className)' is already registered (use a replace call to replace it)")
            }
            state.classRecords[slot] = record
            publish(&state, entries: cell.snapshot.entries)
            return nil
        }
        if let failure { throw failure }
    }

    // MARK: Loading

    /// Loads the config file at `path` (format from the extension, else sniffed, for `.auto`).
    /// Every problem is reported; on failure nothing changes.
    public func load(path: String, format: ConfigFormat = .auto) throws(ConfigError) {
        let doc = try ConfigLoader.load(path: path, format: format, limits: limits.config)
        try apply([doc])
    }

    /// Loads config text. `file` names it in error locations.
    public func load(text: String, format: ConfigFormat = .auto, file: String = "<string>") throws(ConfigError) {
        let doc = try ConfigLoader.parse(text, format: format, file: file, limits: limits.config)
        try apply([doc])
    }

    /// Loads config bytes. `file` names them in error locations.
    public func load(bytes: UnsafeRawBufferPointer, format: ConfigFormat = .auto, file: String = "<string>") throws(ConfigError) {
        let doc = try ConfigLoader.parse(bytes, format: format, file: file, limits: limits.config)
        try apply([doc])
    }

    /// Loads several files as one transaction: they may refer to each other, and either all of
    /// them apply or (on any problem, all reported) none does.
    public func load(paths: [String], format: ConfigFormat = .auto) throws(ConfigError) {
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
        try apply(docs)
    }

    /// Adds entries defined in code, validated like a file.
    public func add(_ definitions: [EntryDefinition]) throws(ConfigError) {
        try commit(definitions)
    }

    private func apply(_ docs: [ConfigDocument]) throws(ConfigError) {
        var definitions: [EntryDefinition] = []
        var diagnostics: [Diagnostic] = []
        var invalidNames: [String] = []
        for doc in docs {
            let decoded = EntryDecoder.decode(doc)
            definitions += decoded.entries
            diagnostics += decoded.diagnostics
            invalidNames += decoded.invalidNames
        }
        try commit(definitions, invalidNames: Set(invalidNames), decodeProblems: diagnostics)
    }

    /// Validates and publishes `definitions`. Problems found earlier (`decodeProblems`) are
    /// reported together with the graph's; `invalidNames` are entries that failed to decode.
    private func commit(_ definitions: [EntryDefinition], invalidNames: Set<String> = [],
                        decodeProblems: [Diagnostic] = []) throws(ConfigError) {
        let maxEntries = limits.maxEntries
        let failure: ConfigError? = writer.withLock { state in
            let base = cell.snapshot.entries
            if base.count + definitions.count > maxEntries {
                return ConfigError(.limit, "the registry would hold \(base.count + definitions.count) entries, over the limit of \(maxEntries)")
            }
            var tx = Transaction(base: base, classSlotByName: state.classSlotByName, classNames: state.classNames)
            switch tx.add(definitions, invalidNames: invalidNames, decodeProblems: decodeProblems) {
            case .failure(let error):
                return error
            case .success(let compiled):
                state.classSlotByName = tx.classSlotByName
                state.classNames = tx.classNames
                while state.classRecords.count < state.classNames.count { state.classRecords.append(nil) }
                publish(&state, entries: EntryTable(compiled: compiled))
                return nil
            }
        }
        if let failure { throw failure }
    }

    /// Publishes a snapshot of `entries` with the current classes. Under the writer lock.
    private func publish(_ state: inout WriterState, entries: EntryTable) {
        let classes = ClassTable(names: state.classNames, records: state.classRecords)
        cell.publish(Snapshot(entries: entries, classes: classes))
    }

    // MARK: Introspection

    /// Every entry, in definition order.
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

/// What writers change under the lock (the published snapshot is derived from it).
struct WriterState {
    var classSlotByName: [String: Int] = [:]
    var classNames: [String] = []
    var classRecords: [ClassRecord?] = []

    /// The slot for a class name, allocating one for a name not seen before.
    mutating func classSlot(for name: String) -> Int {
        if let s = classSlotByName[name] { return s }
        let s = classNames.count
        classNames.append(name)
        classRecords.append(nil)
        classSlotByName[name] = s
        return s
    }
}
