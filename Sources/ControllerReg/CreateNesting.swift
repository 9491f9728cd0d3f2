#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How deep the calling thread is in creates. A host callback that creates again (directly, or
/// through a provider) continues the count of the create that called it, so the create-depth
/// limit and the stack guard bound the whole nest on that thread, not each create alone.
enum CreateNesting {
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    /// The depth a create starting now on this thread begins at (0 outside any host callback).
    static var depth: Int {
        @inline(__always) get { Int(bitPattern: UInt(bitPattern: pthread_getspecific(key))) }
        @inline(__always) set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }

    /// Runs a host callback made at `depth`: creates it starts begin at `depth + 1`.
    @inline(__always)
    static func callingHost<R>(at depth: Int, _ body: () -> R) -> R {
        let saved = self.depth
        self.depth = depth + 1
        defer { self.depth = saved }
        return body()
    }
}
