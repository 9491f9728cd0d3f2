import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Holds a singleton entry's one object: built exactly once even when threads race for it.
///
/// Readers take the published object with one atomic load. The first builder marks the cell as
/// its own; others wait for it. A thread never waits where waiting would close a loop (it asks
/// for a singleton that another thread builds while that thread, directly or through others,
/// waits for a singleton this thread builds): it gets a `.cycle` failure naming the entries
/// instead, as CPython's import lock does with its "blocked on" graph.
// @unchecked: the object and builder are atomics; the builder changes under `WaitGraph`'s lock.
final class SingletonCell: @unchecked Sendable {
    private let object = Atomic<UInt>(0)
    /// The built object's tag (`RawValue.swiftObject` when its class makes Swift objects): written
    /// before the object is published, read after it is seen (an atomic, relaxed: no exclusivity
    /// check on the read; the object's releasing store orders it).
    private let objectTag = Atomic<UInt16>(0)
    /// The thread building the singleton (`pthread_self`), 0 when none. Changed under `WaitGraph`'s lock.
    private let builder = Atomic<UInt>(0)
    /// The entry's name, for cycle messages.
    let name: String

    init(name: String) { self.name = name }

    /// The object, if built.
    @inline(__always) var value: UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: object.load(ordering: .acquiring))
    }

    /// The object with its tag (`RawValue.swiftObject` for a Swift object, else 0), if built.
    @inline(__always) var tagged: (UnsafeMutableRawPointer, UInt16)? {
        guard let v = value else { return nil }
        return (v, objectTag.load(ordering: .relaxed))
    }

    /// Whether the calling thread is building this singleton right now.
    var isBeingBuiltByThisThread: Bool {
        builder.load(ordering: .relaxed) == UInt(pthread_self())
    }

    /// Returns the object with its tag, building them with `build` if nobody has yet (exactly
    /// once). Waits while another thread builds it, unless that wait would deadlock.
    func obtain(
        _ build: () throws(CreateFailure) -> (UnsafeMutableRawPointer, UInt16)
    ) throws(CreateFailure) -> (UnsafeMutableRawPointer, UInt16) {
        if let v = tagged { return v }
        let me = UInt(pthread_self())
        WaitGraph.lock()
        while true {
            if let v = tagged {
                WaitGraph.unlock()
                return v
            }
            if builder.load(ordering: .relaxed) == 0 { break }
            if let loop = WaitGraph.loop(waitingFor: self, thread: me) {
                WaitGraph.unlock()
                throw CreateFailure(
                    code: .cycle,
                    message: "singletons wait on each other across threads (\(loop.joined(separator: " -> "))): "
                        + "this thread builds '\(loop[0])' and asks for '\(name)', which another thread builds while it waits, directly or through other threads, for '\(loop[0])'; "
                        + "break the loop with a provider ({Provider: \(name)}) or by building one of them first",
                    path: [name])
            }
            WaitGraph.waiting[me] = self
            WaitGraph.wait()
            WaitGraph.waiting[me] = nil
        }
        builder.store(me, ordering: .relaxed)
        WaitGraph.unlock()
        let built: Result<(UnsafeMutableRawPointer, UInt16), CreateFailure>
        do throws(CreateFailure) { built = .success(try build()) } catch { built = .failure(error) }
        WaitGraph.lock()
        if case .success(let (p, tag)) = built {
            objectTag.store(tag, ordering: .relaxed)
            object.store(UInt(bitPattern: p), ordering: .releasing)
        }
        builder.store(0, ordering: .relaxed)
        WaitGraph.wakeAll()
        WaitGraph.unlock()
        return try built.get()
    }

    /// The thread building the singleton, 0 when none (read under `WaitGraph`'s lock).
    fileprivate var builderThread: UInt { builder.load(ordering: .relaxed) }
}

/// Which thread waits for which singleton cell: one process-wide lock and condition, used only on
/// the slow path (a singleton not built yet).
private enum WaitGraph {
    nonisolated(unsafe) static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(m, nil)
        return m
    }()
    nonisolated(unsafe) static let condition: UnsafeMutablePointer<pthread_cond_t> = {
        let c = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        pthread_cond_init(c, nil)
        return c
    }()
    /// Thread (`pthread_self`) to the cell it waits for. Guarded by `mutex`.
    nonisolated(unsafe) static var waiting: [UInt: SingletonCell] = [:]

    static func lock() { pthread_mutex_lock(mutex) }
    static func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits (releasing the lock) until some cell finishes a build.
    static func wait() { pthread_cond_wait(condition, mutex) }
    static func wakeAll() { pthread_cond_broadcast(condition) }

    /// If `thread` waiting for `cell` would close a loop of waits, the entries on it, starting and
    /// ending with the one `thread` builds (e.g. ["A", "B", "A"]); nil when the wait is safe.
    static func loop(waitingFor cell: SingletonCell, thread: UInt) -> [String]? {
        var names = [cell.name]
        var owner = cell.builderThread
        // Each thread waits for at most one cell and no loop exists yet, so the walk ends.
        for _ in 0...waiting.count {
            if owner == thread { return [names.last!] + names }
            guard let next = waiting[owner] else { return nil }
            names.append(next.name)
            owner = next.builderThread
        }
        return nil
    }
}
