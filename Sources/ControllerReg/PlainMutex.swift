#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain pthread mutex, lockable in non-lexical patterns (a parent registry holds its children's
/// locks while it validates and publishes a change for all of them; a singleton cell holds its
/// lock while the singleton is built).
// @unchecked: the pthread mutex is the synchronisation; its memory is fixed for the object's life.
final class PlainMutex: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        let rc = pthread_mutex_init(mutex, nil)
        precondition(rc == 0, "controllerreg: pthread_mutex_init failed (\(rc))")
    }

    deinit {
        let rc = pthread_mutex_destroy(mutex)
        precondition(rc == 0, "controllerreg: pthread_mutex_destroy of a mutex still locked or in use (\(rc))")
        mutex.deallocate()
    }

    /// A failing lock or unlock (EINVAL, EDEADLK, EPERM) is a programming error: it stops the process.
    func lock() {
        let rc = pthread_mutex_lock(mutex)
        precondition(rc == 0, "controllerreg: pthread_mutex_lock failed (\(rc))")
    }

    func unlock() {
        let rc = pthread_mutex_unlock(mutex)
        precondition(rc == 0, "controllerreg: pthread_mutex_unlock failed (\(rc)): not locked by this thread")
    }

    /// Runs `body` holding the lock.
    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A value guarded by a `PlainMutex`. Used instead of `Synchronization.Mutex`, whose lock and unlock
/// run inside the (uninstrumented) Swift runtime on Linux, invisible to ThreadSanitizer: with a
/// pthread mutex TSan sees every lock the library takes, so its reports on the library are real.
// @unchecked: `value` is read and written only inside `withLock`.
final class Locked<Value>: @unchecked Sendable {
    private let mutex = PlainMutex()
    /// Not checked for exclusive access at each use (~76 instructions a `withLock`): the mutex makes
    /// every use exclusive (a nested `withLock` of one value would deadlock first).
    @exclusivity(unchecked) private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock.
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&value)
    }
}
