import CThreadRecord

/// Registries closed while a create could still be running inside them: their singletons are
/// destroyed, and the registry let go, once no create can reach them (the rule that frees replaced
/// snapshots, `EpochReclamation.swift`).
///
/// `Registry.close()` (and so `cr_registry_free`) may be called from a create callback of the same
/// registry, or while another thread is inside a create on it. Destroying the singletons or freeing
/// the registry there would pull them from under that create (a use after free). Instead the
/// registry publishes an empty state at once (later creates fail) and is kept here, retained, with
/// its singletons, under the epoch of that swap. The thread whose outermost create leaves last
/// tears it down (`Epoch.exit` looks at `waiting`, one load of a word only a close writes), as does
/// any later close or change of a registry.
enum ClosedRegistries {
    /// A closed registry, retained, and the singletons it built, in creation order.
    private struct Grave {
        let registry: Unmanaged<Registry>
        var singletons: [(object: UInt, record: ClassRecord)]
        let epoch: UInt64
        /// The reader record of the thread that closed it from inside a create: the singletons
        /// wait for that thread's outermost create alone (a create another thread is running
        /// inside the registry is a race the caller must not make); the memory for every reader.
        let closer: Unmanaged<Epoch.ReaderRecord>?
    }

    private static let graves = Locked<[Grave]>([])

    /// Whether `graves` is not empty (read by every outermost create's exit, written only here;
    /// a C global, `controllerreg_closed_waiting`, so the read is one load).
    @inline(__always)
    static var waiting: Bool { controllerreg_closed_waiting_get() != 0 }

    /// Keeps `registry` until no reader entered at or before `epoch`, and its built `singletons`
    /// until the calling thread (when it is inside a create) has left it.
    static func bury(_ registry: Registry, singletons: [(object: UInt, record: ClassRecord)], epoch: UInt64) {
        let closer = controllerreg_thread_record_get().map { Unmanaged<Epoch.ReaderRecord>.fromOpaque($0) }
        graves.withLock { list in
            list.append(Grave(registry: Unmanaged.passRetained(registry), singletons: singletons, epoch: epoch, closer: closer))
            controllerreg_closed_waiting_set(1)
        }
        // A reader that left between the check in `close` and the store above saw no grave.
        collect()
    }

    /// Tears down what no create can reach any more: the singletons of a registry whose closing
    /// thread has left its creates (destroyed in reverse order of creation), then, once no reader
    /// can be inside it, the registry itself (released). Host callbacks run outside the lock.
    @inline(never)
    static func collect() {
        let oldest = Epoch.oldestActive()
        let (doomed, released): ([[(object: UInt, record: ClassRecord)]], [Unmanaged<Registry>]) = graves.withLock { list in
            var doomed: [[(object: UInt, record: ClassRecord)]] = []
            var released: [Unmanaged<Registry>] = []
            for i in list.indices where !list[i].singletons.isEmpty {
                let closerLeft =
                    list[i].closer.map { $0._withUnsafeGuaranteedRef { $0.active.load(ordering: .acquiring) == 0 } } ?? true
                if closerLeft || list[i].epoch < oldest {
                    doomed.append(list[i].singletons)
                    list[i].singletons = []
                }
            }
            list.removeAll { grave in
                guard grave.singletons.isEmpty && grave.epoch < oldest else { return false }
                released.append(grave.registry)
                return true
            }
            if list.isEmpty { controllerreg_closed_waiting_set(0) }
            return (doomed, released)
        }
        for singletons in doomed { Registry.destroySingletons(singletons) }
        for registry in released { registry.release() }
    }
}
