#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Holds a singleton entry's one object: built exactly once even when threads race for it.
///
/// Readers take the published object with one atomic load. The first builder takes the cell's
/// lock; others wait for it. A thread that asks for the singleton while building it (a create
/// callback that re-enters) gets an error instead of a deadlock.
// @unchecked: the object and builder are atomics; building is serialised by `mutex`.
final class SingletonCell: @unchecked Sendable {
    private let object = Atomic<UInt>(0)
    private let builder = Atomic<UInt>(0)
    private let mutex = PlainMutex()

    /// The object, if built.
    @inline(__always) var value: UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: object.load(ordering: .acquiring))
    }

    /// Whether the calling thread is building this singleton right now.
    var isBeingBuiltByThisThread: Bool {
        builder.load(ordering: .relaxed) == UInt(pthread_self())
    }

    /// Returns the object, building it with `build` if nobody has yet (exactly once).
    func obtain<E: Error>(_ build: () throws(E) -> UnsafeMutableRawPointer) throws(E) -> UnsafeMutableRawPointer {
        if let v = value { return v }
        mutex.lock()
        defer { mutex.unlock() }
        if let v = value { return v }
        builder.store(UInt(pthread_self()), ordering: .relaxed)
        defer { builder.store(0, ordering: .relaxed) }
        let built = try build()
        object.store(UInt(bitPattern: built), ordering: .releasing)
        return built
    }
}
