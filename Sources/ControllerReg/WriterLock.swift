/// A registry's writer lock. Host callbacks that would otherwise run while a thread holds it (a
/// class's `release`, when a change drops the last reference to a replaced class) are queued with
/// `HostCallbacks.run` and run when the thread lets go of its last writer lock, so a callback may
/// call back into any registry (register a class, load a config) without deadlocking.
final class WriterLock: @unchecked Sendable {
    private let mutex = PlainMutex()

    func lock() {
        HostCallbacks.state.value.writerLocks += 1
        mutex.lock()
    }

    func unlock() {
        mutex.unlock()
        let state = HostCallbacks.state.value
        state.writerLocks -= 1
        if state.writerLocks == 0 { state.drain() }
    }

    /// Runs `body` holding the lock.
    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// Runs host callbacks outside every writer lock the calling thread holds.
enum HostCallbacks {
    /// One thread's writer-lock count and the callbacks waiting for it to reach zero (used by that
    /// thread alone: not checked for exclusive access at each use, ~76 instructions a lock,
    /// unlock and drain).
    final class State {
        @exclusivity(unchecked) var writerLocks = 0
        @exclusivity(unchecked) var pending: [() -> Void] = []

        /// Runs the queued callbacks (and any they queue) while no writer lock is held.
        func drain() {
            while writerLocks == 0, !pending.isEmpty {
                let callback = pending.removeFirst()
                callback()
            }
        }
    }

    static let state = ThreadLocal { State() }

    /// Runs `callback` now, or (when this thread holds a writer lock) once it holds none.
    static func run(_ callback: @escaping () -> Void) {
        if let s = state.existing, s.writerLocks > 0 {
            s.pending.append(callback)
        } else {
            callback()
        }
    }
}
