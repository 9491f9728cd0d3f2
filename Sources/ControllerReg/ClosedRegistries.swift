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
        let singletons: [(object: UInt, record: ClassRecord)]
        let epoch: UInt64
    }

    private static let graves = Locked<[Grave]>([])
    /// Whether `graves` is not empty (read by every outermost create's exit, written only here;
    /// a C global, `controllerreg_closed_waiting`, so the read is one load).
    @inline(__always)
    static var waiting: Bool { controllerreg_closed_waiting_get() != 0 }

    /// Keeps `registry` and its built `singletons` until no reader entered at or before `epoch`.
    static func bury(_ registry: Registry, singletons: [(object: UInt, record: ClassRecord)], epoch: UInt64) {
        graves.withLock { list in
            list.append(Grave(registry: Unmanaged.passRetained(registry), singletons: singletons, epoch: epoch))
            controllerreg_closed_waiting_set(1)
        }
        // A reader that left between the check in `close` and the store above saw no grave.
        collect()
    }

    /// Tears down every buried registry no create can reach any more: its singletons destroyed in
    /// reverse order of creation, then the registry released. Host callbacks run outside the lock.
    @inline(never)
    static func collect() {
        let oldest = Epoch.oldestActive()
        let ready: [Grave] = graves.withLock { list in
            var taken: [Grave] = []
            list.removeAll { grave in
                guard grave.epoch < oldest else { return false }
                taken.append(grave)
                return true
            }
            if list.isEmpty { controllerreg_closed_waiting_set(0) }
            return taken
        }
        for grave in ready {
            Registry.destroySingletons(grave.singletons)
            grave.registry.release()
        }
    }
}
