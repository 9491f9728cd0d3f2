#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells a recursive walk whether the calling thread's stack still has room, so deep input
/// becomes a `.limit` error instead of a stack overflow, whatever the limits are set to and
/// whichever thread (main, or a host thread with a small stack) runs the walk.
///
/// The bounds of each thread's stack are looked up once per thread (pthread_getattr_np) and
/// cached in a pthread key, so a check is a key lookup and a comparison.
public enum StackGuard {
    /// What a "too deeply for this thread's stack" message adds, whichever walk ran out of room:
    /// the bound is the calling thread's stack, not a limit, so the fix is the thread or the input.
    public static func fix(_ shorten: String) -> String {
        " (the calling thread's stack is the bound, not a cr_limit: call from a thread with a larger stack, or \(shorten))"
    }

    /// Room kept free for the frames below the check (the rest of the walk's own level, host
    /// callbacks, the C library): 64 KiB.
    public static var defaultReserve: Int { 64 << 10 }

    /// Whether at least `reserve` bytes of stack are left below the caller's frame. True when the
    /// bounds cannot be found (an unknown stack is not refused).
    @inline(never)
    public static func hasRoom(_ reserve: Int = defaultReserve) -> Bool {
        hasRoom(above: lowBound(), reserve)
    }

    /// `hasRoom` for a caller that keeps this thread's `lowBound()` itself (no thread-local lookup).
    @inline(never)
    package static func hasRoom(above low: UInt, _ reserve: Int = defaultReserve) -> Bool {
        var marker: UInt8 = 0
        let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        return hasRoom(here: here, above: low, reserve)
    }

    /// The rule itself, for a caller that passes the address of a local in its own frame (`here`),
    /// so the check can be inlined: refused only when `here` lies 1 to `reserve` bytes above `low`.
    /// An unknown bound (0), or `here` outside the thread's stack (at or below `low`, or 64 GiB or
    /// more above it, e.g. ASan's fake stack frames), cannot be judged and is allowed.
    @inlinable
    package static func hasRoom(here: UInt, above low: UInt, _ reserve: Int = defaultReserve) -> Bool {
        let distance = here &- low
        // Distance 0, and distances that wrapped (here < low), become huge after the `- 1`.
        return distance &- 1 >= UInt(reserve) || distance >= (1 << 36) || low == 0
    }

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        let rc = pthread_key_create(&k, nil)
        precondition(rc == 0, "controllerreg: pthread_key_create for the stack guard failed (\(rc))")
        return k
    }()

    #if !canImport(Darwin)
    /// pthread_getattr_np (a GNU extension the Glibc module does not import), looked up once.
    private typealias GetAttr = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
    private static let getattrNP: GetAttr? = {
        guard let f = dlsym(nil, "pthread_getattr_np") else { return nil }
        return unsafeBitCast(f, to: GetAttr.self)
    }()
    #endif

    /// The lowest usable address of this thread's stack (0 if unknown), cached per thread.
    package static func lowBound() -> UInt {
        let k = key
        if let cached = pthread_getspecific(k) { return UInt(bitPattern: cached) }
        var low: UInt = 0
        #if canImport(Darwin)
        let top = UInt(bitPattern: pthread_get_stackaddr_np(pthread_self()))
        let size = UInt(pthread_get_stacksize_np(pthread_self()))
        if top > size { low = top - size }
        #else
        var attr = pthread_attr_t()
        if let getattr = getattrNP, getattr(pthread_self(), &attr) == 0 {
            var addr: UnsafeMutableRawPointer?
            var size = 0
            if pthread_attr_getstack(&attr, &addr, &size) == 0, let addr {
                // The guard page(s) sit at the bottom of the range.
                var guardSize = 0
                pthread_attr_getguardsize(&attr, &guardSize)
                low = UInt(bitPattern: addr) + UInt(guardSize)
            }
            pthread_attr_destroy(&attr)
        }
        #endif
        if low != 0 { pthread_setspecific(k, UnsafeRawPointer(bitPattern: low)) }
        return low
    }
}
