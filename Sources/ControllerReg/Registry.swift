import Synchronization

/// A registry of classes and config entries that builds fully wired objects by name.
///
/// Thread-safe: any number of threads may create while others load configs or register classes.
/// Creates read an immutable snapshot and never block; writers are serialised, and each change
/// is validated whole and published at once (a create sees the old or the new state, never half).
///
/// A child registry (`init(parent:)`) sees its parent's entries and classes; what it defines
/// overrides the parent's for creates made through the child, and a parent's change that would
/// break a child is rejected. A singleton lives in the registry whose entry defines it.
// @unchecked: mutable state is behind `lock` (writers) or in atomics and the snapshot cell (readers).
public final class Registry: @unchecked Sendable {
    /// Limits applied to configs loaded into this registry and to create depth (see `setLimits`).
    public var limits: RegistryLimits { limitStore.withLock { $0 } }
    private let limitStore: Locked<RegistryLimits>
    /// `limits.maxCreateDepth`, readable without a lock on the create path.
    let maxCreateDepth: Atomic<Int>
    /// The registry this one falls back to, if it is a child.
    public let parent: Registry?

    let cell: SnapshotCell
    let lock = WriterLock()
    /// Guarded by `lock` (so not checked for exclusive access at each use: ~76 instructions each,
    /// several an edit).
    @exclusivity(unchecked) var state = WriterState()
    /// Singletons built, in creation order, with their classes and cells (destroyed in reverse by
    /// `close`), and the cells a reload retired (see `Registry+Singletons.swift`).
    let singletons = Locked(SingletonLedger())
    private let closed = Atomic<Bool>(false)
    /// Set when this child was closed because its parent was (see `close`).
    private let closedWithParent = Atomic<Bool>(false)
    /// Set by the first `cr_registry_free` of this registry's handle (`closeHandle`).
    private let handleFreed = Atomic<Bool>(false)

    /// The process-wide default registry (never freed).
    public static let shared = Registry()

    /// Creates an empty registry.
    public init(limits: RegistryLimits = RegistryLimits()) {
        limitStore = Locked(limits)
        maxCreateDepth = Atomic(limits.maxCreateDepth)
        parent = nil
        cell = SnapshotCell(
            Snapshot(entries: EntryTable(), classes: ClassTable(names: [], records: []), templates: []))
    }

    /// Creates a child of `parent`: names and classes fall back to the parent, and what the child
    /// defines overrides the parent's. Freeing the child never disturbs the parent. A child of a
    /// closed parent is born closed: every call on it fails saying why (`cr_registry_new_child`
    /// refuses one).
    public init(parent: Registry, limits: RegistryLimits? = nil) {
        let chosen = limits ?? parent.limits
        limitStore = Locked(chosen)
        maxCreateDepth = Atomic(chosen.maxCreateDepth)
        self.parent = parent
        cell = SnapshotCell(
            Snapshot(entries: EntryTable(), classes: ClassTable(names: [], records: []), templates: []))
        parent.lock.withLock {
            // `close` marks the parent closed before it takes this lock to close its children: a
            // child made after that is not among them, so it closes itself.
            if parent.isClosed {
                closedWithParent.store(true, ordering: .releasing)
                closed.store(true, ordering: .releasing)
                return
            }
            lock.withLock {
                if case .success(let c) = candidate(parentSnapshot: parent.cell.snapshot, own: []) { install(c) }
            }
            parent.state.children.append(WeakRegistry(self))
        }
    }

    deinit { tearDown(deferrable: false, releasingHandle: false) }

    /// Tears the registry down: destroys its singletons in reverse order of creation and lets go of
    /// its classes and entries. Later creates fail. Called by `deinit` and by `cr_registry_free`.
    ///
    /// Safe while creates are running inside the registry (called from one of its create callbacks,
    /// or while another thread creates from it): the registry is emptied at once, but its singletons
    /// are destroyed, and a C handle's memory freed, only when the last create that could reach them
    /// has returned (`ClosedRegistries`).
    ///
    /// Children still open are closed with it (first, as their singletons may hold its own): every
    /// later call on them fails with `.invalidArgument` saying so.
    ///
    /// Does nothing on `Registry.shared`: the whole process (C's `cr_create`, every library in it)
    /// uses that one registry and none could tell it had gone, so it lives as long as the process
    /// (as `cr_registry_free(cr_shared())` is refused from C).
    public func close() { tearDown(deferrable: true, releasingHandle: false) }

    /// `close` for `cr_registry_free`, which then releases the C handle's reference: if a create on
    /// another thread may still be inside the registry, it is kept (not its singletons) until that
    /// create has returned. Returns false, doing nothing, when the handle was already being freed
    /// (a destroy or release callback of this teardown freeing it again).
    package func closeHandle() -> Bool {
        if handleFreed.exchange(true, ordering: .acquiringAndReleasing) { return false }
        tearDown(deferrable: true, releasingHandle: true)
        return true
    }

    /// `close`; `deferrable` is false in `deinit` (no create can be inside a registry no one holds).
    private func tearDown(deferrable: Bool, releasingHandle: Bool) {
        if self === Registry.shared { return }
        if closed.exchange(true, ordering: .acquiringAndReleasing) {
            // In deinit after a close: singletons a create finished building after the close
            // (one whose own callback closed the registry) are destroyed now.
            if !deferrable { Registry.destroySingletons(singletons.withLock { $0.built.map { ($0.object, $0.record) } }) }
            return
        }
        let (epoch, children) = lock.withLock {
            let children = state.children.compactMap(\.registry)
            state = WriterState()
            return (
                cell.publish(Snapshot(entries: EntryTable(), classes: ClassTable(names: [], records: []), templates: [])),
                children
            )
        }
        if let parent {
            parent.lock.withLock { parent.state.children.removeAll { $0.registry == nil || $0.registry === self } }
        }
        // Children still open (the documented order is children first) close with their parent,
        // before its singletons go: theirs may hold the parent's. Their handles stay valid until
        // freed; every later call on them fails saying why (`closedText`).
        for child in children {
            child.closedWithParent.store(true, ordering: .releasing)
            child.tearDown(deferrable: deferrable, releasingHandle: false)
        }
        let built = singletons.withLock { ledger in
            defer { ledger = SingletonLedger() }
            return ledger.built.map { ($0.object, $0.record) }
        }
        if deferrable && Epoch.insideRead {
            // Called from a callback of a create on this thread (of this registry or another):
            // everything waits until the thread's outermost create has returned.
            ClosedRegistries.bury(self, singletons: built, epoch: epoch)
            return
        }
        Registry.destroySingletons(built)
        if releasingHandle && Epoch.oldestActive() <= epoch {
            // Another thread may be inside a create on it (a race the header forbids): the memory
            // stays until that create returns.
            ClosedRegistries.bury(self, singletons: [], epoch: epoch)
        } else if ClosedRegistries.waiting {
            ClosedRegistries.collect()
        }
    }

    /// Destroys `built` singletons (in creation order) in reverse order.
    static func destroySingletons(_ built: [(object: UInt, record: ClassRecord)]) {
        for (object, record) in built.reversed() {
            if let p = UnsafeMutableRawPointer(bitPattern: object) { record.host.destroy?(p, record.host.context) }
        }
    }

    /// Replaces the limits; every limit must be at least 1. Applies to later loads and creates.
    public func setLimits(_ newLimits: RegistryLimits) throws(ConfigError) {
        if isClosed { throw ConfigError(.invalidArgument, "cannot set limits: \(closedText)") }
        let c = newLimits.config
        let values = [
            ("input bytes", c.maxInputBytes), ("nesting depth", c.maxDepth), ("nodes", c.maxNodes),
            ("string bytes", c.maxStringBytes), ("alias expansion", c.maxAliasExpansion),
            ("entries", newLimits.maxEntries), ("create depth", newLimits.maxCreateDepth),
        ]
        if let (name, _) = values.first(where: { $0.1 < 1 }) {
            throw ConfigError(.invalidArgument, "the \(name) limit must be at least 1")
        }
        limitStore.withLock { $0 = newLimits }
        maxCreateDepth.store(newLimits.maxCreateDepth, ordering: .relaxed)
    }

    /// Whether `close` has run (on this registry, or on a parent it was a child of then).
    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Why calls on a closed registry fail, for their messages: freed, or closed with its parent.
    package var closedText: String {
        closedWithParent.load(ordering: .acquiring)
            ? "its parent registry was freed first, which closes its children (free children before their parent)"
            : "the registry has been freed"
    }

    // MARK: Introspection

    /// Every entry (for a child: its parent's and its own), in definition order; none once the
    /// registry is closed (`isClosed`: `cr_registry_entries` then fails saying why).
    public var entries: [EntryDefinition] {
        cell.read { s in (0..<s.entries.count).compactMap { s.entries.definition(at: $0) } }
    }

    /// The entry named `name`, if any.
    public func entry(named name: String) -> EntryDefinition? {
        cell.read { s in
            let i = s.entries.index(of: name)
            return i >= 0 ? s.entries.definition(at: i) : nil
        }
    }
}
