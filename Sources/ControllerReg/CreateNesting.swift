import ControllerRegConfig

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a create needs to know about the calling thread, in one record per thread so a create
/// reads it with a single thread-local lookup and host callbacks update it in place.
struct CreateThread {
    /// How deep the thread is in creates: a host callback that creates again (directly, or through
    /// a provider) continues the count of the create that called it, so the create-depth limit and
    /// the stack guard bound the whole nest on this thread, not each create alone.
    var depth: Int
    /// The lowest usable address of this thread's stack (0 if unknown), for the stack guard.
    let stackLow: UInt
}

/// The per-thread `CreateThread` records.
enum CreateNesting {
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        let rc = pthread_key_create(&k) { free($0) }
        precondition(rc == 0, "controllerreg: pthread_key_create for create nesting failed (\(rc))")
        return k
    }()

    /// The calling thread's record, made on first use (and freed when the thread exits).
    @inline(__always)
    static var current: UnsafeMutablePointer<CreateThread> {
        if let raw = pthread_getspecific(key) { return raw.assumingMemoryBound(to: CreateThread.self) }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> UnsafeMutablePointer<CreateThread> {
        guard let raw = malloc(MemoryLayout<CreateThread>.stride) else {
            preconditionFailure("controllerreg: out of memory for a thread's create record")
        }
        let record = raw.bindMemory(to: CreateThread.self, capacity: 1)
        record.initialize(to: CreateThread(depth: 0, stackLow: StackGuard.lowBound()))
        let rc = pthread_setspecific(key, raw)
        precondition(rc == 0, "controllerreg: pthread_setspecific for create nesting failed (\(rc))")
        return record
    }

    /// Runs a host callback made at `depth` on `thread`: creates it starts begin at `depth + 1`.
    @inline(__always)
    static func callingHost<R>(_ thread: UnsafeMutablePointer<CreateThread>, at depth: Int, _ body: () -> R) -> R {
        let saved = thread.pointee.depth
        thread.pointee.depth = depth + 1
        defer { thread.pointee.depth = saved }
        return body()
    }
}
