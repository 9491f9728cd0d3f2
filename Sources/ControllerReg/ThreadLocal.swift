#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One object per thread, made on the thread's first use and released when the thread exits.
// @unchecked: each thread only touches its own slot.
package final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    /// A `let` (a `var` is checked for exclusive access at every read: ~76 instructions each time
    /// a writer lock is taken or let go).
    private let key: pthread_key_t
    private let make: () -> Value

    /// `make` builds the object for a thread that has none yet.
    package init(_ make: @escaping () -> Value) {
        self.make = make
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { raw in
            guard let raw else { return }
            Unmanaged<AnyObject>.fromOpaque(raw).release()
        }
        precondition(rc == 0, "controllerreg: pthread_key_create failed (\(rc)): out of thread-local keys")
        self.key = key
    }

    /// This thread's object, if it has made one.
    @inline(__always) package var existing: Value? {
        pthread_getspecific(key).map { Unmanaged<Value>.fromOpaque($0).takeUnretainedValue() }
    }

    /// This thread's object, made now if needed.
    package var value: Value {
        if let v = existing { return v }
        let v = make()
        let rc = pthread_setspecific(key, Unmanaged.passRetained(v).toOpaque())
        precondition(rc == 0, "controllerreg: pthread_setspecific failed (\(rc))")
        return v
    }
}
